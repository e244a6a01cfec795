"""``distfix fix --interactive`` driven through a pseudo-terminal with real key presses, and its
exit codes, option checks and notebook handling with answers on a pipe."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from fixer.interactive import hunk_at_line_first
from fixer.output.diff import unified_diff
from fixer.registry import default_registry

SOURCE = (
    "import tensorflow as tf\n"
    "strategy = tf.distribute.MirroredStrategy()\n"
    "strategy.experimental_run_v2(first)\n"
    "strategy.experimental_run_v2(second)\n"
    "strategy.experimental_run_v2(third)\n"
)
PROMPT = r"\[q\]uit\? "


def _spawn(*args: str, cwd: Path) -> pexpect.spawn:
    return pexpect.spawn(
        sys.executable, ["-m", "fixer", "fix", "--interactive", *args], cwd=str(cwd), encoding="utf-8", timeout=120
    )


def test_apply_skip_and_apply_all(tmp_path: Path):
    script = tmp_path / "train.py"
    script.write_text(SOURCE)
    child = _spawn("train.py", cwd=tmp_path)
    child.expect("TFD401 renamed-distribute-api")
    explanation = default_registry().get("TFD401").doc_sections()["What it does"].splitlines()[0]
    child.expect_exact(explanation)  # the rule's explanation, before the diff
    child.expect_exact("\x1b[31m-strategy.experimental_run_v2(first)\x1b[0m")  # a coloured diff
    child.expect_exact("\x1b[32m+strategy.run(first)\x1b[0m")
    child.expect(PROMPT)
    assert script.read_text() == SOURCE, "nothing is written before the file's review ends"
    child.send("s")
    child.expect(r"\+strategy.run\(second\)")
    child.expect(PROMPT)
    child.send("A")
    child.expect(r"Applied 2 fixes, skipped 1; wrote 1 file.")
    child.expect(pexpect.EOF)
    assert script.read_text() == SOURCE.replace("experimental_run_v2(second)", "run(second)").replace(
        "experimental_run_v2(third)", "run(third)"
    )


def test_quit_keeps_the_file_untouched_when_nothing_was_applied(tmp_path: Path):
    script = tmp_path / "train.py"
    script.write_text(SOURCE)
    child = _spawn("train.py", cwd=tmp_path)
    child.expect(PROMPT)
    child.send("x")
    child.expect("please answer a, s, A, S or q")
    child.expect(PROMPT)
    child.send("q")
    child.expect(r"Applied 0 fixes, skipped 0; wrote 0 files.")
    child.expect(pexpect.EOF)
    assert script.read_text() == SOURCE


def test_skip_all_of_a_rule_moves_on(tmp_path: Path):
    (tmp_path / "a.py").write_text(SOURCE)
    (tmp_path / "b.py").write_text(SOURCE)
    child = _spawn(".", cwd=tmp_path)
    child.expect(PROMPT)
    child.send("a")
    child.expect(PROMPT)
    child.send("S")
    child.expect(r"Applied 1 fix, skipped \d+; wrote 1 file.")
    child.expect(pexpect.EOF)
    assert (tmp_path / "b.py").read_text() == SOURCE
    assert (tmp_path / "a.py").read_text().count("strategy.run(") == 1


def _answer(answers: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``distfix fix --interactive --select TFD401 ARGS`` with ``answers`` on a pipe, one per line."""
    return subprocess.run(
        [sys.executable, "-m", "fixer", "fix", "--interactive", "--select", "TFD401", *args],
        cwd=cwd,
        input=answers,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("option", [["--diff"], ["--output-file", "out.patch"], ["--emit-launcher", "launch"]])
def test_contradictory_options_are_a_usage_error(tmp_path: Path, option: list[str]):
    script = tmp_path / "train.py"
    script.write_text(SOURCE)
    result = _answer("A\n", *option, "train.py", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"distfix: error: --interactive cannot be combined with {option[0]} (it writes the fixes you accept, as you go)"
    )
    assert script.read_text() == SOURCE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]


