"""A fixed notebook is written back in the JSON layout it was saved in, byte for byte outside the fixed cell.

Kaggle saves notebooks as one line of compact JSON (``","`` and ``":"`` separators, non-ASCII kept, a cell's
``source`` often one string); Jupyter indents by 1, other tools by 2 or 4, with or without ``\\uXXXX`` escapes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from fixer.config import Config
from fixer.notebook import analyse_notebook

COMPACT = (",", ":")

# (indent, separators) pairs as the tools that save notebooks write them.
LAYOUTS = [
    pytest.param(None, COMPACT, id="compact"),
    pytest.param(None, None, id="one-line-spaced"),
    pytest.param(1, None, id="indent-1"),
    pytest.param(2, None, id="indent-2"),
    pytest.param(4, None, id="indent-4"),
]


def _notebook() -> dict[str, Any]:
    """A notebook with a string source (Kaggle's form), a list source and non-ASCII text in both kinds of cell."""
    return {
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 4,
        "cells": [
            {"metadata": {}, "cell_type": "markdown", "source": "# Fleurs — entraînement sur TPU ✓"},
            {
                "metadata": {"trusted": True},
                "cell_type": "code",
                "execution_count": 1,
                "outputs": [],
                "source": "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()  # « réplicas »",
            },
            {
                "metadata": {},
                "cell_type": "code",
                "execution_count": 2,
                "outputs": [],
                "source": ["@tf.function\n", "def step(x):\n", "    return strategy.experimental_run_v2(fn, (x,))"],
            },
        ],
    }


def _dumps(data: dict[str, Any], indent: int | None, separators: tuple[str, str] | None, ensure_ascii: bool) -> str:
    return json.dumps(data, indent=indent, separators=separators, ensure_ascii=ensure_ascii)


@pytest.mark.parametrize("ensure_ascii", [False, True], ids=["non-ascii-kept", "ascii-escaped"])
@pytest.mark.parametrize(("indent", "separators"), LAYOUTS)
def test_a_fixed_notebook_keeps_its_layout(indent, separators, ensure_ascii):
    data = _notebook()
    text = _dumps(data, indent, separators, ensure_ascii)
    result = analyse_notebook("kernel.ipynb", text, Config(), fix=True, unsafe=False)
    assert result.error is None, result.error
    expected = json.loads(text)
    expected["cells"][2]["source"] = ["@tf.function\n", "def step(x):\n", "    return strategy.run(fn, (x,))"]
    assert result.fixed_text == _dumps(expected, indent, separators, ensure_ascii)
    again = analyse_notebook("kernel.ipynb", result.fixed_text, Config(), fix=True, unsafe=False)
    assert again.fixed_text in (None, result.fixed_text), "a second fix changes nothing"


def test_only_the_fixed_cell_changes_in_a_compact_notebook():
    data = _notebook()
    text = _dumps(data, None, COMPACT, False)
    fixed = analyse_notebook("kernel.ipynb", text, Config(), fix=True, unsafe=False).fixed_text
    assert fixed is not None
    old, new = "strategy.experimental_run_v2(fn", "strategy.run(fn"
    assert fixed == text.replace(old, new) and text.count(old) == 1
    assert "\n" not in fixed and "« réplicas »" in fixed


def test_a_string_source_stays_a_string():
    data = _notebook()
    data["cells"][1]["source"] += "\nstrategy.experimental_run_v2(fn)"
    fixed = analyse_notebook("k.ipynb", _dumps(data, None, COMPACT, False), Config(), fix=True, unsafe=False).fixed_text
    assert fixed is not None
    assert json.loads(fixed)["cells"][1]["source"].endswith("\nstrategy.run(fn)")


@pytest.mark.parametrize("trailing", ["", "\n"], ids=["no-newline", "newline"])
@pytest.mark.parametrize(("indent", "separators"), LAYOUTS)
def test_an_unchanged_notebook_round_trips_byte_for_byte(indent, separators, trailing):
    data = _notebook()
    data["cells"][2]["source"] = ["print('nothing to fix')"]
    text = _dumps(data, indent, separators, False) + trailing
    result = analyse_notebook("kernel.ipynb", text, Config(), fix=True, unsafe=False)
    assert result.error is None
    assert result.fixed_text in (None, text)


def test_a_layout_json_dumps_cannot_reproduce_is_refused_with_a_message(tmp_path, distfix):
    path = tmp_path / "kernel.ipynb"
    text = json.dumps(_notebook(), indent=3)
    path.write_text(text, encoding="utf-8")
    result = distfix("fix", "--write", str(path))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "layout" in result.stdout + result.stderr and "will not rewrite it" in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert path.read_text(encoding="utf-8") == text
