"""TFD111 in a notebook with a cell that restarts the kernel (issue 28, prec30): the cells below it
run in a new process, so what earlier cells started no longer counts; the order check starts over
there. A configuration below the strategy after the restart, or with no restart, stays reported."""

from __future__ import annotations

import json

import pytest

from fixer.config import Config
from fixer.notebook import analyse_notebook

_GROWTH = (
    'gpus = tf.config.list_physical_devices("GPU")\n'
    "for gpu in gpus:\n"
    "    tf.config.experimental.set_memory_growth(gpu, True)\n"
)
_STRATEGY = "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\n"
RESTARTS = [
    "get_ipython().kernel.do_shutdown(True)\n",
    "import os\nos._exit(0)\n",
    "import IPython\nIPython.Application.instance().kernel.do_shutdown(True)\n",
    "exit()\n",
]


def _notebook(*cells: str) -> str:
    code = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c} for c in cells]
    return json.dumps({"cells": code, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _codes(*cells: str) -> list[str]:
    result = analyse_notebook("restart.ipynb", _notebook(*cells), Config(select=("TFD111",)), fix=False, unsafe=False)
    return [f.code for f in result.findings]


@pytest.mark.parametrize("restart", RESTARTS)
def test_a_restart_between_the_strategy_and_the_configuration_starts_over(restart: str):
    assert _codes(_STRATEGY, restart, "import tensorflow as tf\n" + _GROWTH, _STRATEGY) == []


def test_control_an_exit_in_a_branch_may_not_run():
    assert _codes(_STRATEGY, "if FAST:\n    exit()\n", "import tensorflow as tf\n" + _GROWTH, _STRATEGY) == ["TFD111"]


def test_control_without_the_restart_it_is_reported():
    assert _codes(_STRATEGY, "print('ready')\n", "import tensorflow as tf\n" + _GROWTH, _STRATEGY) == ["TFD111"]


@pytest.mark.parametrize("restart", RESTARTS)
def test_control_a_strategy_after_the_restart_still_counts(restart: str):
    assert _codes("x = 1\n", restart, _STRATEGY, _GROWTH) == ["TFD111"]
