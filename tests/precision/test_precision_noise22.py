"""Regression tests for issue 28 (noise22): TFD601 on a notebook that sets TF_CONFIG after the
strategy of its kernel and then asks for a kernel restart, in our own words.

A strategy reads TF_CONFIG once, when it is made, and a restarted kernel is a new process without
the old kernel's `os.environ` (benchmarks/probe_noise22_premises.py): such a setting is left to
nothing and is not reported. Controls: no restart below it, a strategy or an unknown library call
between it and the restart, a function of an earlier cell called there, and a setting with no
strategy above it in its kernel keep the finding.
"""

from __future__ import annotations

import json
import textwrap
from typing import TYPE_CHECKING

from fixer.clusterspec import is_placeholder
from fixer.runner import Job, run

if TYPE_CHECKING:
    from pathlib import Path

    from fixer.types import Finding

_SETUP = """
import json
import os
import tensorflow as tf

def make_model():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(loss="mse")
    return model
"""

_LATE = """
strategy = tf.distribute.MultiWorkerMirroredStrategy()
os.environ["TF_CONFIG"] = json.dumps({
    "cluster": {"worker": ["localhost:20001", "localhost:20002"]},
    "task": {"type": "worker", "index": 1},
})
with strategy.scope():
    model = make_model()
"""

_RESTARTED = """
import tensorflow as tf

# Start here in a fresh process (restart the kernel before running this cell)
strategy = tf.distribute.MultiWorkerMirroredStrategy()
resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
"""


def _notebook_findings(root: Path, *cells: str) -> list[Finding]:
    """TFD601's findings on a notebook of these code cells, its folder checked as the project."""
    notebook = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": textwrap.dedent(c)}
            for c in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = root / "cluster_notes.ipynb"
    path.write_text(json.dumps(notebook, indent=1) + "\n")
    job = Job(use_cache=False, project_roots=(str(root),))
    (result,) = list(run([path], job, jobs=1))
    return [f for f in result.findings if f.code == "TFD601"]


def test_a_setting_after_the_strategy_then_a_restart_is_not_reported(tmp_path: Path) -> None:
    assert _notebook_findings(tmp_path, _SETUP, _LATE, _RESTARTED) == []


def test_a_function_of_an_earlier_cell_that_nothing_calls_there_does_not_count(tmp_path: Path) -> None:
    earlier = _SETUP + "\nimport horovod.tensorflow as hvd\n\ndef start_horovod():\n    hvd.init()\n"
    assert _notebook_findings(tmp_path, earlier, _LATE, _RESTARTED) == []


def test_control_no_restart_below_keeps_the_finding(tmp_path: Path) -> None:
    assert len(_notebook_findings(tmp_path, _SETUP, _LATE, "model.summary()\n")) == 1


def test_control_a_strategy_before_the_restart_keeps_the_finding(tmp_path: Path) -> None:
    again = "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n"
    assert len(_notebook_findings(tmp_path, _SETUP, _LATE, again, _RESTARTED)) == 1


def test_control_an_unknown_library_call_before_the_restart_keeps_the_finding(tmp_path: Path) -> None:
    unknown = "import horovod.tensorflow as hvd\nhvd.init()\n"
    assert len(_notebook_findings(tmp_path, _SETUP, _LATE, unknown, _RESTARTED)) == 1


def test_control_a_function_of_an_earlier_cell_called_before_the_restart_keeps_the_finding(tmp_path: Path) -> None:
    earlier = _SETUP + "\nimport horovod.tensorflow as hvd\n\ndef start_horovod():\n    hvd.init()\n"
    assert len(_notebook_findings(tmp_path, earlier, _LATE, "start_horovod()\n", _RESTARTED)) == 1


def test_control_a_strategy_only_in_an_earlier_kernel_keeps_the_finding(tmp_path: Path) -> None:
    first_kernel = _SETUP + "\nfirst_strategy = tf.distribute.MultiWorkerMirroredStrategy()\n"
    # The setting opens a restarted kernel's program: no strategy of that kernel stands above it.
    second_kernel = """
    import json
    import os

    # Restart the kernel first, then set the cluster for the next program
    cluster = {"worker": ["h:1", "h:2"]}
    os.environ["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": 0}})
    """
    assert len(_notebook_findings(tmp_path, first_kernel, second_kernel, _RESTARTED)) == 1


# -- TFD601/TFD603: hosts of a documentation domain are placeholders ---------------------------------

_FORMAT_DEMO = """
import json
import os

os.environ["TF_CONFIG"] = json.dumps({{
    "cluster": {{"worker": ["w0.{domain}:4000", "w1.{domain}:4000"], "ps": ["ps0.{domain}:4000"]}},
    "task": {{"type": "worker", "index": 0}},
}})
print(os.environ["TF_CONFIG"])
"""


def test_a_cluster_on_a_documentation_domain_is_not_reported(tmp_path: Path) -> None:
    assert _notebook_findings(tmp_path, _FORMAT_DEMO.format(domain="example.com")) == []
    assert _notebook_findings(tmp_path, _FORMAT_DEMO.format(domain="lab.EXAMPLE.org.")) == []


def test_control_a_cluster_on_real_hosts_keeps_the_finding(tmp_path: Path) -> None:
    assert len(_notebook_findings(tmp_path, _FORMAT_DEMO.format(domain="example.company.com"))) == 1


def test_documentation_hosts_are_placeholders_and_look_alikes_are_not() -> None:
    assert is_placeholder("gpu-box.example.net:2222")
    assert is_placeholder("example.org:2222")
    assert not is_placeholder("myexample.com:2222")
    assert not is_placeholder("example.com.cn:2222")
    assert not is_placeholder("worker-0.test:2222")  # a Kubernetes service.namespace name can be real
