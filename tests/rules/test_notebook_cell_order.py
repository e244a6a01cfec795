"""Notebook cells run in order: a binding a later cell replaces before anything reads it is dead,
even for code in functions defined further down (TFD112), and a model built before the strategy's
cell, then rebuilt in its scope, is the rebuilt one (TFD101/TFD104, issue 28 class 1)."""

from __future__ import annotations

import json

from fixer.config import Config
from fixer.notebook import analyse_notebook


def _cell(source: str) -> dict[str, object]:
    return {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}


def _notebook(*cells: str) -> str:
    return json.dumps(
        {
            "cells": [_cell(source) for source in cells],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


def _findings(*cells: str, select: tuple[str, ...]) -> list[tuple[str, int | None]]:
    result = analyse_notebook("tour.ipynb", _notebook(*cells), Config(select=select), fix=False, unsafe=False)
    return sorted((f.code, f.cell) for f in result.findings)


_STEP = (
    "@tf.function\n"
    "def distributed_step(batch):\n"
    "    def replica_step(batch):\n"
    "        return tf.reduce_sum(model(batch))\n"
    "    return strategy.run(replica_step, args=(batch,))\n"
)


# A CPU beside a GPU: TFD112 reports it in a notebook too (a notebook's list of distinct GPUs is
# the kernel machine's choice, not reported since prec31), so the cell order decides alone.
_MIXED = '["/cpu:0", "/gpu:0"]'


def _tour(picked_devices: str) -> list[str]:
    """An API tour: one cell shows a strategy on chosen devices, the next builds the one used."""
    return [
        "import tensorflow as tf\n",
        f"strategy = tf.distribute.MirroredStrategy(devices={picked_devices})\n",
        "strategy = tf.distribute.MirroredStrategy()\n",
        "with strategy.scope():\n    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])\n",
        _STEP,
        "distributed_step(tf.ones((4, 3)))\n",
    ]


def test_tfd112_a_device_list_shown_in_one_cell_and_replaced_in_the_next_is_not_reported():
    assert _findings(*_tour(_MIXED), select=("TFD112",)) == []


def test_tfd112_a_device_list_the_step_function_can_still_see_is_reported():
    cells = _tour(_MIXED)
    cells[2] = "print(strategy.num_replicas_in_sync)\n"  # nothing replaces the listed strategy
    assert _findings(*cells, select=("TFD112",)) == [("TFD112", 2)]


def test_tfd112_a_step_defined_before_the_replacement_keeps_the_finding():
    cells = _tour(_MIXED)
    # The step is defined (and may run) while the listed strategy is still the one bound.
    cells = [cells[0], cells[1], cells[3], _STEP, "distributed_step(tf.ones((4, 3)))\n", cells[2]]
    assert _findings(*cells, select=("TFD112",)) == [("TFD112", 2)]


def test_tfd101_tfd104_a_baseline_model_before_the_strategy_cell_rebuilt_in_its_scope():
    cells = [
        "import tensorflow as tf\n",
        "model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])\n"
        "model(tf.ones((4, 3)))  # a single-device baseline\n",
        "strategy = tf.distribute.MirroredStrategy()\n",
        "with strategy.scope():\n    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])\n",
        _STEP,
        "distributed_step(tf.ones((4, 3)))\n",
    ]
    assert _findings(*cells, select=("TFD101", "TFD104")) == []


def test_tfd104_a_first_strategy_replaced_with_its_model_in_a_later_cell():
    cells = [
        "import tensorflow as tf\n",
        "strategy = tf.distribute.OneDeviceStrategy('/cpu:0')\n"
        "with strategy.scope():\n    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])\n",
        "strategy = tf.distribute.MirroredStrategy()\n",
        "with strategy.scope():\n    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])\n",
        _STEP,
        "distributed_step(tf.ones((4, 3)))\n",
    ]
    assert _findings(*cells, select=("TFD101", "TFD104")) == []
