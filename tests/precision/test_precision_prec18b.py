"""Regression tests for issue 28, blind round ledger17b (task prec18b): TFD105 on a notebook saved
as a script and before the file's own later TF_CONFIG; TFD101 on a model first built in a replica
step run under the scope, on a metric fed only a reduced value in cross-replica code, and on a
name bound again in another branch after every distributed call.

Each test is a minimal program in our own words of a shape found in public code, with the
control that keeps the finding where it is right. Premises: benchmarks/probe_ledger17b_premises.py.
"""

from __future__ import annotations

from checked_codes import codes_of

# TFD105: no cluster reaches the strategy --------------------------------------------------------

_TOUR = '''
import tensorflow as tf

"""## One machine

A mirrored strategy first."""

one = tf.distribute.MirroredStrategy()

"""## Several machines"""

many = tf.distribute.MultiWorkerMirroredStrategy()
'''


def test_a_notebook_saved_as_a_script_builds_a_local_multi_worker_strategy():
    # Markdown cells kept as bare strings: the tour runs as its notebook did, with no cluster.
    source = (
        _TOUR
        + '''
"""## The cluster

Each worker sets `os.environ["TF_CONFIG"] = json.dumps(...)` before it builds the strategy."""
'''
    )
    assert "TFD105" not in codes_of(source)


def test_a_notebook_saved_as_a_script_that_sets_tf_config_in_code_is_still_tfd105():
    # The control: its code names TF_CONFIG, so a cluster may be in play at the strategy.
    source = _TOUR.replace("import tensorflow as tf", 'import os\nimport tensorflow as tf\nos.environ.get("TF_CONFIG")')
    assert "TFD105" in codes_of(source)


def test_a_plain_script_with_markdown_free_strings_is_still_tfd105():
    # The control: a script with no Markdown cells may be one worker of a launcher's cluster.
    source = _TOUR.replace('"""## One machine\n\nA mirrored strategy first."""', "")
    source = source.replace('"""## Several machines"""', "")
    assert "TFD105" in codes_of(source)


_LATER = """
import json
import os
import tensorflow as tf

x = tf.constant(1.0)
mwms = tf.distribute.MultiWorkerMirroredStrategy()

os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": 0}})
"""


def test_a_strategy_before_the_files_only_tf_config_is_not_tfd105():
    # At the strategy no TF_CONFIG has been set: one local worker, built after the op.
    assert "TFD105" not in codes_of(_LATER)


def test_a_strategy_after_a_tf_config_is_still_tfd105():
    # The control: TF_CONFIG set before the strategy as well.
    source = _LATER.replace("x = tf.constant", 'os.environ["TF_CONFIG"] = os.environ["CLUSTER"]\nx = tf.constant')
    assert "TFD105" in codes_of(source)


def test_a_strategy_given_a_resolver_before_a_later_tf_config_is_still_tfd105():
    # The control: the resolver gives it a cluster whatever TF_CONFIG says.
    source = _LATER.replace(
        "MultiWorkerMirroredStrategy()",
        "MultiWorkerMirroredStrategy(cluster_resolver=tf.distribute.cluster_resolver.SimpleClusterResolver(spec))",
    ).replace("x = tf.constant(1.0)", "spec = tf.train.ClusterSpec({'worker': ['a:1', 'b:1']})\nx = tf.constant(1.0)")
    assert "TFD105" in codes_of(source)


# TFD101: an unbuilt model first called in the replica step --------------------------------------

_UNBUILT = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


