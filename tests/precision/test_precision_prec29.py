"""Regression tests for issue 28 (prec29): ledger10b's classes 3 and 4, TFD204's upstream shuffle,
TFD112's device list and TFD504 through a project factory, in our own words, each with the
control that keeps the finding where it is right.

- Class 3 (TFD202): an input function that draws its rows from NumPy's global generator with no
  seed anywhere in the program, then turns auto-sharding off: each worker's process draws rows of
  its own (benchmarks/probe_per_process_random_data.py), so OFF reads no example twice.
- Class 4 (TFD502, and every rule asking "is this multi-worker"): a multi-worker strategy
  constructed in a bare expression statement (a leftover notebook cell) is never bound nor used:
  it decides nothing. The save runs under the strategy the model's scope enters.
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


_LEFTOVER_CELL = """
    import tensorflow as tf

    {first}tf.distribute.MultiWorkerMirroredStrategy()

    {second}tf.distribute.MirroredStrategy()
    with strategy.scope():
        net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        net.compile("sgd", "mse")
    net.fit(tf.data.Dataset.range(8).map(lambda v: (v, v)).batch(2), epochs=1)
    net.save_weights("weights_last.h5")
    """


def _tfd502(first: str, second: str) -> list[str]:
    source = _LEFTOVER_CELL.format(first=first, second=second)
    return [code for code in codes_of(source) if code == "TFD502"]


def test_a_multi_worker_strategy_thrown_away_in_an_expression_statement_decides_nothing():
    assert _tfd502(first="", second="strategy = ") == []


def test_control_the_multi_worker_strategy_the_scope_enters_keeps_tfd502():
    assert _tfd502(first="strategy = ", second="") == ["TFD502"]
