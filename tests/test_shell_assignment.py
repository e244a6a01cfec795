"""IPython's assignment from a shell or magic line accepts any target (`name, = !cmd`), as IPython does."""

from __future__ import annotations

import json

import pytest
from IPython.core.inputtransformer2 import TransformerManager

from fixer.config import Config
from fixer.notebook import analyse_notebook
from fixer.shell_assignment import is_shell_assignment

LINES = [
    "files = !ls",
    "name, = !git rev-parse HEAD",
    "a, b = !cat two_lines.txt",
    "*head, last = !ls -1",
    "(a, b) = !ls",
    "[only] = !hostname",
    "rows[0] = !ls",
    "config.host = !hostname",
    "table[key(1, 2)] = !ls",
    "hosts: list = !cat hosts",
    "out=!ls",
    "t, = %time f()",
    "cache['k'] = %env HOME",
    # IPython leaves these as Python (a chained or augmented assignment, a comparison, a call).
    "x = y = !ls",
    "x += !ls",
    "a == !ls",
    "f(a=!ls)",
    "s = '=!' + t",
    "d['='] = 3",
    "ok = value != 3",
    # Neither `!` nor `%` on the line: Python, answered without the scan.
    "files = ls",
    "a, b = run('ls -1')",
    "rate = 5  # 5 percent",
]


def _ipython_assigns(line: str) -> bool:
    """What IPython itself does with the line: does it become a call of getoutput or run_line_magic?"""
    out = TransformerManager().transform_cell(line + "\n")
    return "get_ipython()" in out


@pytest.mark.parametrize("line", LINES)
def test_the_same_targets_as_ipython(line):
    assert is_shell_assignment(line) == _ipython_assigns(line)


def test_the_sample_has_both_answers():
    """A sample of one answer would let the comparison above pass for a function that always says it."""
    answers = {_ipython_assigns(line) for line in LINES}
    assert answers == {True, False}


def _findings(first_cell: list[str]) -> list[str]:
    cells = [
        {"cell_type": "code", "execution_count": 1, "id": f"c{i}", "metadata": {}, "outputs": [], "source": source}
        for i, source in enumerate(
            [
                first_cell,
                [
                    "import tensorflow as tf\n",
                    "strategy = tf.distribute.MirroredStrategy()\n",
                    "strategy.experimental_run_v2(print)\n",
                ],
            ]
        )
    ]
    data = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    result = analyse_notebook("lab.ipynb", json.dumps(data), Config(), fix=False, unsafe=False)
    return sorted(f.code for f in result.findings)


@pytest.mark.parametrize("line", ["commit, = !git rev-parse HEAD\n", "first, second = !ls\n", "paths[0] = !pwd\n"])
def test_a_tuple_or_subscript_target_is_no_parse_error(line):
    assert _findings([line, "print(commit)\n"]) == ["TFD401"]


def test_control_a_line_ipython_rejects_stays_a_parse_error():
    assert _findings(["x = y = !ls\n"]) == ["TFD000", "TFD401"]
