"""Regression tests for issue 28 on the seen trees (task prec6): one-shot eager `strategy.run`
(TFD402), a coordinator's own evaluation metric (TFD101), library smoke tests (TFD303/TFD201).

Each test is a minimal program in our own words of a shape found in public code, with the
control that keeps the finding where it is right.
"""

from __future__ import annotations

import textwrap

from checked_codes import codes_of

from fixer.engine import check_source, fix_source
from fixer.notebook import combine_cells


def _notebook_codes(cells: list[str]) -> list[str]:
    notebook = combine_cells(list(enumerate((textwrap.dedent(c) for c in cells), start=1)))
    return [f.code for f in check_source("n.ipynb", notebook.combined).findings]


# TFD402: a loop that leaves after its first pass -------------------------------------------------

_STEP = """
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        w = tf.Variable(1.0)
        opt = tf.keras.optimizers.SGD()

    def step(x):
        with tf.GradientTape() as tape:
            loss = w * x
        opt.apply_gradients([(tape.gradient(loss, w), w)])
        return loss

    batches = tf.data.Dataset.range(8).batch(4).map(lambda b: tf.cast(b, tf.float32))
    dist = strategy.experimental_distribute_dataset(batches)
    """


def test_a_loop_that_breaks_after_its_first_step_is_not_tfd402():
    # The demo steps on the first batch only (`break` at the end of the body): one eager call.
    source = _STEP + """
    for batch in dist:
        print(strategy.run(step, args=(batch,)))
        break
    """
    assert "TFD402" not in codes_of(source)


def test_a_loop_whose_break_is_conditional_is_still_tfd402():
    # The control: `break` under a condition ends a loop that steps many times first.
    source = _STEP + """
    for i, batch in enumerate(dist):
        strategy.run(step, args=(batch,))
        if i > 100:
            break
    """
    assert "TFD402" in codes_of(source)


def test_a_loop_with_a_continue_before_its_final_break_is_still_tfd402():
    # `continue` skips the final `break`: the loop can step many times.
    source = _STEP + """
    for batch in dist:
        strategy.run(step, args=(batch,))
        if batch is None:
            continue
        break
    """
    assert "TFD402" in codes_of(source)


# TFD402: a helper that steps on the first batch of a fresh iterator -----------------------------

_FIRST_BATCH_HELPER = _STEP + """
    def step_on_first_batch(dataset):
        {body}
    """


def test_a_helper_stepping_on_the_first_batch_of_a_fresh_iterator_is_not_tfd402():
    # `next(iter(ds))` is the first batch on every call: the helper checks one step (a test
    # helper comparing one prediction), it is not a training loop over the data.
    for body in (
        "batch = next(iter(strategy.experimental_distribute_dataset(dataset)))\n"
        "        return strategy.run(step, args=(batch,))",
        "return strategy.run(step, args=(next(iter(strategy.experimental_distribute_dataset(dataset))),))",
    ):
        assert "TFD402" not in codes_of(_FIRST_BATCH_HELPER.format(body=body)), body


def test_next_of_iter_of_a_parameter_is_still_tfd402():
    # `iter` of an iterator is the iterator itself: a caller passing one gets a new batch per call.
    source = _FIRST_BATCH_HELPER.format(body="return strategy.run(step, args=(next(iter(dataset)),))")
    assert "TFD402" in codes_of(source)


def test_a_step_taking_the_next_batch_of_a_shared_iterator_is_still_tfd402():
    # The control: `next(iterator)` on an iterator made once advances on every call: a real
    # eager training loop when the step is called repeatedly.
    source = _STEP + """
    iterator = iter(dist)

    def train_step():
        return strategy.run(step, args=(next(iterator),))

    for _ in range(100):
        train_step()
    """
    assert "TFD402" in codes_of(source)


def test_a_first_batch_step_called_from_a_loop_is_still_tfd402():
    # Called from a loop in the module it runs eagerly on every pass, whatever batch it takes.
    body = "return strategy.run(step, args=(next(iter(strategy.experimental_distribute_dataset(dataset))),))"
    source = _FIRST_BATCH_HELPER.format(body=body) + """
    for _ in range(100):
        step_on_first_batch(dist)
    """
    assert "TFD402" in codes_of(source)


# TFD101: a coordinator's own evaluation metric ----------------------------------------------------

_PS_TRAINING = """
    import tensorflow as tf

    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    strategy = tf.distribute.ParameterServerStrategy(resolver)
    coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    """

_INLINE_EVAL = """
    eval_accuracy = tf.keras.metrics.Accuracy()
    for x, y in eval_dataset:
        pred = tf.cast(model(x, training=False) > 0.5, tf.int64)
        eval_accuracy.update_state(y, pred)
    print(eval_accuracy.result())
    """

