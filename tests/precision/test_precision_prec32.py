"""Regression tests for issue 28 (prec32): ledger12b's classes 4-8 and ledger12a's class 3, in our
own words, each with the control that keeps the finding where it is right.

- Class 4 (TFD202): a dataset function hands its input context's pipeline count and index (or the
  job's worker count and this worker's index) to a helper, a method on ``self`` or a module
  function, that shards with the parameters receiving them.
- Class 5 (TFD101): a non-trainable step counter and learning-rate variable made outside the scope,
  only read by the replicas and incremented between steps in cross-replica code: measured to work
  (benchmarks/probe_ledger12b_premises.py). A replica function that writes it stays reported.
- Class 6 (TFD111): a `tf.compat.v1.Session(...)` leaves the eager context uninitialised, so device
  configuration after it raises nothing (same probe).
- Class 7 (TFD301): a variable made per replica with `experimental_distribute_values_from_function`
  (each replica owns its slice) updated from the replica's own gradient: nothing to all-reduce.
- Class 8 (TFD303): gradients MEAN-reduced by hand (`merge_call`, `all_reduce(MEAN)`) before
  `apply_gradients` are already averaged (same probe: Keras 3 takes the one-device step).
- ledger12a class 3 (TFD303): an unreduced per-example loss in a `train_step` run by `fit` sums
  over the batch on one device too; under the strategy the replicas' sums add up to the same
  gradient (benchmarks/probe_ledger12a_premises.py).
"""

from __future__ import annotations

import textwrap

from fixer.engine import check_source


def _lines(code: str, source: str) -> list[int]:
    """The lines of ``code``'s findings in ``source`` (a script named train.py)."""
    findings = check_source("train.py", textwrap.dedent(source)).findings
    return [f.start.line for f in findings if f.code == code]


# -- class 4: TFD202, the shard done by a helper the dataset function calls ---------------------------

_RUNNER = """
import tensorflow as tf


class Runner:
    def __init__(self, files):
        self.files = files
        self.strategy = tf.distribute.MultiWorkerMirroredStrategy()

    def _make_input(self, batch_size, count=None, index=None):
        ds = tf.data.TFRecordDataset(self.files)

        def finish(ds):
            if count is not None and index is not None:
                ds = ds.shard(count, index)
            return ds.batch(batch_size)

        return finish(ds)

    def train(self, global_batch):
{prelude}
        def input_fn(context):
            per_replica = context.get_per_replica_batch_size(global_batch)
            return self._make_input(per_replica, {given})

        return self.strategy.distribute_datasets_from_function(input_fn)
"""


def test_context_pipelines_handed_to_a_sharding_method_are_not_tfd202():
    given = "context.num_input_pipelines, context.input_pipeline_id"
    assert _lines("TFD202", _RUNNER.format(prelude="", given=given)) == []


def test_the_worker_index_handed_to_a_sharding_method_is_not_tfd202():
    prelude = "        workers, worker = read_cluster()\n"
    assert _lines("TFD202", _RUNNER.format(prelude=prelude, given="workers, worker")) == []


def test_keywords_handed_to_a_sharding_method_are_not_tfd202():
    given = "index=context.input_pipeline_id, count=context.num_input_pipelines"
    assert _lines("TFD202", _RUNNER.format(prelude="", given=given)) == []


def test_context_pipelines_handed_to_a_sharding_module_function_are_not_tfd202():
    source = """
    import tensorflow as tf

    strategy = tf.distribute.MultiWorkerMirroredStrategy()


    def make_input(files, batch_size, shards, shard):
        return tf.data.TFRecordDataset(files).shard(shards, shard).batch(batch_size)


    def input_fn(ctx):
        return make_input(FILES, 64, ctx.num_input_pipelines, ctx.input_pipeline_id)


    dist = strategy.distribute_datasets_from_function(input_fn)
    """
    assert _lines("TFD202", source) == []


