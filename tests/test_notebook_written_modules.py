"""`%%writefile NAME.py` cells: the module they write is analysed, findings point at the cell."""

from __future__ import annotations

import json
from pathlib import Path

from fixer.config import Config
from fixer.written_modules import check_written_modules, written_modules

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
    assert written_modules(data) == {"main.py": [(3, "".join(MODEL_CELL[1:])), (4, "".join(LOOP_CELL[1:]))]}
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
    assert written_modules(data) == {}
    assert _located(data) == []


def test_check_of_the_notebook_reports_the_written_cell(tmp_path: Path, distfix):
    path = tmp_path / "tutorial.ipynb"
    path.write_text(json.dumps(_notebook(["import os\n"], MODEL_CELL, LOOP_CELL), indent=1) + "\n", encoding="utf-8")
    result = distfix("check", str(path))
    assert f"{path}:cell 4:5:5: TFD103 " in result.stdout, result.stdout + result.stderr