class Tagger(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.head = tf.keras.Sequential([tf.keras.layers.Dense(4), tf.keras.layers.Dense(2)])

    def call(self, x):
        return self.head(x)


tagger = Tagger()
tagger.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
EAGER_CALL

with strategy.scope():
    sgd = tf.keras.optimizers.SGD()
    saver = tf.train.Checkpoint(optimizer=sgd, model=tagger)


def one_replica(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tagger(x))
    grads = tape.gradient(loss, tagger.trainable_variables)
    sgd.apply_gradients(zip(grads, tagger.trainable_variables))
    return loss


@tf.function
def every_replica(x):
    return strategy.RUN(one_replica, RUN_ARGS)


data = strategy.experimental_distribute_dataset(tf.data.Dataset.range(4).map(lambda i: tf.ones((2, 3))))
with strategy.scope():
    for batch in data:
        every_replica(batch)
"""


def _unbuilt(eager: str = "", run: str = "run", args: str = "args=(x,)") -> str:
    return _UNBUILT.replace("EAGER_CALL", eager).replace("RUN", run, 1).replace("RUN_ARGS", args)


def test_a_model_first_built_in_the_replica_step_is_not_tfd101():
    # Compile and the Checkpoint build nothing; the first call makes mirrored variables.
    assert "TFD101" not in codes_of(_unbuilt())


def test_a_model_first_built_in_an_experimental_run_step_is_not_tfd101():
    # The TF 1 `experimental_run(fn, iterator)` still runs fn on every replica (measured).
    source = _unbuilt(run="experimental_run", args="iter(data)")
    assert "TFD101" not in codes_of(source)


def test_a_model_called_eagerly_before_the_loop_is_still_tfd101():
    # The control: an eager call outside the scope builds it there first.
    assert "TFD101" in codes_of(_unbuilt(eager="tagger(tf.ones((1, 3)))"))


# TFD101: a metric fed a reduced value in cross-replica code -------------------------------------

_METRIC = """
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    weight = tf.Variable(1.0)
    opt = tf.keras.optimizers.SGD()
running = tf.keras.metrics.Mean()


def one_replica(x):
    with tf.GradientTape() as tape:
        loss = weight * x
    opt.apply_gradients([(tape.gradient(loss, weight), weight)])
    INSIDE
    return loss


@tf.function
def step(x):
    losses = strategy.run(one_replica, args=(x,))
    return strategy.reduce(tf.distribute.ReduceOp.MEAN, losses, axis=None)


data = strategy.experimental_distribute_dataset(tf.data.Dataset.range(4).map(lambda i: tf.cast(i, tf.float32)))
for batch in data:
    with strategy.scope():
        OUTSIDE
print(running.result())
"""


def test_a_metric_called_with_the_reduced_loss_in_the_loop_is_not_tfd101():
    # Cross-replica code feeds it the already reduced value: the same mean as one made inside.
    source = _METRIC.replace("INSIDE", "pass").replace("OUTSIDE", "running(step(batch))")
    assert "TFD101" not in codes_of(source)


def test_a_metric_handed_to_compile_in_the_scope_is_still_tfd101():
    # The control: tf-keras's compile raises for a metric made under no strategy.
    source = _METRIC.replace("INSIDE", "pass").replace(
        "OUTSIDE",
        "model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n        model.compile('sgd', metrics=[running])",
    )
    assert "TFD101" in codes_of(source)


# TFD101: the binding that reaches the closure's calls -------------------------------------------

_BRANCHES = """
import tensorflow as tf


def main(train, evaluate, build):
    strategy = tf.distribute.MirroredStrategy()
    BEFORE
    with strategy.scope():
        net = build()
        opt = tf.keras.optimizers.SGD()
    if train:
        def step(x):
            def one_replica(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(net(x))
                grads = tape.gradient(loss, net.trainable_variables)
                opt.apply_gradients(zip(grads, net.trainable_variables))
                return loss

            return strategy.run(one_replica, args=(x,))

        for batch in strategy.experimental_distribute_dataset(tf.data.Dataset.range(2).map(lambda i: tf.ones((2, 3)))):
            step(batch)
    if evaluate:
        net = tf.keras.Sequential([tf.keras.layers.Dense(2)])
        print(net(tf.ones((1, 3))))
"""


def test_a_model_rebound_after_every_distributed_call_is_not_tfd101():
    # The eval branch's model is made after the last call of the step: the closure never sees it.
    assert "TFD101" not in codes_of(_BRANCHES.replace("BEFORE", "pass"))


def test_a_model_made_outside_and_used_in_the_step_is_still_tfd101():
    # The control: the one binding the step reads is made outside the scope.
    source = _BRANCHES.replace("BEFORE", "net = tf.keras.Sequential([tf.keras.layers.Dense(2)])").replace(
        "        net = build()\n", ""
    )
    assert "TFD101" in codes_of(source)


def test_a_step_handed_out_keeps_every_binding():
    # The control: a step returned to the caller may run after the rebinding.
    source = _BRANCHES.replace("BEFORE", "pass").replace(
        "        for batch in", "        return step\n        for batch in"
    )
    assert "TFD101" in codes_of(source)