_SCHEDULED_EVAL = """
    with strategy.scope():
        eval_accuracy = tf.keras.metrics.Accuracy()

    @tf.function
    def eval_step(iterator):
        def replica_fn(x, y):
            pred = tf.cast(model(x, training=False) > 0.5, tf.int64)
            eval_accuracy.update_state(y, pred)
        x, y = next(iterator)
        strategy.run(replica_fn, args=(x, y))

    for _ in range(2):
        coordinator.schedule(eval_step, args=(per_worker_iterator,))
    coordinator.join()
    """


def test_an_inline_evaluation_metric_on_the_coordinator_is_not_tfd101():
    # Made outside the scope and updated eagerly on the coordinator, outside any replica: it
    # counts the same as one made in the scope under Keras 3 and tf-keras
    # (benchmarks/probe_coordinator_eval_metric.py: accuracy 0.75 in every case).
    assert "TFD101" not in codes_of(_PS_TRAINING + _INLINE_EVAL)


def test_the_inline_metric_then_a_distributed_one_made_again_in_the_scope_is_not_tfd101():
    # The tutorial's shape, in a script and across notebook cells: the name is rebound in the
    # scope before the replica function that updates it is defined.
    assert "TFD101" not in codes_of(_PS_TRAINING + _INLINE_EVAL + _SCHEDULED_EVAL)
    assert "TFD101" not in _notebook_codes([_PS_TRAINING, _INLINE_EVAL, _SCHEDULED_EVAL])


def test_the_same_metric_updated_in_the_scheduled_replica_function_is_still_tfd101():
    # The control: without the rebinding, the replica function updates the coordinator's
    # metric made outside the scope.
    scheduled = _SCHEDULED_EVAL.replace(
        "with strategy.scope():\n        eval_accuracy = tf.keras.metrics.Accuracy()\n", ""
    )
    assert scheduled != _SCHEDULED_EVAL
    assert "TFD101" in codes_of(_PS_TRAINING + _INLINE_EVAL + scheduled)


# TFD303: a loss helper whose name another function of the module also defines --------------------

_TWO_TESTS = """
    import tensorflow as tf


    class StepTest(tf.test.TestCase):
        def test_plain_and_compiled_helpers_agree(self):
            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4)])
                model2 = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4)])
                optimizer = tf.keras.optimizers.SGD(0.1)

            def compute_loss(x, y):
                outputs = model(x)
                return tf.reduce_mean(tf.square(y - outputs))

            @tf.function
            def compute_loss2(x, y):
                outputs = model2(x)
                return tf.reduce_mean(tf.square(y - outputs))

            @tf.function
            def step_one(x, y):
                def replica_fn(x, y):
                    with tf.GradientTape() as tape:
                        loss = compute_loss(x, y)
                    grads = tape.gradient(loss, model.trainable_variables)
                    optimizer.apply_gradients(zip(grads, model.trainable_variables))
                strategy.run(replica_fn, args=(x, y))

            @tf.function
            def step_two(x, y):
                def replica_fn(x, y):
                    with tf.GradientTape() as tape:
                        loss = compute_loss2(x, y)
                    grads = tape.gradient(loss, model2.trainable_variables)
                    optimizer.apply_gradients(zip(grads, model2.trainable_variables))
                strategy.run(replica_fn, args=(x, y))

            x, y = tf.ones((8, 3)), tf.ones((8, 4))
            step_one(x, y)
            step_two(x, y)
            self.assertAllClose(model.variables, model2.variables)

        def test_another_helper_of_the_same_name(self):
            def compute_loss(x, y):
                return tf.reduce_mean(x - y)

            self.assertEqual(compute_loss(1.0, 1.0), 0.0)
    """


def test_a_loss_helper_named_like_another_tests_helper_is_found_and_fixed_with_its_twin():
    # Two `compute_loss` defs in one module: the step's call reaches the one of its own test
    # method. Missing it left the fix rewriting only `compute_loss2`, so the test's two models,
    # meant to stay equal, diverged. Checked under a module name that is not a test file's: in a
    # test file this test compares two models trained alike, which prec24 leaves silent (below).
    source = textwrap.dedent(_TWO_TESTS)
    findings = [f for f in check_source("steps.py", source).findings if f.code == "TFD303"]
    assert len(findings) == 2
    fixed = fix_source("steps.py", source, unsafe=True).fixed_text or ""
    assert fixed.count("tf.square(y - outputs)) / tf.distribute.get_replica_context().num_replicas_in_sync") == 2
    assert "return tf.reduce_mean(x - y)" in fixed


def test_in_a_test_file_the_twin_models_compared_with_each_other_are_not_tfd303():
    # Every assertion compares the two models, whose steps both give a per-replica mean: the
    # scale moves both alike and cannot change the outcome (the ledger's tf-keras noise).
    source = textwrap.dedent(_TWO_TESTS)
    assert [f for f in check_source("step_test.py", source).findings if f.code == "TFD303"] == []
