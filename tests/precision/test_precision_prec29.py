"""Regression tests for issue 28 (prec29): ledger10b's classes 3 and 4, TFD204's upstream shuffle,
TFD112's device list and TFD504 through a project factory, in our own words, each with the
control that keeps the finding where it is right.

- Class 3 (TFD202): an input function that draws its rows from NumPy's global generator with no
  seed anywhere in the program, then turns auto-sharding off: each worker's process draws rows of
  its own (benchmarks/probe_per_process_random_data.py), so OFF reads no example twice.
- Class 4 (TFD502, and every rule asking "is this multi-worker"): a multi-worker strategy
  constructed in a bare expression statement (a leftover notebook cell) is never bound nor used:
  it decides nothing. The save runs under the strategy the model's scope enters.
- TFD204's rewrite and recall: a list of paths reordered by an unseeded shuffle before the dataset
  is built from it gives each worker its own order, so a seed on the dataset's shuffle alone still
  leaves the shards overlapping, and an evaluation set built the same way (no dataset shuffle)
  overlaps too (benchmarks/probe_upstream_list_shuffle.py, 2 local MWMS workers).
- TFD504 recall: a model returned by a sibling module's factory (`from nets import make_net`)
  that builds it with `tensorflow.keras`, trained by `fit` under MultiWorkerMirroredStrategy on
  today's TF (Keras 3): followed through the project import model (fixer/tf/project_imports.py).
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from checked_codes import codes_of

from fixer.engine import check_source, fix_source

if TYPE_CHECKING:
    from pathlib import Path

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


_LISTS = """
    import numpy as np
    import tensorflow as tf
    {seed}
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    train_paths = {train_list}
    {train_extra}
    eval_paths = sorted(tf.io.gfile.glob("eval/*.png"))
    {eval_shuffle}
    train = tf.data.Dataset.from_tensor_slices(train_paths){train_shuffle}.map(tf.io.read_file).batch(16)
    held = tf.data.Dataset.from_tensor_slices(eval_paths).map(tf.io.read_file).batch(16)
    with strategy.scope():
        net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        net.compile("sgd", "mse")
    net.fit(train, epochs=3)
    net.evaluate(held)
    """

_TF_SHUFFLED = 'tf.random.shuffle(sorted(tf.io.gfile.glob("train/*.png")))'


def _lists(
    seed: str = "",
    train_list: str = _TF_SHUFFLED,
    train_shuffle: str = ".shuffle(256)",
    eval_shuffle: str = "",
    train_extra: str = "",
) -> str:
    source = _LISTS.format(
        seed=seed,
        train_list=train_list,
        train_shuffle=train_shuffle,
        eval_shuffle=eval_shuffle,
        train_extra=train_extra,
    )
    return textwrap.dedent(source)


def _tfd204_lines(source: str) -> list[int]:
    return [f.start.line for f in check_source("train.py", source).findings if f.code == "TFD204"]


def test_the_rewrite_seeds_the_list_shuffle_as_well_as_the_dataset_shuffle():
    source = _lists()
    fixed = fix_source("train.py", source, unsafe=True).fixed_text or ""
    assert 'tf.random.shuffle(sorted(tf.io.gfile.glob("train/*.png")), seed=42)' in fixed
    assert ".shuffle(256, seed=42)" in fixed
    assert _tfd204_lines(fixed) == []


def test_a_list_shuffled_in_place_by_numpy_gets_advice_not_a_half_rewrite():
    plain = 'sorted(tf.io.gfile.glob("train/*.png"))'
    source = _lists(train_list=plain, train_extra="np.random.shuffle(train_paths)")
    result = check_source("train.py", source)
    found = [f for f in result.findings if f.code == "TFD204"]
    assert len(found) == 1
    assert "np.random.seed(42)" in found[0].message
    assert found[0].fix is None


def test_a_seeded_dataset_shuffle_over_an_unseeded_list_shuffle_is_reported_at_the_list():
    source = _lists(train_shuffle=".shuffle(256, seed=7)")
    assert _tfd204_lines(source) == [6]
    fixed = fix_source("train.py", source, unsafe=True).fixed_text or ""
    assert 'glob("train/*.png")), seed=42)' in fixed


def test_an_evaluation_list_shuffled_unseeded_before_evaluate_is_reported():
    source = _lists(train_list='sorted(tf.io.gfile.glob("train/*.png"))', eval_shuffle="np.random.shuffle(eval_paths)")
    assert _tfd204_lines(source) == [9, 10]  # the evaluation list's shuffle, the training dataset's shuffle


def test_control_a_constant_program_seed_makes_every_list_order_alike():
    source = _lists(
        seed="np.random.seed(1); tf.random.set_seed(1)",
        train_shuffle="",
        eval_shuffle="np.random.shuffle(eval_paths)",
    )
    assert _tfd204_lines(source) == []


def test_control_a_seeded_list_shuffle_and_a_seeded_dataset_shuffle_stay_silent():
    seeded = 'tf.random.shuffle(sorted(tf.io.gfile.glob("train/*.png")), seed=5)'
    assert _tfd204_lines(_lists(train_list=seeded, train_shuffle=".shuffle(256, seed=5)")) == []


def test_control_an_unseeded_dataset_shuffle_over_an_unshuffled_list_keeps_its_one_seed_rewrite():
    source = _lists(train_list='sorted(tf.io.gfile.glob("train/*.png"))')
    fixed = fix_source("train.py", source, unsafe=True).fixed_text or ""
    assert ".shuffle(256, seed=42)" in fixed
    assert _tfd204_lines(source) == [10]


_FACTORY = """
    from {keras} import layers, models


    def make_net(classes):
        net = models.Sequential()
        net.add(layers.Dense(32, activation="relu"))
        net.add(layers.Dense(classes, activation="softmax"))
        return net
    """

_TRAINER = """
    import os

    import tensorflow as tf
    from nets import make_net

    print(os.environ["TF_CONFIG"])
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        net = make_net(10)
        net.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    net.fit(tf.zeros((8, 4)), tf.zeros((8,)), epochs=1)
    """


def _tfd504_through_factory(tmp_path: Path, keras: str) -> list[str]:
    (tmp_path / "nets.py").write_text(textwrap.dedent(_FACTORY.format(keras=keras)))
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(_TRAINER))
    return [f.code for f in check_source(str(script), script.read_text()).findings if f.code == "TFD504"]


def test_a_keras_model_from_a_sibling_factory_fitted_under_multi_worker_is_tfd504(tmp_path):
    assert _tfd504_through_factory(tmp_path, "tensorflow.keras") == ["TFD504"]


def test_control_a_sibling_factory_building_with_tf_keras_is_not_tfd504(tmp_path):
    assert _tfd504_through_factory(tmp_path, "tf_keras") == []


def test_a_list_sliced_from_a_shuffled_tensor_is_followed_and_sorting_restores_the_order():
    source = textwrap.dedent(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        everything = tf.random.shuffle(tf.io.gfile.glob("shots/*.png")).numpy()
        first_part = everything[:900]
        ordered = sorted(everything)
        train = tf.data.Dataset.from_tensor_slices(first_part).batch(8)
        held = tf.data.Dataset.from_tensor_slices(ordered).batch(8)
        with strategy.scope():
            net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            net.compile("sgd", "mse")
        net.fit(train, epochs=1)
        net.evaluate(held)
        """
    )
    assert _tfd204_lines(source) == [5]  # once, at the shuffle: the sorted copy is the same everywhere
    fixed = fix_source("train.py", source, unsafe=True).fixed_text or ""
    assert 'tf.random.shuffle(tf.io.gfile.glob("shots/*.png"), seed=42).numpy()' in fixed
