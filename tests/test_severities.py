"""Severities (error: crashes, hangs, wrong results; warning: slow or deprecated; info: advice)
in the text summary, GitHub annotations, SARIF levels, LSP diagnostics and ``--show-source``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lsprotocol import types

from fixer.codes import RULE_CODES, SEVERITIES, severity
from fixer.engine import check_source
from fixer.lsp.convert import diagnostic
from fixer.registry import default_registry
from fixer.rule import dedent_example
from fixer.textmap import TextMap

# One rule of each severity, checked on its own first example.
SAMPLES = {"TFD302": "error", "TFD402": "warning", "TFD601": "info"}


def _example(code: str) -> str:
    return dedent_example(default_registry().get(code).first_invalid().code)


@pytest.fixture
def samples(tmp_path: Path) -> Path:
    for code in SAMPLES:
        (tmp_path / f"{code.lower()}.py").write_text(_example(code))
    return tmp_path


def test_every_rule_has_a_severity():
    assert set(RULE_CODES) <= set(SEVERITIES)
    assert set(SEVERITIES.values()) == {"error", "warning", "info"}
    assert {code: severity(code) for code in SAMPLES} == SAMPLES
    assert severity("TFD000") == "error"


def test_github_annotations_follow_the_severity(samples, distfix):
    result = distfix("check", "--format", "github", "--select", ",".join(SAMPLES), str(samples))
    kinds = {line.split("title=")[1][:6]: line.split(" ")[0] for line in result.stdout.splitlines()}
    assert kinds == {"TFD302": "::error", "TFD402": "::warning", "TFD601": "::notice"}


def test_sarif_levels_follow_the_severity(samples, distfix):
    run = json.loads(distfix("check", "--format", "sarif", "--select", ",".join(SAMPLES), str(samples)).stdout)["runs"][0]
    levels = {result["ruleId"]: result["level"] for result in run["results"]}
    assert levels == {"TFD302": "error", "TFD402": "warning", "TFD601": "note"}
    defaults = {rule["id"]: rule["defaultConfiguration"]["level"] for rule in run["tool"]["driver"]["rules"]}
    assert defaults["TFD601"] == "note" and defaults["TFD101"] == "error"


def test_text_summary_counts_by_severity(samples, distfix):
    result = distfix("check", "--select", ",".join(SAMPLES), str(samples))
    assert "Found 3 findings in 3 files: 1 error, 1 warning, 1 info." in result.stdout


def test_lsp_diagnostics_follow_the_severity():
    expected = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning, "info": types.DiagnosticSeverity.Information}
    for code, level in SAMPLES.items():
        source = _example(code)
        findings = [f for f in check_source("train.py", source).findings if f.code == code]
        assert findings, code
        assert diagnostic(findings[0], TextMap(source)).severity == expected[level]


def test_show_source_puts_a_caret_under_the_finding(tmp_path, distfix):
    (tmp_path / "train.py").write_text("import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\nstrategy.experimental_run_v2(fn)\n")
    result = distfix("check", "--show-source", "train.py", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.startswith(
        "train.py:3:10: TFD401 [*] `experimental_run_v2` is removed in TensorFlow 2.21 (`AttributeError`; 2.21 assumed: no pin found); use `run`\n"
        "  |\n"
        "3 | strategy.experimental_run_v2(fn)\n"
        "  |          ^^^^^^^^^^^^^^^^^^^ warning: renamed-distribute-api\n"
        "  |\n"
        "\n"
        "Found 1 finding in 1 file: 1 warning.\n"
    )


def test_show_source_in_a_notebook_shows_the_cell_line(tmp_path, distfix):
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# notes"]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": ["import tensorflow as tf\n", "s = tf.distribute.MirroredStrategy()\n", "s.experimental_run_v2(fn)\n"]},
    ]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "train.ipynb").write_text(json.dumps(notebook))
    result = distfix("check", "--show-source", "train.ipynb", cwd=tmp_path)
    assert "3 | s.experimental_run_v2(fn)\n  |   ^^^^^^^^^^^^^^^^^^^ warning: renamed-distribute-api\n" in result.stdout, result.stdout
