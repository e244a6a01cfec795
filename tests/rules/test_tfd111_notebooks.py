"""TFD111 in notebooks: cells meant to be run on their own (the GPU guide's snippets) are not
reported; a configuration cell below the strategy's cell is, without a line number of the joined cells."""

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


_GROWTH = (
    'gpus = tf.config.list_physical_devices("GPU")\n'
    "try:\n"
    "    for gpu in gpus:\n"
    "        tf.config.experimental.set_memory_growth(gpu, True)\n"
    "except RuntimeError as e:\n"
    "    print(e)\n"
)


def _findings(text: str) -> list:
    result = analyse_notebook("guide.ipynb", text, Config(select=("TFD111",)), fix=False, unsafe=False)
    return [f for f in result.findings if f.code == "TFD111"]


def test_guide_snippets_after_ops_but_before_the_strategy_are_not_reported():
    text = _notebook(
        "import tensorflow as tf\n",
        "a = tf.constant([[1.0, 2.0]])\nprint(tf.matmul(a, a, transpose_b=True))\n",
        _GROWTH,
        "strategy = tf.distribute.MirroredStrategy()\n",
    )
    assert _findings(text) == []


def test_configuration_cell_below_the_strategy_is_reported_without_a_joined_line_number():
    text = _notebook("import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\n", _GROWTH)
    (finding,) = _findings(text)
    assert "after earlier code started TensorFlow" in finding.message
    assert "ignored behind the `except`" in finding.message
