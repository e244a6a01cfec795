"""TFD112's policy (issue 28, prec31): what a hard-coded device list does depends on the machine
(benchmarks/probe_device_list_other_machines.py: the listed replica count everywhere, the same
trained weight, the missing replicas on one device on a smaller machine). A list of distinct GPUs
is right on the machine it names; it is reported in a script, and not where the program says the
list is a choice for its machine: a notebook (ledger10b's two personal notebooks, judged noise),
a module that reads the machine's devices, names `CUDA_VISIBLE_DEVICES` or builds the strategy
under a command-line flag. A list wrong on every machine (CPUs, a CPU beside a GPU) stays.
"""

from __future__ import annotations

import json

from checked_codes import codes_of

from fixer.config import Config
from fixer.engine import check_source
from fixer.notebook import analyse_notebook

_SCRIPT = """
import tensorflow as tf
{before}
strategy = tf.distribute.MirroredStrategy({devices})
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
"""

_GPUS = '["/gpu:0", "/gpu:1", "/gpu:2"]'
_MIXED = '["/gpu:0", "/cpu:0"]'


def _script(devices: str, before: str = "") -> list[str]:
    return [c for c in codes_of(_SCRIPT.format(devices=devices, before=before)) if c == "TFD112"]


def _notebook(devices: str) -> list[str]:
    cells = ["import tensorflow as tf\n", _SCRIPT.format(devices=devices, before="")]
    text = json.dumps(
        {
            "cells": [
                {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c}
                for c in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )
    result = analyse_notebook("train.ipynb", text, Config(select=("TFD112",)), fix=False, unsafe=False)
    return [f.code for f in result.findings]


def test_a_notebooks_gpu_list_is_not_tfd112():
    assert _notebook(_GPUS) == []


def test_control_a_notebooks_cpu_beside_a_gpu_stays_tfd112():
    assert _notebook(_MIXED) == ["TFD112"]


def test_a_script_that_names_cuda_visible_devices_is_not_tfd112():
    assert _script(_GPUS, 'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "0,1,2"') == []


def test_a_script_that_reads_the_machines_gpus_is_not_tfd112():
    assert _script(_GPUS, 'print(len(tf.config.list_physical_devices("GPU")), "GPUs")') == []


def test_a_gpu_list_under_a_command_line_flag_is_not_tfd112():
    flag = (
        "import argparse\nparser = argparse.ArgumentParser()\n"
        'parser.add_argument("--multi_gpu", action="store_true")\nargs = parser.parse_args()\n'
    )
    source = _SCRIPT.format(devices=_GPUS, before=flag).replace(
        "strategy = tf.distribute.MirroredStrategy(",
        "strategy = tf.distribute.get_strategy()\nif args.multi_gpu:\n    strategy = tf.distribute.MirroredStrategy(",
    )
    assert [c for c in codes_of(source) if c == "TFD112"] == []


def test_control_a_plain_scripts_gpu_list_stays_tfd112():
    assert _script(_GPUS) == ["TFD112"]


def test_control_a_cpu_beside_a_gpu_stays_tfd112_whatever_the_script_reads():
    assert _script(_MIXED, 'print(tf.config.list_physical_devices("GPU"))') == ["TFD112"]


def test_control_a_gpu_named_twice_stays_tfd112():
    assert _script('["/gpu:0", "/gpu:0"]', 'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "0"') == ["TFD112"]


def _messages(devices: str) -> list[str]:
    source = _SCRIPT.format(devices=devices, before="")
    return [f.message for f in check_source("train.py", source, Config(select=("TFD112",))).findings]


def test_the_messages_say_what_the_probe_measured_for_each_kind_of_list():
    (gpus,) = _messages(_GPUS)
    assert "a CPU host hangs at the first all-reduce" in gpus
    (mixed,) = _messages(_MIXED)
    assert "waits for the CPU replica" in mixed and "hangs" not in mixed
