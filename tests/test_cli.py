"""The command line end to end: formats, selection, exit codes, diff and write."""

from __future__ import annotations

import json
from pathlib import Path

import libcst as cst
import pytest

RENAMED = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


@tf.function
def step(batch):
    return strategy.experimental_run_v2(replica_fn, args=(batch,))
"""
CLEAN = "import tensorflow as tf\n\nx = tf.constant(1)\n"


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_check_text_reports_location_code_marker_and_summary(tmp_path, distfix):
    script = _write(tmp_path, "train.py", RENAMED)
    result = distfix("check", str(script))
    assert result.returncode == 1
    first = result.stdout.splitlines()[0]
    assert first == f"{script}:8:21: TFD401 [*] `experimental_run_v2` is removed in TensorFlow 2.21 (`AttributeError`; 2.21 assumed: no pin found); use `run`"
    assert "Found 1 finding in 1 file: 1 warning." in result.stdout
    assert "1 fixable with `distfix fix --write`" in result.stdout


def test_summaries_say_how_many_files_have_findings_and_what_remains(tmp_path, distfix):
    _write(tmp_path, "train.py", RENAMED)
    _write(tmp_path, "ok.py", CLEAN)
    assert "\nFound 1 finding in 1 of 2 files: 1 warning.\n" in distfix("check", str(tmp_path)).stdout
    advice = "import tensorflow as tf\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\nx = tf.constant(1)\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n"
    _write(tmp_path, "ok.py", advice)
    fixed = distfix("fix", "--select", "TFD105", str(tmp_path / "ok.py"))
    assert fixed.stderr.startswith("Nothing to fix; 1 finding remains (`distfix check` lists it)."), fixed.stderr


def test_version_help_and_explain_tfd000(distfix):
    from fixer import __version__

    assert distfix("--version").stdout == f"distfix {__version__}\n"
    helped = distfix("fix", "-h")
    assert helped.returncode == 0 and "--write" in helped.stdout and "<bool>" not in helped.stdout
    assert "--select CODES" in helped.stdout and "--emit-launcher DIR" in helped.stdout
    explained = distfix("explain", "TFD000")
    assert explained.returncode == 0 and explained.stdout.startswith("# TFD000 parse-error\n")


def test_check_clean_file_exits_zero(tmp_path, distfix):
    script = _write(tmp_path, "ok.py", CLEAN)
    result = distfix("check", str(script))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "All checks passed: 1 file checked." in result.stdout


def test_check_json_schema(tmp_path, distfix):
    script = _write(tmp_path, "train.py", RENAMED)
    result = distfix("check", "--format", "json", str(script))
    assert result.returncode == 1
    items = json.loads(result.stdout)
    assert len(items) == 1
    item = items[0]
    assert {k: item[k] for k in ("path", "line", "column", "end_line", "end_column", "code", "name", "applicability")} == {
        "path": str(script),
        "line": 8,
        "column": 21,
        "end_line": 8,
        "end_column": 40,
        "code": "TFD401",
        "name": "renamed-distribute-api",
        "applicability": "safe",
    }
    assert item["fix"]["edits"] == [
        {"start": {"line": 8, "column": 21}, "end": {"line": 8, "column": 40}, "content": "run"}
    ]
    assert item["fix"]["title"] == "Use the current name"


def test_select_and_ignore_take_prefixes(tmp_path, distfix):
    script = _write(tmp_path, "train.py", RENAMED)
    assert distfix("check", "--select", "TFD4", str(script)).returncode == 1
    assert distfix("check", "--select", "TFD1", str(script)).returncode == 0
    assert distfix("check", "--ignore", "TFD401", str(script)).returncode == 0
    assert distfix("check", "--select", "TFD", "--ignore", "TFD40", str(script)).returncode == 0


def test_statistics_counts_per_rule(tmp_path, distfix):
    _write(tmp_path, "a.py", RENAMED)
    _write(tmp_path, "b.py", RENAMED)
    result = distfix("check", "--statistics", str(tmp_path))
    assert result.stdout.strip() == "2  TFD401  renamed-distribute-api"


def test_fix_default_is_a_diff_that_writes_nothing(tmp_path, distfix):
    script = _write(tmp_path, "train.py", RENAMED)
    result = distfix("fix", str(script))
    assert result.returncode == 1
    rel = str(script).lstrip("/")
    assert result.stdout == (
        f"--- a/{rel}\n+++ b/{rel}\n@@ -5,4 +5,4 @@\n \n @tf.function\n def step(batch):\n"
        "-    return strategy.experimental_run_v2(replica_fn, args=(batch,))\n"
        "+    return strategy.run(replica_fn, args=(batch,))\n"
    )
    assert script.read_text() == RENAMED
    assert "Would fix 1 finding in 1 file." in result.stderr


def test_fix_write_applies_atomically_and_is_idempotent(tmp_path, distfix):
    script = _write(tmp_path, "train.py", RENAMED)
    script.chmod(0o640)
    result = distfix("fix", "--write", str(script))
    assert result.returncode == 0, result.stderr
    fixed = script.read_text()
    assert "strategy.run(replica_fn" in fixed
    cst.parse_module(fixed)
    assert oct(script.stat().st_mode & 0o777) == "0o640"
    assert list(tmp_path.iterdir()) == [script], "no temporary file is left behind"
    again = distfix("fix", "--write", str(script))
    assert again.returncode == 0
    assert script.read_text() == fixed
    assert again.stderr == "Nothing to fix.\n"


def test_fix_never_touches_files_not_named(tmp_path, distfix):
    named = _write(tmp_path, "a.py", RENAMED)
    other = _write(tmp_path, "b.py", RENAMED)
    distfix("fix", "--write", str(named))
    assert other.read_text() == RENAMED


def test_explain_renders_sections_and_example(distfix):
    result = distfix("explain", "TFD401")
    assert result.returncode == 0
    for heading in ("# TFD401 renamed-distribute-api", "## What it does", "## Example", "## Use instead", "## Fix safety"):
        assert heading in result.stdout
    assert distfix("explain", "renamed-distribute-api").stdout == result.stdout


def test_explain_unknown_code_is_a_usage_error(distfix):
    result = distfix("explain", "TFD999")
    assert result.returncode == 2
    assert "unknown rule 'TFD999'" in result.stderr
    assert "Traceback" not in result.stderr


def test_rules_json_lists_every_rule(distfix):
    rows = json.loads(distfix("rules", "--format", "json").stdout)
    codes = [row["code"] for row in rows]
    assert "TFD401" in codes and codes == sorted(codes)
    assert set(rows[0]) == {"code", "name", "family", "message", "fix", "severity"}


def test_exit_zero_and_output_file(tmp_path, distfix):
    script = _write(tmp_path, "train.py", RENAMED)
    report = tmp_path / "report.json"
    result = distfix("check", "--exit-zero", "--format", "json", "--output-file", str(report), str(script))
    assert result.returncode == 0
    assert result.stdout == ""
    assert json.loads(report.read_text())[0]["code"] == "TFD401"


def test_static_commands_never_import_tensorflow_nor_ray(tmp_path, heavy_imports):
    _write(tmp_path, "train.py", RENAMED)
    assert heavy_imports(["check", str(tmp_path)]) == set()


def test_fix_diff_exit_zero_shows_the_diff_writes_nothing_and_exits_zero(tmp_path, distfix):
    script = _write(tmp_path, "train.py", RENAMED)
    result = distfix("fix", "--diff", "--exit-zero", str(script))
    assert result.returncode == 0, result.stderr
    assert "+    return strategy.run(replica_fn, args=(batch,))" in result.stdout
    assert "Would fix 1 finding in 1 file." in result.stderr
    assert script.read_text() == RENAMED
    assert distfix("fix", "--diff", str(script)).returncode == 1, "without --exit-zero the same run exits 1"


def test_fix_output_file_is_a_patch_that_git_applies(tmp_path, distfix):
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    script = _write(tmp_path, "train.py", RENAMED)
    printed = distfix("fix", "train.py", cwd=tmp_path)
    result = distfix("fix", "--diff", "--output-file", "fixes.patch", "train.py", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == "" and result.stderr == ""
    report = (tmp_path / "fixes.patch").read_text()
    assert report == printed.stdout + "Would fix 1 finding in 1 file.\n"
    assert script.read_text() == RENAMED
    subprocess.run(["git", "apply", "fixes.patch"], cwd=tmp_path, check=True)
    assert script.read_text() == RENAMED.replace("experimental_run_v2", "run")


def test_fix_write_output_file_holds_the_summary(tmp_path, distfix):
    script = _write(tmp_path, "train.py", RENAMED)
    report = tmp_path / "fix.txt"
    result = distfix("fix", "--write", "-o", str(report), str(script))
    assert result.returncode == 0 and result.stdout == ""
    assert report.read_text() == "Fixed 1 finding in 1 file.\n"
    assert "strategy.run(replica_fn" in script.read_text()


def test_fix_output_file_that_cannot_be_written_is_an_error(tmp_path, distfix):
    script = _write(tmp_path, "train.py", RENAMED)
    result = distfix("fix", "--output-file", str(tmp_path / "missing" / "out.patch"), str(script))
    assert result.returncode == 2
    assert result.stderr.startswith(f"distfix: error: cannot write {tmp_path / 'missing' / 'out.patch'}")


def test_a_missing_path_is_never_all_checks_passed(tmp_path, distfix):
    result = distfix("check", str(tmp_path / "missing.py"))
    assert result.returncode == 2
    assert "All checks passed" not in result.stdout
    assert "1 path could not be checked." in result.stdout


@pytest.mark.parametrize("option", ["--select", "--ignore"])
def test_an_unknown_rule_code_is_a_usage_error(tmp_path, distfix, option):
    (tmp_path / "a.py").write_text("x = 1\n")
    result = distfix("check", option, "TFD1,XYZ", str(tmp_path / "a.py"))
    assert result.returncode == 2
    assert f"unknown rule code or prefix XYZ in {option}" in result.stderr
