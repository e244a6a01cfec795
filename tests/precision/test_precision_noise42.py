"""Regression tests for issue 28 (noise42): the ledger's TFD201/TFD202 noise, in our own words, each
with the control that keeps the finding where it is right.

- TFD202: `AutoShardPolicy.OFF` on a dataset read only by `evaluate`/`predict` (every worker
  evaluates the whole set; the all-reduced mean metrics are unchanged,
  benchmarks/probe_noise42_premises.py), and on a dataset nothing reads (a tutorial showing the
  setting). A dataset that is also fitted stays reported.
- TFD201: a library test that runs a replica step on an undistributed batch and asserts nothing (a
  smoke test) is not reported; the same test asserting on the result stays reported.
"""

from __future__ import annotations

import textwrap

from fixer.engine import check_source


def _lines(code: str, source: str, path: str = "train.py") -> list[int]:
    """The lines of ``code``'s findings in ``source`` (checked as ``path``)."""
    findings = check_source(path, textwrap.dedent(source)).findings
    return [f.start.line for f in findings if f.code == code]


# -- TFD202: OFF on evaluation input only ------------------------------------------------------------

_TWO_SETS = """
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()


def scale(image, label):
    return tf.cast(image, tf.float32) / 255.0, label


def main(train_images, test_images, batch):
    train_ds = tf.data.Dataset.from_tensor_slices(train_images)
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    train_ds = train_ds.with_options(options)
    train_ds = train_ds.map(scale).shuffle(1000).batch(batch)

    eval_ds = tf.data.Dataset.from_tensor_slices(test_images)
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    eval_ds = eval_ds.with_options(options)
    eval_ds = eval_ds.map(scale).batch(batch)

    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
        model.compile(loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(train_ds, epochs=2)
{reads}
"""


def test_off_on_a_set_only_evaluated_is_not_reported() -> None:
    assert _lines("TFD202", _TWO_SETS.format(reads="    print(model.evaluate(eval_ds, verbose=2))")) == []


def test_off_on_a_set_only_predicted_is_not_reported() -> None:
    assert _lines("TFD202", _TWO_SETS.format(reads="    return model.predict(x=eval_ds)")) == []


def test_off_on_a_set_also_fitted_stays_reported() -> None:
    reads = "    model.fit(eval_ds, epochs=1)\n    model.evaluate(eval_ds)"
    assert _lines("TFD202", _TWO_SETS.format(reads=reads)) == [20]


def test_off_on_a_set_also_iterated_stays_reported() -> None:
    reads = "    model.evaluate(eval_ds)\n    for images, labels in eval_ds:\n        print(labels)"
    assert _lines("TFD202", _TWO_SETS.format(reads=reads)) == [20]


_ONE_SET = """
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(loss="mse")

options = tf.data.Options()
options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
ds = tf.data.Dataset.from_tensor_slices(([1.0, 2.0], [0.0, 1.0])).batch(2)
shown = ds.with_options(options)
{reads}
"""


def test_off_on_a_set_nothing_reads_is_not_reported() -> None:
    assert _lines("TFD202", _ONE_SET.format(reads="")) == []


def test_off_on_a_fitted_set_stays_reported() -> None:
    assert _lines("TFD202", _ONE_SET.format(reads="model.fit(shown, epochs=1)")) == [10]


# -- TFD201: a smoke test of a replica step ------------------------------------------------------------

_SMOKE = """
import tensorflow as tf


class StepTest(tf.test.TestCase):
    def test_step_with_variables(self):
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.1)
        dataset = tf.data.Dataset.from_tensor_slices(([[1.0], [2.0]], [[0.0], [1.0]])).batch(2)

        @tf.function
        def train(batch):
            def step(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((model(x) - y) ** 2)
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            return strategy.run(step, args=batch)

        loss = train(next(iter(dataset)))
{check}
"""


def test_replica_step_smoke_test_is_not_reported() -> None:
    assert _lines("TFD201", _SMOKE.format(check=""), path="step_test.py") == []


def test_replica_step_test_that_asserts_stays_reported() -> None:
    check = "        self.assertAllClose(strategy.reduce('SUM', loss, axis=None), 0.5)"
    assert _lines("TFD201", _SMOKE.format(check=check), path="step_test.py") != []


def test_replica_step_outside_a_test_file_stays_reported() -> None:
    assert _lines("TFD201", _SMOKE.format(check=""), path="train.py") != []
