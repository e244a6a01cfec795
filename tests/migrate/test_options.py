"""``distfix migrate`` options: checked before anything runs, rule selection, unsafe fixes, and
the progress display on a terminal and in a log."""

from __future__ import annotations

import json
import re
import sys

import pexpect
import pytest

from repos import BAD, FIXED, UNSAFE, make_repo


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--report", "{tmp}/report.txt"], "unknown report format '.txt': use .html, .md or .json"),
        (["--report", "{tmp}/missing/report.md"], "does not exist"),
        (["--baseline", "{tmp}/baseline.json"], "not a distfix baseline"),
        (["--baseline", "{tmp}/missing/baseline.json"], "does not exist"),
        (["--state-file", "{tmp}/missing/state.json"], "does not exist"),
        (["--branch", "fixes"], "--branch and --commit go together"),
    ],
)
def test_bad_options_are_refused_before_any_file_is_written(tmp_path, distfix, extra, message):
    repo = make_repo(tmp_path / "repo", {"train.py": BAD})
    (tmp_path / "baseline.json").write_text("[1, 2]")
    state = tmp_path / "state.json"
    args = [arg.format(tmp=tmp_path) for arg in extra]
    result = distfix("migrate", str(repo), "--write", "--state-file", str(state), *args)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == "", "nothing ran"
    assert (repo / "train.py").read_text() == BAD
    assert not (tmp_path / "report.txt").exists() and not state.exists()


def _per_rule(distfix, tmp_path, repo, *args: str) -> dict:
    report = tmp_path / "r.json"
    distfix("migrate", str(repo), "--report", str(report), *args)
    return json.loads(report.read_text())["per_rule"]


def test_select_and_ignore_choose_the_rules(tmp_path, distfix):
    repo = make_repo(tmp_path / "repo", {"train.py": UNSAFE})
    assert sorted(_per_rule(distfix, tmp_path, repo)) == ["TFD105", "TFD401"]
    assert sorted(_per_rule(distfix, tmp_path, repo, "--select", "TFD4")) == ["TFD401"]
    assert sorted(_per_rule(distfix, tmp_path, repo, "--select", "TFD1,TFD401", "--ignore", "TFD401")) == ["TFD105"]
    ignored = distfix("migrate", str(repo), "--write", "--ignore", "TFD401")
    assert ignored.returncode == 1, ignored.stderr
    assert "experimental_distribute_datasets_from_function" in (repo / "train.py").read_text()


def test_unsafe_fixes_are_held_back_unless_asked_for(tmp_path, distfix):
    repo = make_repo(tmp_path / "repo", {"train.py": UNSAFE})
    report = tmp_path / "r.json"
    safe = distfix("migrate", str(repo), "--write", "--report", str(report))
    assert safe.returncode == 1, safe.stderr
    data = json.loads(report.read_text())
    assert data["per_rule"]["TFD105"] == {"found": 1, "fixed": 0, "remaining": 1}
    assert [(f["code"], f["fix"]) for f in data["needs_a_person"]] == [("TFD105", "unsafe")]
    assert (repo / "train.py").read_text() == UNSAFE.replace("experimental_distribute_datasets_from_function", "distribute_datasets_from_function")
    unsafe = distfix("migrate", str(repo), "--write", "--unsafe-fixes", "--report", str(report))
    assert unsafe.returncode == 0, unsafe.stderr
    assert json.loads(report.read_text())["per_rule"]["TFD105"] == {"found": 1, "fixed": 1, "remaining": 0}
    lines = (repo / "train.py").read_text().splitlines()
    assert lines.index("strategy = tf.distribute.MultiWorkerMirroredStrategy()") < lines.index("x = tf.constant(1.0)")


PROGRESS = r"\[[#.]{28}\] (\d+)/(\d+) files · (\d+) findings · (\d+) errors · ETA (\?|\d+s)"


def test_progress_lines_in_a_log_only_when_asked_for(tmp_path, distfix):
    repo = make_repo(tmp_path / "repo", {"a.py": BAD, "b.py": BAD, "broken.py": "strategy.experimental_run_v2(\n"})
    quiet = distfix("migrate", str(repo))
    assert not re.search(PROGRESS, quiet.stderr), "stderr is not a terminal: no progress by default"
    shown = distfix("migrate", str(repo), "--progress", "--jobs", "1")
    lines = shown.stderr.splitlines()
    assert "\r" not in shown.stderr, "a log gets whole lines, not a redrawn bar"
    first, last = re.fullmatch(PROGRESS, lines[0]), re.fullmatch(PROGRESS, lines[-2])
    assert first and first.groups() == ("0", "3", "0", "0", "?"), lines
    assert last and last.groups() == ("3", "3", "4", "1", "0s"), lines
    assert lines[-2].startswith("[" + "#" * 28 + "]")
    assert lines[-1].startswith("distfix: error: ") and "broken.py" in lines[-1]


def test_progress_bar_is_redrawn_on_a_terminal(tmp_path):
    repo = make_repo(tmp_path / "repo", {"a.py": BAD, "b.py": FIXED})
    child = pexpect.spawn(sys.executable, ["-m", "fixer", "migrate", str(repo)], cwd=str(tmp_path), encoding="utf-8", timeout=120)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    assert re.search(r"\r" + PROGRESS.replace(r"(\d+)/(\d+) files", "2/2 files") + r"\r?\n", child.before), repr(child.before)
    assert re.search(r"\r\[\.{28}\] 0/2 files", child.before), "the bar starts empty and is redrawn in place"