def test_control_a_helper_left_to_its_default_shard_arguments_stays_tfd202():
    assert _lines("TFD202", _RUNNER.format(prelude="", given="")) == [22]


def test_control_a_helper_given_none_stays_tfd202():
    assert _lines("TFD202", _RUNNER.format(prelude="", given="None, None")) == [22]


# -- class 5: TFD101, counters only read by the replicas ------------------------------------------------

_COUNTERS = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
step = tf.Variable(0, trainable=False, dtype=tf.int32)
rate = tf.Variable(0.01, trainable=False)
with strategy.scope():
    model = make_model()
    optimizer = make_optimizer(rate)


def replica_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.nn.compute_average_loss(loss_fn(y, model(x)), global_batch_size=64)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    if step % 100 == 0:
        log_rate(rate)
{write}    return loss


@tf.function
def train(x, y):
    return strategy.run(replica_step, args=(x, y))


for x, y in dataset:
    train(x, y)
    step.assign_add(1)
"""


def test_counters_only_read_by_replicas_are_not_tfd101():
    assert _lines("TFD101", _COUNTERS.format(write="")) == []


def test_control_a_counter_the_replica_function_writes_stays_tfd101():
    assert _lines("TFD101", _COUNTERS.format(write="    step.assign_add(1)\n")) == [5]


def test_control_a_trainable_variable_read_by_replicas_stays_tfd101():
    source = _COUNTERS.format(write="").replace("tf.Variable(0.01, trainable=False)", "tf.Variable(0.01)")
    assert _lines("TFD101", source) == [6]


def test_control_a_counter_trained_by_the_replicas_stays_tfd101():
    write = "    optimizer.apply_gradients(zip(grads[:1], [rate]))\n"
    assert _lines("TFD101", _COUNTERS.format(write=write)) == [6]


# -- class 6: TFD111, a v1 Session is no runtime start --------------------------------------------------

_SESSION = """
import tensorflow as tf

config = tf.compat.v1.ConfigProto()
config.gpu_options.allow_growth = True
{start}
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)

strategy = tf.distribute.MirroredStrategy()
"""


def test_device_configuration_after_a_v1_session_is_not_tfd111():
    assert _lines("TFD111", _SESSION.format(start="tf.compat.v1.Session(config=config)")) == []


def test_control_device_configuration_after_a_tensor_stays_tfd111():
    assert _lines("TFD111", _SESSION.format(start="x = tf.constant(1.0)")) == [8]


# -- class 7: TFD301, per-replica slices by design ------------------------------------------------------

_SLICES = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    hidden = tf.Variable(tf.random.normal([8, 16]))
    optimizer = tf.keras.optimizers.SGD(0.1)


def column_slice(ctx):
    width = 32 // ctx.num_replicas_in_sync
    start = ctx.replica_id_in_sync_group * width
    return tf.Variable(tf.random.normal([16, width]))


{made}


def replica_step(x, y, out):
    with tf.GradientTape() as tape:
        loss = tf.nn.compute_average_loss(loss_fn(y, tf.matmul(tf.matmul(x, hidden), out)), global_batch_size=64)
    grads = tape.gradient(loss, [hidden, out])
    grad_hidden, grad_out = grads
    out.assign_add(-0.1 * grad_out)
    optimizer.apply_gradients([(grad_hidden, hidden)])
    return loss


@tf.function
def train(x, y):
    return strategy.run(replica_step, args=(x, y, out_weights))
"""


def test_a_slice_each_replica_owns_is_not_tfd301():
    made = "out_weights = strategy.experimental_distribute_values_from_function(column_slice)"
    assert _lines("TFD301", _SLICES.format(made=made)) == []


def test_control_a_mirrored_variable_updated_from_its_own_gradient_stays_tfd301():
    made = "with strategy.scope():\n    out_weights = tf.Variable(tf.random.normal([16, 32]))"
    assert _lines("TFD301", _SLICES.format(made=made)) == [25]


# -- class 8 and ledger12a class 3: TFD303 -------------------------------------------------------------

