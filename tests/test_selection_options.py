"""ruff's habits on the command line and in ``[tool.distfix]``: paths default to ``.``,
extend-select / extend-ignore / per-file-ignores, ``check --baseline``, and one check of rule
codes and configuration keys, with "did you mean", for every command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

BAD = "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\nstrategy.experimental_run_v2(fn)\n"
FINDING = "train.py:3:10: TFD401"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "train.py").write_text(BAD)
    return tmp_path


def _config(project: Path, body: str) -> None:
    (project / "pyproject.toml").write_text("[tool.distfix]\n" + body)


@pytest.mark.parametrize("command", [["check"], ["fix"]])
def test_check_and_fix_default_to_the_current_folder(project, distfix, command):
    result = distfix(*command, cwd=project)
    assert result.returncode == 1, result.stderr
    if command == ["check"]:
        assert FINDING in result.stdout
    else:
        assert "+strategy.run(fn)" in result.stdout


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["check", "--select", "TFD4O1"], "unknown rule code or prefix TFD4O1 in --select (did you mean TFD401?)"),
        (["check", "--extend-ignore", "TFD4O1"], "unknown rule code or prefix TFD4O1 in --extend-ignore (did you mean TFD401?)"),
        (["fix", "--extend-select", "XYZ"], "unknown rule code or prefix XYZ in --extend-select; `distfix rules` lists them"),
        (["check", "--per-file-ignores", "train.py:TFD4O1"], "unknown rule code or prefix TFD4O1 in --per-file-ignores 'train.py'"),
        (["check", "--per-file-ignores", "train.py"], "--per-file-ignores 'train.py': expected GLOB:CODES"),
        (["migrate", ".", "--select", "TFD4O1"], "unknown rule code or prefix TFD4O1 in --select (did you mean TFD401?)"),
        (["migrate", ".", "--ignore", "TFD499"], "unknown rule code or prefix TFD499 in --ignore; `distfix rules` lists them"),
    ],
)
def test_unknown_codes_on_the_command_line_are_usage_errors(project, distfix, arguments, message):
    result = distfix(*arguments, cwd=project)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "body, message",
    [
        ('select = ["TFD499"]\n', "unknown rule code or prefix TFD499 in [tool.distfix] select; `distfix rules` lists them"),
        ('extend-select = ["TFD4O1"]\n', "unknown rule code or prefix TFD4O1 in [tool.distfix] extend-select (did you mean TFD401?)"),
        ('[tool.distfix.per-file-ignores]\n"tests/*" = ["TFD1O1"]\n', "in [tool.distfix] per-file-ignores 'tests/*' (did you mean TFD101?)"),
        ('extend_select = ["TFD4"]\n', "unknown [tool.distfix] key 'extend_select' (did you mean extend-select?)"),
        ('ignroe = ["TFD4"]\n', "unknown [tool.distfix] key 'ignroe' (did you mean ignore?)"),
    ],
)
@pytest.mark.parametrize("command", [["check"], ["fix"], ["migrate", "."]])
def test_the_configuration_is_checked_the_same_way_for_every_command(project, distfix, body, message, command):
    _config(project, body)
    result = distfix(*command, cwd=project)
    assert result.returncode == 2, result.stdout
    assert message in result.stderr + result.stdout
    assert "All checks passed" not in result.stdout


def test_extend_select_and_extend_ignore_from_the_configuration(project, distfix):
    _config(project, 'select = ["TFD1"]\nextend-select = ["TFD4"]\n')
    assert FINDING in distfix("check", cwd=project).stdout
    _config(project, 'extend-ignore = ["TFD401"]\n')
    assert distfix("check", cwd=project).returncode == 0


def test_extend_options_add_to_the_configuration(project, distfix):
    _config(project, 'select = ["TFD1"]\n')
    assert distfix("check", cwd=project).returncode == 0
    assert FINDING in distfix("check", "--extend-select", "TFD401", cwd=project).stdout
    assert distfix("check", "--extend-ignore", "TFD4", cwd=project).returncode == 0


def test_per_file_ignores_on_the_command_line(project, distfix):
    (project / "other.py").write_text(BAD)
    result = distfix("check", "--per-file-ignores", "train.py:TFD401", cwd=project)
    assert FINDING not in result.stdout
    assert "other.py:3:10: TFD401" in result.stdout


def test_check_baseline_records_then_shows_only_new_findings(project, distfix):
    baseline = project / "baseline.json"
    first = distfix("check", "--baseline", str(baseline), cwd=project)
    assert first.returncode == 1 and FINDING in first.stdout
    assert "recorded 1 finding in the new baseline" in first.stderr
    assert json.loads(baseline.read_text())["findings"] == [
        "train.py::TFD401::`experimental_run_v2` is removed in TensorFlow 2.21 (`AttributeError`; 2.21 assumed: no pin found); use `run`::strategy.experimental_run_v2(fn)"
    ]
    second = distfix("check", "--baseline", str(baseline), cwd=project)
    assert second.returncode == 0, second.stdout
    assert "1 finding in the baseline" in second.stderr
    (project / "train.py").write_text(BAD + "strategy.experimental_run_v2(other)\n")
    third = distfix("check", "--baseline", str(baseline), cwd=project)
    assert third.returncode == 1
    assert "train.py:4:10: TFD401" in third.stdout and FINDING not in third.stdout


def test_check_baseline_in_a_missing_folder_is_a_usage_error(project, distfix):
    result = distfix("check", "--baseline", str(project / "nowhere" / "b.json"), cwd=project)
    assert result.returncode == 2
    assert "does not exist" in result.stderr


@pytest.mark.parametrize(
    "name, suggestion",
    [("TFD4O1", "(did you mean TFD401?)"), ("renamed-distribut-api", "(did you mean renamed-distribute-api?)")],
)
def test_explain_suggests_the_closest_rule(distfix, name, suggestion):
    result = distfix("explain", name)
    assert result.returncode == 2
    assert result.stderr.strip() == f"distfix: error: unknown rule {name!r} {suggestion}; `distfix rules` lists them"
