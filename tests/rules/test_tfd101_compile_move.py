"""TFD101's "move `compile` into the scope" rewrite: into the block that built the compiled model,
never past a use of that model, never out of the finding's notebook cell.

The shape it got wrong (ledger7a, ledger7b): a cell builds `m1` in `with strategy.scope():` and
compiles it after the block; a later cell fits `m1`; a cell after that builds another model in its
own scope block. The rewrite moved `m1.compile(...)` into that last block, past `m1.fit`, which then
ran on an uncompiled model.
"""

from __future__ import annotations

import json
import textwrap

from fixer.config import Config
from fixer.engine import fix_source
from fixer.notebook import analyse_notebook

ONLY = Config(select=("TFD101",))

BUILD_THEN_COMPILE = (
    "with strategy.scope():\n"
    "    m1 = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
    'm1.compile(optimizer="adam", loss="mse", metrics=["mae"])\n'
)
OTHER_MODEL = (
    "with strategy.scope():\n"
    "    m2 = tf.keras.Sequential([tf.keras.layers.Dense(2)])\n"
    '    m2.compile(optimizer="adam", loss="mse")\n'
    "m2.fit(x, y)\n"
)


def _notebook(cells: list[str]) -> str:
    return json.dumps(
        {
            "cells": [
                {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": c}
                for c in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


def _fixed_cells(cells: list[str]) -> list[str]:
    result = analyse_notebook("nb.ipynb", _notebook(cells), ONLY, fix=True, unsafe=True)
    assert result.fixed_text is not None
    return [cell["source"] for cell in json.loads(result.fixed_text)["cells"]]


def test_a_notebook_compile_moves_into_its_own_cells_block_not_a_later_models():
    cells = [
        "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\n",
        BUILD_THEN_COMPILE,
        "m1.fit(x, y, epochs=1)\n",
        OTHER_MODEL,
    ]
    fixed = _fixed_cells(cells)
    assert fixed[1] == (
        "with strategy.scope():\n"
        "    m1 = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
        '    m1.compile(optimizer="adam", loss="mse", metrics=["mae"])\n'
    )
    assert fixed[2:] == cells[2:]  # the fit and the other model's cell are untouched


def test_a_compile_does_not_move_into_the_block_of_another_model():
    """The nearest scope block above built `m2`, not the compiled `m1`: the compile is wrapped
    where it is, in the program's strategy, rather than moved into `m2`'s block."""
    source = textwrap.dedent(
        """\
        import tensorflow as tf
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            m1 = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        with strategy.scope():
            m2 = tf.keras.Sequential([tf.keras.layers.Dense(2)])
        m1.compile(optimizer="adam", loss="mse", metrics=["mae"])
        m1.fit(x, y)
        """
    )
    fixed = fix_source("train.py", source, ONLY, unsafe=True).fixed_text
    assert fixed is not None
    assert (
        "    m2 = tf.keras.Sequential([tf.keras.layers.Dense(2)])\n"
        "with strategy.scope():\n"
        '    m1.compile(optimizer="adam", loss="mse", metrics=["mae"])\n'
        "m1.fit(x, y)\n"
    ) in fixed


def test_a_compile_never_moves_past_a_use_of_its_model():
    """Control in a script: the block that built `m1` is above, with a use of `m1` in between."""
    source = textwrap.dedent(
        """\
        import tensorflow as tf
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            m1 = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        m1.summary()
        m1.compile(optimizer="adam", loss="mse", metrics=["mae"])
        m1.fit(x, y)
        """
    )
    fixed = fix_source("train.py", source, ONLY, unsafe=True).fixed_text
    assert fixed is not None
    assert "m1.summary()\nwith strategy.scope():\n    m1.compile(" in fixed


def test_a_compile_right_after_its_block_still_moves_in():
    """Control: the rewrite that is right stays offered."""
    source = "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\n" + BUILD_THEN_COMPILE
    fixed = fix_source("train.py", source, ONLY, unsafe=True).fixed_text
    assert fixed is not None
    assert fixed.endswith('    m1.compile(optimizer="adam", loss="mse", metrics=["mae"])\n')