_MEAN_BY_HAND = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = make_model()
    optimizer = tf.keras.optimizers.SGD(0.1)


def replica_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    ctx = tf.distribute.get_replica_context()
    {reduce}
    optimizer.apply_gradients(zip(averaged, model.trainable_variables))
    return loss


@tf.function
def train(x, y):
    return strategy.run(replica_step, args=(x, y))
"""


def test_gradients_mean_reduced_through_merge_call_are_not_tfd303():
    reduce = (
        "averaged = ctx.merge_call(lambda s, g: s.reduce(tf.distribute.ReduceOp.MEAN, g, axis=None), args=(grads,))"
    )
    assert _lines("TFD303", _MEAN_BY_HAND.format(reduce=reduce)) == []


def test_gradients_mean_all_reduced_are_not_tfd303():
    reduce = 'averaged = ctx.all_reduce("MEAN", grads)'
    assert _lines("TFD303", _MEAN_BY_HAND.format(reduce=reduce)) == []


def test_control_gradients_sum_reduced_through_merge_call_stay_tfd303():
    reduce = "averaged = ctx.merge_call(lambda s, g: s.reduce(tf.distribute.ReduceOp.SUM, g, axis=None), args=(grads,))"
    assert _lines("TFD303", _MEAN_BY_HAND.format(reduce=reduce)) == [12]


def test_control_gradients_applied_as_they_are_stay_tfd303():
    assert _lines("TFD303", _MEAN_BY_HAND.format(reduce="averaged = grads")) == [12]


_FIT_STEP = """
import tensorflow as tf


class Masked(tf.keras.Model):
    def train_step(self, data):
        x, y, w = data
        with tf.GradientTape() as tape:
            pred = self(x, training=True)
            loss = loss_fn(y, pred, sample_weight=w)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {{"loss": loss}}


strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    loss_fn = {loss}
    model = Masked(inputs, outputs)
    model.compile(optimizer="adam")
model.fit(dataset)
"""


def test_an_unreduced_loss_in_a_fit_step_is_not_tfd303():
    loss = "tf.keras.losses.SparseCategoricalCrossentropy(reduction=tf.keras.losses.Reduction.NONE)"
    assert _lines("TFD303", _FIT_STEP.format(loss=loss)) == []


def test_control_a_per_replica_mean_in_a_fit_step_stays_tfd303():
    source = _FIT_STEP.format(loss="make_loss()").replace(
        "loss = loss_fn(y, pred, sample_weight=w)", "loss = tf.reduce_mean(tf.square(pred - y))"
    )
    assert _lines("TFD303", source) == [10]


def test_gradients_mean_reduced_by_a_named_merge_function_are_not_tfd303():
    reduce = (
        "def merge(strategy, values):\n"
        "        return strategy.reduce(tf.distribute.ReduceOp.MEAN, values, axis=None)\n\n"
        "    averaged = ctx.merge_call(merge, args=(grads,))"
    )
    assert _lines("TFD303", _MEAN_BY_HAND.format(reduce=reduce)) == []


def test_control_a_named_merge_function_that_sums_stays_tfd303():
    reduce = (
        "def merge(strategy, values):\n"
        "        return strategy.reduce(tf.distribute.ReduceOp.SUM, values, axis=None)\n\n"
        "    averaged = ctx.merge_call(merge, args=(grads,))"
    )
    assert _lines("TFD303", _MEAN_BY_HAND.format(reduce=reduce)) == [12]


def test_a_counter_incremented_in_the_scope_between_steps_is_not_tfd101():
    source = _COUNTERS.format(write="").replace(
        "for x, y in dataset:\n    train(x, y)\n    step.assign_add(1)\n",
        "@tf.function\ndef loop():\n    with strategy.scope():\n        for x, y in dataset:\n"
        "            step.assign_add(1)\n            train(x, y)\n\n\nloop()\n",
    )
    assert "with strategy.scope():\n        for x" in source
    assert _lines("TFD101", source) == []
