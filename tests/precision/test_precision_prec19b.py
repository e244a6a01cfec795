"""Regression tests for issue 28, blind round ledger18a (task prec19b): TFD105 in a notebook cell
that asks for a kernel restart, and before the same cell's later TF_CONFIG.

Each test is a minimal notebook in our own words of a shape found in public code, with the
control that keeps the finding where it is right. Premises: benchmarks/probe_ledger18a_premises.py.
"""

from __future__ import annotations

from fixer.engine import check_source
from fixer.notebook import cell_errors, combine_cells


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
    'os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["h1:1", "h2:1"]}, "task": {"type": "worker", "index": 1}})\n'
)


def test_a_tf_config_set_below_the_strategy_in_its_cell_is_not_tfd105():
    # At the strategy no TF_CONFIG exists yet: one local worker, built after the op.
    assert "TFD105" not in _notebook_codes([_RAN_OPS, _LATER_IN_CELL])


def test_a_tf_config_set_in_an_earlier_cell_is_still_tfd105():
    # The control: the cluster is set before the strategy's cell runs.
    assert "TFD105" in _notebook_codes([_RAN_OPS, _CLUSTER, _LATER_IN_CELL])
