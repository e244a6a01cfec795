"""TFD112's policy (issue 28, prec31, then noise36): what a hard-coded device list does depends on
the machine (benchmarks/probe_device_list_other_machines.py: the listed replica count everywhere,
the same trained weight on the machine the list names, a hang at the first all-reduce on a smaller
one). A list of distinct GPUs is right on its author's machine: not reported, in a notebook or a
script alike (independent judges called the scripts' lists noise: a timing run, a GPU-scaling
benchmark). A list wrong on every machine stays: CPUs (one CPU device per process unless it makes
logical ones: measured, two replicas on `CPU:0` hang), a CPU beside a GPU, a device named twice
(measured: `AssertionError` when the strategy is built).
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


def test_a_plain_scripts_distinct_gpu_list_is_not_tfd112():
    # noise36: an author's own GPUs in a timing run or a scaling benchmark, right on that machine.
    assert _script(_GPUS) == []
    assert _script('["GPU:0", "GPU:1"]') == []


def test_control_a_plain_scripts_cpu_list_stays_tfd112():
    assert _script('["/cpu:0", "/cpu:1"]') == ["TFD112"]


def test_control_a_cpu_beside_a_gpu_stays_tfd112_whatever_the_script_reads():
    assert _script(_MIXED, 'print(tf.config.list_physical_devices("GPU"))') == ["TFD112"]


def test_control_a_gpu_named_twice_stays_tfd112():
    assert _script('["/gpu:0", "/gpu:0"]', 'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "0"') == ["TFD112"]


def _messages(devices: str) -> list[str]:
    source = _SCRIPT.format(devices=devices, before="")
    return [f.message for f in check_source("train.py", source, Config(select=("TFD112",))).findings]


def test_the_messages_say_what_the_probe_measured_for_each_kind_of_list():
    (cpus,) = _messages('["/cpu:0", "/cpu:1"]')
    assert "share `CPU:0` and hang at the first all-reduce" in cpus
    (twice,) = _messages('["/gpu:0", "/gpu:0"]')
    assert "`AssertionError: No duplicates allowed`" in twice
    (mixed,) = _messages(_MIXED)
    assert "waits for the CPU replica" in mixed and "hangs" not in mixed
