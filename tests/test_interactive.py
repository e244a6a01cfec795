"""``distfix fix --interactive`` driven through a pseudo-terminal with real key presses."""

from __future__ import annotations

import sys
from pathlib import Path

import pexpect

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
        sys.executable, ["-m", "fixer", "fix", "--interactive", *args], cwd=str(cwd), encoding="utf-8", timeout=60
    )


def test_apply_skip_and_apply_all(tmp_path: Path):
    script = tmp_path / "train.py"
    script.write_text(SOURCE)
    child = _spawn("train.py", cwd=tmp_path)
    child.expect("TFD401 renamed-distribute-api")
    child.expect(r"\+strategy.run\(first\)")
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
