"""A cell pasted from inside a function starts indented: IPython removes the first line's indentation
from every line before it compiles the cell. Every fix written into such a cell keeps that
indentation, and a cell that would not compile the way it is read is never written."""

from __future__ import annotations

import json
import textwrap
from typing import TYPE_CHECKING

import pytest
from IPython.core.inputtransformer2 import TransformerManager

from fixer.config import Config
from fixer.notebook import NotebookError, analyse_notebook, combine_cells, split_cells
from fixer.registry import default_registry
from fixer.rule import Invalid, dedent_example

if TYPE_CHECKING:
    from pathlib import Path

INDENT = "    "


def _notebook(*sources: str) -> str:
    cells = [
        {
            "cell_type": "code",
            "execution_count": None,
            "id": f"c{n}",
            "metadata": {},
            "outputs": [],
            "source": s.splitlines(keepends=True),
        }
        for n, s in enumerate(sources, start=1)
    ]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def _sources(text: str) -> list[str]:
    return ["".join(cell["source"]) for cell in json.loads(text)["cells"]]


def _compiles_in_ipython(source: str) -> bool:
    """What Jupyter does with the cell: IPython's cell transform (dedent, magics), then compile."""
    try:
        compile(TransformerManager().transform_cell(source), "<cell>", "exec")
    except SyntaxError:
        return False
    return True


def test_an_unsafe_tfd403_rewrite_keeps_an_indented_cell_compiling(tmp_path: Path, distfix) -> None:
    path = tmp_path / "train.ipynb"
    cell = textwrap.indent(
        "import tensorflow as tf\nnorm = tf.keras.layers.experimental.SyncBatchNormalization()\nx = 1\n", INDENT
    )
    path.write_text(_notebook(cell), encoding="utf-8")
    result = distfix("fix", "--write", "--unsafe-fixes", "--select", "TFD403", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    (written,) = _sources(path.read_text(encoding="utf-8"))
    assert written == textwrap.indent(
        "import tensorflow as tf\nnorm = tf.keras.layers.BatchNormalization(synchronized=True)\nx = 1\n", INDENT
    )
    assert _compiles_in_ipython(written)


def test_a_flush_left_cell_is_written_as_before(tmp_path: Path, distfix) -> None:
    """Control: without a leading indentation nothing is added to the rewritten line."""
    path = tmp_path / "train.ipynb"
    path.write_text(
        _notebook("import tensorflow as tf\nnorm = tf.keras.layers.experimental.SyncBatchNormalization()\n"),
        encoding="utf-8",
    )
    distfix("fix", "--write", "--unsafe-fixes", "--select", "TFD403", str(path))
    (written,) = _sources(path.read_text(encoding="utf-8"))
    assert written == "import tensorflow as tf\nnorm = tf.keras.layers.BatchNormalization(synchronized=True)\n"


def _fix_examples():
    for rule in default_registry().rules:
        for number, example in enumerate(rule.examples, start=1):
            if isinstance(example, Invalid) and example.after is not None:
                yield pytest.param(rule.code, example, id=f"{rule.code}-{number}")


def _fixed_cell(source: str, code: str) -> str | None:
    result = analyse_notebook("nb.ipynb", _notebook(source), Config(select=(code,)), fix=True, unsafe=True)
    assert result.error is None, result.error
    return None if result.fixed_text is None else _sources(result.fixed_text)[0]


@pytest.mark.parametrize(("code", "example"), list(_fix_examples()))
def test_every_fix_keeps_an_indented_cell_s_indentation(code: str, example: Invalid) -> None:
    """Each rule's rewrite in a cell indented as a whole is its rewrite of the flush-left cell, indented."""
    flush_left = _fixed_cell(dedent_example(example.code), code)
    indented = _fixed_cell(textwrap.indent(dedent_example(example.code), INDENT), code)
    if flush_left is None:  # a rule that reads a notebook differently from a script (TFD105): no edit either way
        assert indented is None
        return
    assert indented == textwrap.indent(flush_left, INDENT)
    assert _compiles_in_ipython(indented)


def test_a_cell_that_would_not_compile_as_read_is_not_written() -> None:
    """The check judges the cell as read: the split-back text of cell 1 does not parse, so nothing is written."""
    notebook = combine_cells([(1, INDENT + "x = 1\n")])
    broken = notebook.combined.replace("x = 1", "x = (")
    with pytest.raises(NotebookError, match="cell 1"):
        split_cells(notebook, broken)
    assert split_cells(notebook, notebook.combined.replace("x = 1", "x = 2")) == {1: INDENT + "x = 2\n"}
