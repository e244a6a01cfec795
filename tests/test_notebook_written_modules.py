"""`%%writefile NAME.py` cells: the module they write is analysed, findings point at the cell."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixer.config import Config
from fixer.notebook import analyse_notebook
from fixer.notebook_cells import code_sources
from fixer.notebook_launches import Launch, launches
from fixer.written_modules import check_written_modules, modules_written_by

MODEL_CELL = [
    "%%writefile main.py\n",
    "import tensorflow as tf\n",
    "\n",
    "strategy = tf.distribute.MirroredStrategy()\n",
    "with strategy.scope():\n",
    "    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n",
    "    opt = tf.keras.optimizers.Adam()\n",
]
LOOP_CELL = [
    "%%writefile -a main.py\n",
    "for x, y in ds:\n",
    "    with tf.GradientTape() as tape:\n",
    "        loss = tf.reduce_mean(tf.square(model(x) - y))\n",
    "    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))\n",
]
TF_CONFIG_CELL = [
    "%%writefile worker.py\n",
    "import json, os\n",
    "os.environ['TF_CONFIG'] = json.dumps({'cluster': {'worker': ['10.0.0.1:2222', '10.0.0.2:2222']},\n",
    "                                      'task': {'type': 'worker', 'index': 0}})\n",
]


def _code(source: list[str]) -> dict:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}


def _notebook(*sources: list[str]) -> dict:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# Multi-worker tutorial\n"]}]
    cells += [_code(s) for s in sources]
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _located(data: dict) -> list[tuple[str, int | None, int]]:
    return sorted((f.code, f.cell, f.start.line) for f in check_written_modules("tutorial.ipynb", data, Config()))


def test_appended_cells_make_one_module():
    data = _notebook(["import os\n"], MODEL_CELL, LOOP_CELL)
    assert modules_written_by(code_sources(data)) == {"main.py": [(3, "".join(MODEL_CELL[1:])), (4, "".join(LOOP_CELL[1:]))]}
    assert ("TFD103", 4, 5) in _located(data)


def test_hard_coded_tf_config_in_a_written_script_is_found():
    assert _located(_notebook(["!pip install tensorflow\n"], TF_CONFIG_CELL)) == [("TFD601", 3, 3)]


def test_findings_come_without_edits():
    findings = check_written_modules("t.ipynb", _notebook(TF_CONFIG_CELL), Config())
    assert findings and all(f.fix is None for f in findings)


def test_a_later_plain_writefile_replaces_the_module():
    fixed = ["%%writefile main.py\n", "import tensorflow as tf\n", "print(tf.__version__)\n"]
    assert _located(_notebook(MODEL_CELL, LOOP_CELL, fixed)) == []


def test_other_files_and_other_cell_magics_are_not_modules():
    notes = ["%%writefile notes.txt\n", "os.environ['TF_CONFIG'] = '{\"cluster\": {\"worker\": [\"a:1\", \"b:1\"]}}'\n"]
    bash = ["%%bash\n", "python main.py &\n"]
    data = _notebook(notes, bash, LOOP_CELL[1:])
    assert modules_written_by(code_sources(data)) == {}
    assert _located(data) == []


def test_check_of_the_notebook_reports_the_written_cell(tmp_path: Path, distfix):
    path = tmp_path / "tutorial.ipynb"
    path.write_text(json.dumps(_notebook(["import os\n"], MODEL_CELL, LOOP_CELL), indent=1) + "\n", encoding="utf-8")
    result = distfix("check", str(path))
    assert f"{path}:cell 4:5:5: TFD103 " in result.stdout, result.stdout + result.stderr


# Launcher cells: a written script started after TF_CONFIG is set is a worker of that cluster --

WORKER_CELL = [
    "%%writefile main.py\n",
    "import tensorflow as tf\n",
    "\n",
    "print(tf.config.list_logical_devices())\n",
    "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n",
]
SET_TF_CONFIG = [
    "import json, os\n",
    "cluster = {'cluster': {'worker': ['localhost:12345', 'localhost:23456']}, 'task': {'type': 'worker', 'index': 0}}\n",
    "os.environ['TF_CONFIG'] = json.dumps(cluster)\n",
]
LAUNCH_LINES = {
    "shell escape in the background": ["!python main.py &> job_0.log &\n"],
    "python3 with options": ["!python3 -u ./main.py --epochs 3\n"],
    "bash cell": ["%%bash --bg\n", "python main.py &> job_0.log\n"],
    "run magic": ["%run main.py\n"],
    "subprocess over two lines": ["import subprocess, sys\n", "worker = subprocess.Popen(\n", "    [sys.executable, 'main.py'])\n"],
}


@pytest.mark.parametrize("launch", LAUNCH_LINES.values(), ids=list(LAUNCH_LINES))
def test_a_written_worker_launched_with_tf_config_is_judged_as_a_worker(launch):
    # MultiWorkerMirroredStrategy after an op fails when TF_CONFIG names a cluster (TFD105);
    # the launcher cell's TF_CONFIG is what the started worker reads.
    assert ("TFD105", 2, 5) in _located(_notebook(WORKER_CELL, SET_TF_CONFIG, launch))


@pytest.mark.parametrize("launch", LAUNCH_LINES.values(), ids=list(LAUNCH_LINES))
def test_a_written_worker_launched_without_tf_config_is_a_single_worker(launch):
    cleared = ["import os\n", "os.environ.pop('TF_CONFIG', None)\n"]
    assert _located(_notebook(WORKER_CELL, launch)) == []
    assert _located(_notebook(WORKER_CELL, SET_TF_CONFIG, cleared, launch)) == []


def test_launches_name_the_script_the_cell_and_whether_tf_config_is_set():
    cells = [
        (1, "%%writefile main.py\nimport os\nos.environ['TF_CONFIG'] = '{}'\n"),  # written, not run
        (2, "!python main.py\n"),
        (3, "import os\n# os.environ.pop('TF_CONFIG')\nos.environ['TF_CONFIG'] = CONFIG\n#!python skipped.py\n"),
        (4, "%%bash\necho start\nnohup python src/train.py > log &\n"),
        (5, "with open('main.py') as f:\n    print(f.read())\n"),  # names the file, starts nothing
        (6, "!TF_CONFIG='{}' python other.py\n"),
    ]
    assert launches(cells) == [
        Launch(2, 1, "main.py", False),
        Launch(4, 3, "src/train.py", True),
        Launch(6, 1, "other.py", True),
    ]


def test_a_tf_config_set_in_a_cell_without_a_script_still_counts_for_a_later_launch():
    """The notebook-wide `.py` test (no script named: no launch) must not drop a cell that only
    sets TF_CONFIG: a later cell's launch runs with it."""
    cells = [(1, "import os\nos.environ['TF_CONFIG'] = CONFIG\n"), (2, "!python worker.py\n")]
    assert launches(cells) == [Launch(2, 1, "worker.py", True)]
    assert launches(cells[:1]) == []
    assert launches([(1, "!python -m trainer.task --epochs 3\n"), (2, "%run setup\n")]) == []


def test_findings_of_a_launched_worker_keep_the_notebook_path():
    data = _notebook(WORKER_CELL, SET_TF_CONFIG, ["!python main.py &\n"])
    assert {f.path for f in check_written_modules("runs/tutorial.ipynb", data, Config())} == {"runs/tutorial.ipynb"}


def test_tf_config_set_before_run_magic_is_the_launchers_not_hard_coded():
    # `%run main.py` reads the kernel's environment: removing the TF_CONFIG the cell sets
    # would take the worker's cluster away, so the cell is a launcher (no TFD601).
    reads = ["%%writefile main.py\n", "import json, os\n", "print(json.loads(os.environ['TF_CONFIG']))\n"]
    text = json.dumps(_notebook(reads, SET_TF_CONFIG, ["%run main.py\n"]))
    assert [f.code for f in analyse_notebook("t.ipynb", text, Config(), fix=False, unsafe=False).findings] == []
    text = json.dumps(_notebook(reads, SET_TF_CONFIG))
    assert [f.code for f in analyse_notebook("t.ipynb", text, Config(), fix=False, unsafe=False).findings] == ["TFD601"]
