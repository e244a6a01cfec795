"""Regression tests for issue 28, blind round ledger18a (task prec19b): TFD105 in a notebook cell
that asks for a kernel restart, and before the same cell's later TF_CONFIG; the saved-run signs a
Colab TPU notebook's output holds (the TPU host's XLA device, TF's warning naming the stable name).

Each test is a minimal notebook in our own words of a shape found in public code, with the
control that keeps the finding where it is right. Premises: benchmarks/probe_ledger18a_premises.py.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from fixer.config import Config
from fixer.engine import check_source
from fixer.notebook import analyse_notebook, cell_errors, combine_cells
from fixer.types import Applicability

if TYPE_CHECKING:
    from pathlib import Path

    from fixer.types import Finding


def _notebook_codes(cells: list[str]) -> list[str]:
    notebook = combine_cells(list(enumerate(cells, start=1)))
    findings = cell_errors(notebook, "n.ipynb") + check_source("n.ipynb", notebook.combined).findings
    return [f.code for f in findings]


_RAN_OPS = "import tensorflow as tf\nsquares = tf.range(4) ** 2\n"
_CLUSTER = (
    "import json, os\n"
    'os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["h1:2222", "h2:2222"]},'
    ' "task": {"type": "worker", "index": 0}})\n'
)
_FRESH = (
    "import tensorflow as tf\n"
    "\n"
    "# Start of the worker's program (restart the kernel before running this cell)\n"
    "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n"
)


def test_a_cell_run_after_a_kernel_restart_starts_a_new_program():
    # Restarted, neither the op nor the TF_CONFIG of the cells above reaches the strategy.
    assert "TFD105" not in _notebook_codes([_RAN_OPS, _CLUSTER, _FRESH])


def test_a_colab_runtime_restart_at_the_top_of_the_cell_counts_too():
    cell = "# After restarting the runtime, run this cell first.\n" + _FRESH.replace("(restart the kernel", "(")
    assert "TFD105" not in _notebook_codes([_RAN_OPS, _CLUSTER, cell])


def test_the_same_cell_without_the_instruction_is_still_tfd105():
    # The control: run straight on, the kernel holds the cluster and has run ops.
    cell = _FRESH.replace(" (restart the kernel before running this cell)", "")
    assert "TFD105" in _notebook_codes([_RAN_OPS, _CLUSTER, cell])


def test_a_restart_instruction_below_code_of_the_cell_is_still_tfd105():
    # The control: the comment stands after an op of the same cell, so it opens no new program.
    cell = _FRESH.replace("\n# Start", "\nfirst = tf.ones([2])\n# Start")
    assert "TFD105" in _notebook_codes([_RAN_OPS, _CLUSTER, cell])


def test_a_negated_restart_is_still_tfd105():
    # The control: "no need to restart the kernel" says the opposite.
    cell = _FRESH.replace("(restart the kernel before running this cell)", "(no need to restart the kernel)")
    assert "TFD105" in _notebook_codes([_RAN_OPS, _CLUSTER, cell])


def test_a_restarted_cell_that_sets_its_own_cluster_then_runs_ops_is_still_tfd105():
    # The control: after the restart the cell itself sets TF_CONFIG and runs an op first.
    cell = _FRESH.replace("strategy =", _CLUSTER + "warm = tf.zeros([1])\nstrategy =")
    assert "TFD105" in _notebook_codes([_RAN_OPS, cell])


# TFD105: TF_CONFIG set later in the strategy's own cell ------------------------------------------

_LATER_IN_CELL = (
    "import json, os\n"
    "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n"
    'os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["h1:1", "h2:1"]},'
    ' "task": {"type": "worker", "index": 1}})\n'
)


def test_a_tf_config_set_below_the_strategy_in_its_cell_is_not_tfd105():
    # At the strategy no TF_CONFIG exists yet: one local worker, built after the op.
    assert "TFD105" not in _notebook_codes([_RAN_OPS, _LATER_IN_CELL])


def test_a_tf_config_set_in_an_earlier_cell_is_still_tfd105():
    # The control: the cluster is set before the strategy's cell runs.
    assert "TFD105" in _notebook_codes([_RAN_OPS, _CLUSTER, _LATER_IN_CELL])


# The saved-run signs of a Colab TPU notebook (fixer/target/saved_runs.py) -------------------------

_TPU_CELL = (
    "import tensorflow as tf\n"
    "resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu='grpc://10.0.0.2:8470')\n"
    "strategy = tf.distribute.experimental.TPUStrategy(resolver)\n"
)
_LISTED = (
    "INFO:tensorflow:*** Available Device:"
    " _DeviceAttributes(/job:{job}/replica:0/task:0/device:XLA_CPU:0, XLA_CPU, 0, 0)\n"
)
_HOST_DEVICE = _LISTED.format(job="worker")
_OWN_DEVICE = _LISTED.format(job="localhost")
_STABLE_NAME_WARNING = (
    "WARNING:absl:`tf.distribute.experimental.TPUStrategy` is deprecated, please use  the non experimental symbol"
    " `tf.distribute.TPUStrategy` instead.\n"
)


def _tpu_rename(tmp_path: Path, shown: str) -> Finding:
    (tmp_path / ".git").mkdir()
    path = tmp_path / "tpu.ipynb"
    outputs = [{"output_type": "stream", "name": "stderr", "text": [shown]}]
    cell = {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": _TPU_CELL, "outputs": outputs}
    text = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    path.write_text(text)
    result = analyse_notebook(str(path), text, Config(), fix=False, unsafe=False)
    (finding,) = [f for f in result.findings if f.code == "TFD401"]
    return finding


def test_the_tpu_hosts_xla_device_is_no_sign_of_the_clients_release(tmp_path: Path) -> None:
    # `/job:worker` is the remote TPU host: the rename is not made unsafe by an old-TF reason.
    finding = _tpu_rename(tmp_path, _HOST_DEVICE)
    assert finding.fix is not None and finding.fix.applicability is Applicability.SAFE
    assert "saved output" not in finding.message


def test_the_stable_name_warning_outranks_an_own_xla_device(tmp_path: Path) -> None:
    # TF's warning naming `tf.distribute.TPUStrategy` was printed by a release that has it.
    finding = _tpu_rename(tmp_path, _STABLE_NAME_WARNING + _OWN_DEVICE + _HOST_DEVICE)
    assert finding.fix is not None and finding.fix.applicability is Applicability.SAFE
    assert "saved output" not in finding.message


def test_a_local_xla_device_still_means_tf_2_3_or_older(tmp_path: Path) -> None:
    # The control: the notebook's own process listed an XLA device, so it ran on TF 2.3 or older.
    finding = _tpu_rename(tmp_path, _OWN_DEVICE + _HOST_DEVICE)
    assert finding.fix is not None and finding.fix.applicability is Applicability.UNSAFE
    assert "saved output shows TF 2.3 or older (`device:XLA_CPU:0`)" in finding.message
