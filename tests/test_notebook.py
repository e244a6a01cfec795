"""Notebooks: magics masked, findings per cell, only fixed cells rewritten, layout kept."""

from __future__ import annotations

import json
from pathlib import Path

from fixer.notebook import load_notebook, mask_cell


def _notebook(cells: list[dict]) -> dict:
    return {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _code(cell_id: str, source: list[str], outputs: list | None = None) -> dict:
    return {
        "cell_type": "code",
        "execution_count": 3,
        "id": cell_id,
        "metadata": {"tags": ["keep"]},
        "outputs": outputs or [],
        "source": source,
    }


CELLS = [
    {"cell_type": "markdown", "id": "md1", "metadata": {}, "source": ["# Training\n"]},
    _code("c1", ["%pip install tensorflow\n", "!nvidia-smi\n", "import tensorflow as tf\n", "strategy = tf.distribute.MirroredStrategy()"]),
    _code(
        "c2",
        ["%%time\n", "@tf.function\n", "def step(x):\n", "    return strategy.experimental_run_v2(fn, args=(x,))"],
        outputs=[{"name": "stdout", "output_type": "stream", "text": ["CPU times: 1 s\n"]}],
    ),
    _code("c3", ["%%bash\n", "echo experimental_run_v2 is not python here\n"]),
]


def _write(tmp_path: Path, data: dict, indent: int = 1) -> Path:
    path = tmp_path / "train.ipynb"
    path.write_text(json.dumps(data, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def test_masking_keeps_line_lengths():
    masked, restored = mask_cell("%matplotlib inline\nx = 1\nfiles = !ls\n")
    assert masked == "#matplotlib inline\nx = 1\nfiles = !ls\n".replace("files = !ls", "#iles = !ls")
    assert [len(line) for line in masked.split("\n")] == [18, 5, 11, 0]
    assert restored["#matplotlib inline"] == "%matplotlib inline"


def test_cells_are_analysed_together():
    notebook = load_notebook(json.dumps(_notebook(CELLS)))
    assert [cell.number for cell in notebook.cells] == [2, 3, 4]
    assert "strategy = tf.distribute.MirroredStrategy()" in notebook.combined


def test_check_reports_cell_line_and_column(tmp_path, distfix):
    path = _write(tmp_path, _notebook(CELLS))
    result = distfix("check", str(path))
    assert result.returncode == 1, result.stderr
    assert f"{path}:cell 3:4:21: TFD401 [*] `experimental_run_v2` is deprecated; use `run`" in result.stdout
    assert "cell 4" not in result.stdout, "a %%bash cell is not Python"


def test_fix_write_changes_only_the_fixed_cell_and_keeps_layout(tmp_path, distfix):
    data = _notebook(CELLS)
    path = _write(tmp_path, data)
    result = distfix("fix", "--write", str(path))
    assert result.returncode == 0, result.stderr
    written = path.read_text(encoding="utf-8")
    expected = json.loads(json.dumps(data))
    expected["cells"][2]["source"] = [
        "%%time\n", "@tf.function\n", "def step(x):\n", "    return strategy.run(fn, args=(x,))"
    ]
    assert written == json.dumps(expected, indent=1, ensure_ascii=False) + "\n"
    again = distfix("fix", "--write", str(path))
    assert again.returncode == 0 and path.read_text(encoding="utf-8") == written


def test_two_space_layout_is_kept(tmp_path, distfix):
    path = _write(tmp_path, _notebook(CELLS), indent=2)
    distfix("fix", "--write", str(path))
    assert path.read_text(encoding="utf-8").startswith('{\n  "cells": [')


def test_malformed_notebook_gets_one_line_and_others_go_on(tmp_path, distfix):
    broken = tmp_path / "broken.ipynb"
    broken.write_text('{"cells": [', encoding="utf-8")
    _write(tmp_path, _notebook(CELLS))
    result = distfix("check", str(tmp_path))
    assert result.returncode == 2
    assert "broken.ipynb:1:1: TFD000 malformed notebook: invalid JSON at line 1 column 12" in result.stdout
    assert "train.ipynb:cell 3:4:21: TFD401" in result.stdout
    assert "Traceback" not in result.stderr
