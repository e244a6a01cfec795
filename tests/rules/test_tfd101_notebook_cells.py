"""TFD101 in a notebook whose model and Adam are made in separate cells outside the scope, and
trained under the strategy in a later cell (reported before this test was written: kept as a
regression test for issue 30 item 10)."""

from __future__ import annotations

import json

from fixer.config import Config
from fixer.notebook import analyse_notebook


def _notebook(*cells: str) -> str:
    return json.dumps(
        {
            "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c} for c in cells],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


def _findings(*cells: str) -> list[str]:
    result = analyse_notebook("train.ipynb", _notebook(*cells), Config(select=("TFD101",)), fix=False, unsafe=False)
    return sorted(f"{f.message.split()[0]} {f.message.split(' created')[0].split()[-1]}" for f in result.findings if f.code == "TFD101")


_CELLS = (
    "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\n",
    "model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n",
    "x = tf.zeros((8, 4))\ny = tf.zeros((8, 1))\n",
    "model.summary()\n",
    "optimizer = tf.keras.optimizers.Adam(1e-3)\n",
)


def test_a_model_and_an_adam_made_cells_apart_outside_the_scope_are_both_reported():
    train = "with strategy.scope():\n    model.compile(optimizer=optimizer, loss='mse')\n    model.fit(x, y, epochs=1)\n"
    assert _findings(*_CELLS, train) == ["model model", "optimizer optimizer"]


def test_the_same_cells_built_inside_the_scope_are_not_reported():
    cells = list(_CELLS)
    cells[1] = "with strategy.scope():\n    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
    cells[4] = "with strategy.scope():\n    optimizer = tf.keras.optimizers.Adam(1e-3)\n"
    train = "with strategy.scope():\n    model.compile(optimizer=optimizer, loss='mse')\n    model.fit(x, y, epochs=1)\n"
    assert _findings(*cells, train) == []
