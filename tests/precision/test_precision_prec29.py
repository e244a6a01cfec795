"""Regression tests for issue 28 (prec29): ledger10b's classes 3 and 4, TFD204's upstream shuffle,
TFD112's device list and TFD504 through a project factory, in our own words, each with the
control that keeps the finding where it is right.

- Class 3 (TFD202): an input function that draws its rows from NumPy's global generator with no
  seed anywhere in the program, then turns auto-sharding off: each worker's process draws rows of
  its own (benchmarks/probe_per_process_random_data.py), so OFF reads no example twice.
"""

from __future__ import annotations

from checked_codes import codes_of

_DRAWN_INPUT = """
    import numpy as np
    import tensorflow as tf
    {seed}

    def launched():
        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def make_input(batch):
            features = {features}
            labels = np.random.randint(2, size=(512, 1))
            features = tf.cast(features, tf.float32)
            data = tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(batch)
            opts = tf.data.Options()
            opts.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
            return data.with_options(opts)

        with strategy.scope():
            net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            net.compile("sgd", "mse")
        net.fit(make_input(16), epochs=1, steps_per_epoch=8)

    launcher.run(launched)
    """


def _tfd202(seed: str = "", features: str = "np.random.random((512, 8))") -> list[str]:
    source = _DRAWN_INPUT.format(seed=seed, features=features)
    return [code for code in codes_of(source) if code == "TFD202"]


def test_unseeded_numpy_rows_each_worker_draws_with_auto_sharding_off_are_not_tfd202():
    assert _tfd202() == []


def test_control_a_program_seed_makes_every_worker_draw_the_same_rows_tfd202_stays():
    assert _tfd202(seed="np.random.seed(7)") == ["TFD202"]


def test_control_rows_read_from_a_file_stay_tfd202():
    assert _tfd202(features='np.load("features.npy")') == ["TFD202"]