def test_exit_codes_follow_fix_write(tmp_path: Path):
    script = tmp_path / "train.py"
    script.write_text(SOURCE)
    skipped_one = _answer("s\nA\n", "train.py", cwd=tmp_path)
    assert skipped_one.returncode == 1, "a skipped fix leaves a finding"
    assert "1 finding remains." in skipped_one.stdout
    script.write_text(SOURCE)
    advisory = _answer("s\nA\n", "--exit-zero", "train.py", cwd=tmp_path)
    assert advisory.returncode == 0 and "1 finding remains." in advisory.stdout
    script.write_text(SOURCE)
    all_applied = _answer("A\n", "train.py", cwd=tmp_path)
    assert all_applied.returncode == 0, all_applied.stdout
    assert "Applied 3 fixes, skipped 0; wrote 1 file." in all_applied.stdout and "remain" not in all_applied.stdout
    nothing_to_do = _answer("", "train.py", cwd=tmp_path)
    assert nothing_to_do.returncode == 0
    assert nothing_to_do.stdout.strip() == "Applied 0 fixes, skipped 0; wrote 0 files."


def test_end_of_input_quits_and_counts_the_rest(tmp_path: Path):
    (tmp_path / "train.py").write_text(SOURCE)
    result = _answer("", "train.py", cwd=tmp_path)
    assert result.returncode == 1
    assert "3 findings remain." in result.stdout and "Traceback" not in result.stderr


def test_errors_exit_two(tmp_path: Path):
    (tmp_path / "broken.py").write_text("import tensorflow as tf\nstrategy.experimental_run_v2(\n")
    result = _answer("", "broken.py", "missing.py", cwd=tmp_path)
    assert result.returncode == 2
    assert "distfix: error: missing.py: no such file or directory" in result.stderr
    assert re.search(r"distfix: error: broken.py: .*", result.stderr)


def test_notebooks_are_named_not_skipped_silently(tmp_path: Path):
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": SOURCE.splitlines(keepends=True)}
    notebook = tmp_path / "train.ipynb"
    text = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"
    notebook.write_text(text)
    result = _answer("", "train.ipynb", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith(
        "distfix: warning: train.ipynb: not reviewed, 3 findings: --interactive reviews .py files only; "
        "`distfix fix train.ipynb` shows the notebook's fixes"
    )
    assert "1 notebook with findings not reviewed (--interactive reviews .py files only)." in result.stdout
    assert notebook.read_text() == text


KERAS3_FIT = (
    "import os\n"
    "import json\n"
    "\n"
    "import tensorflow as tf\n"
    "import tensorflow.keras as keras\n"
    "\n"
    "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n"
    "with strategy.scope():\n"
    "    model = keras.Sequential([keras.layers.Dense(1)])\n"
    "    model.compile(loss='mse')\n"
    "model.fit(x, y, epochs=1)\n"
)


def test_the_review_shows_the_findings_line_and_the_rules_whole_explanation(tmp_path: Path):
    (tmp_path / "train.py").write_text(KERAS3_FIT)
    child = _spawn("--unsafe-fixes", "train.py", cwd=tmp_path)
    child.expect_exact("train.py:11:1: TFD504 keras3-fit-under-multiworker (unsafe fix)")
    child.expect_exact("    11 | model.fit(x, y, epochs=1)")  # the line the finding is about, though the fix edits line 2
    what_it_does = default_registry().get("TFD504").doc_sections()["What it does"].splitlines()
    assert len(what_it_does) >= 3, "several lines: the test would not tell a truncated one"
    for line in what_it_does:  # every line, to the last (the section is at most five lines)
        child.expect_exact(line)
    child.expect_exact("+os.environ[\"TF_USE_LEGACY_KERAS\"] = \"1\"")
    child.expect(PROMPT)
    child.send("q")
    child.expect(pexpect.EOF)


def test_the_hunk_at_the_findings_line_comes_first():
    before = "import tensorflow as tf\n" + "".join(f"x{n} = {n}\n" for n in range(20)) + "strategy.experimental_run_v2(f)\n"
    after = "import os\nimport tensorflow as tf\n" + "".join(f"x{n} = {n}\n" for n in range(20)) + "strategy.run(f)\n"
    patch = unified_diff("train.py", before, after)
    assert patch.index("+import os") < patch.index("+strategy.run(f)"), "the file's order"
    shown = hunk_at_line_first(patch, 22)
    assert shown.startswith("--- a/train.py\n+++ b/train.py\n@@ -19,4 +20,4 @@")
    assert shown.index("+strategy.run(f)") < shown.index("+import os")
    assert sorted(shown.splitlines()) == sorted(patch.splitlines()), "every line is still shown"
    assert hunk_at_line_first(patch, 1) == patch
