"""Regression tests for issue 28 classes 1, 2, 3 and 8: order, rebinding, branches, runtime
wrapping and fixes, answered on the flow-aware binding model (``ctx.tf.semantic``).

Each test is a minimal program of the kind public code has, in our own words, and says why the
finding (or the fix) was wrong there.
"""

from __future__ import annotations

import textwrap

from fixer.engine import check_source, fix_source
from fixer.notebook import combine_cells


def _codes(source: str, path: str = "train.py") -> list[str]:
    codes = [f.code for f in check_source(path, textwrap.dedent(source)).findings]
    assert "TFD000" not in codes  # a test program that does not parse proves nothing
    return codes


def _fixed(source: str, path: str = "train.py") -> str:
    result = fix_source(path, textwrap.dedent(source), unsafe=True)
    return result.fixed_text or textwrap.dedent(source)


def _notebook_codes(cells: list[str]) -> list[str]:
    notebook = combine_cells(list(enumerate((textwrap.dedent(c) for c in cells), start=1)))
    return [f.code for f in check_source("n.ipynb", notebook.combined).findings]


# Class 1: order and rebinding ------------------------------------------------------------------

_DENSE = "tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])"


def test_a_single_device_baseline_rebuilt_in_the_scope_under_the_same_name_is_not_tfd101():
    # The first `model` trains on one device on purpose; the name is rebuilt in the scope
    # before the distributed `fit`, so no use of the first object is distributed.
    source = f"""
        import tensorflow as tf

        model = {_DENSE}
        model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        model.fit(x, y, epochs=1)

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = {_DENSE}
            model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        model.fit(x, y, epochs=1)
        """
    assert "TFD101" not in _codes(source)


def test_the_baseline_model_itself_compiled_in_the_scope_is_still_tfd101():
    # The control: without the rebuild the scope's `compile` reads the baseline's object.
    source = f"""
        import tensorflow as tf

        model = {_DENSE}
        model.fit(x, y, epochs=1)

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        model.fit(x, y, epochs=1)
        """
    assert "TFD101" in _codes(source)


def test_a_model_rebuilt_in_a_second_strategys_scope_is_not_mixing_strategies():
    # Each strategy builds and trains its own `model`: measured to work (TFD104's docs).
    source = f"""
        import tensorflow as tf

        strategy = tf.distribute.OneDeviceStrategy("/gpu:0")
        with strategy.scope():
            model = {_DENSE}
            model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        model.fit(x, y, epochs=1)

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = {_DENSE}
            model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        model.fit(x, y, epochs=1)
        """
    assert not {"TFD101", "TFD104"} & set(_codes(source))


def test_the_first_strategys_model_compiled_in_the_second_scope_is_still_tfd104():
    source = f"""
        import tensorflow as tf

        strategy = tf.distribute.OneDeviceStrategy("/gpu:0")
        with strategy.scope():
            model = {_DENSE}
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        model.fit(x, y, epochs=1)
        """
    assert "TFD104" in _codes(source)


def test_a_notebook_that_creates_its_strategy_in_a_later_cell_and_rebuilds_the_model():
    cells = [
        f"""
        import tensorflow as tf
        model = {_DENSE}
        model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        model.fit(x, y)
        """,
        """
        strategy = tf.distribute.MirroredStrategy()
        print(strategy.num_replicas_in_sync)
        """,
        f"""
        with strategy.scope():
            model = {_DENSE}
            model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        """,
        "model.fit(x, y)\n",
    ]
    assert "TFD101" not in _notebook_codes(cells)
