"""A ``migrate --branch`` run stopped by a real signal while git works (a hook holds git at that
moment until the test has signalled): Ctrl-C exits 130 with a message and leaves no branch,
worktree or temporary folder; after a kill, the next run removes the worktree left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from child_processes import wait_until
from repos import BAD, FIXED, git, make_repo

HOOK = """#!/bin/sh
touch "{reached}"
while [ ! -f "{release}" ]; do sleep 0.05; done
"""


def _hold_git_in(repo: Path, hook: str, tmp_path: Path) -> tuple[Path, Path]:
    """Install ``hook`` to wait until released; return (reached marker, release file)."""
    reached, release = tmp_path / f"{hook}.reached", tmp_path / f"{hook}.release"
    script = repo / ".git" / "hooks" / hook
    script.write_text(HOOK.format(reached=reached, release=release))
    script.chmod(0o755)
    return reached, release


def _start(repo: Path, temporary: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "fixer", "migrate", str(repo), "--write", "--branch", "fixes", "--commit"]
    env = {**os.environ, "TMPDIR": str(temporary)}
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)


def _wait_for(path: Path, process: subprocess.Popen) -> None:
    assert wait_until(path.exists, f"git to reach {path.name}", until_exit=process), process.communicate()


@pytest.mark.parametrize("hook, phase", [("post-checkout", "preparing the branches"), ("post-commit", "committing")])
def test_ctrl_c_while_git_works_exits_130_and_leaves_nothing(tmp_path, hook, phase):
    repo = make_repo(tmp_path / "repo", {"train.py": BAD})
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    reached, release = _hold_git_in(repo, hook, tmp_path)
    process = _start(repo, temporary)
    _wait_for(reached, process)
    process.send_signal(signal.SIGINT)
    release.touch()
    out, err = process.communicate(timeout=240)
    assert process.returncode == 130, out + err
    assert f"distfix: error: interrupted while {phase}: no branch was made or changed" in err
    assert "run the same command again" in err and "Traceback" not in err
    assert "fixes" not in git(repo, "branch")
    assert git(repo, "worktree", "list").count("\n") == 1
    assert list(temporary.iterdir()) == []
    assert (repo / "train.py").read_text() == BAD


def test_the_run_after_a_kill_removes_the_worktree_left_behind(tmp_path, distfix):
    repo = make_repo(tmp_path / "repo", {"train.py": BAD})
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    reached, release = _hold_git_in(repo, "post-checkout", tmp_path)
    process = _start(repo, temporary)
    _wait_for(reached, process)
    os.killpg(process.pid, signal.SIGKILL)  # git runs in a session of its own: it finishes
    process.communicate(timeout=60)
    release.touch()
    wait_until(lambda: git(repo, "worktree", "list").count("\n") == 2
               and not list((repo / ".git" / "worktrees").glob("*/locked")), "git to finish the worktree")
    (repo / ".git" / "hooks" / "post-checkout").unlink()
    (left,) = temporary.iterdir()
    rerun = distfix("migrate", str(repo), "--write", "--branch", "fixes", "--commit", env={"TMPDIR": str(temporary)})
    assert rerun.returncode == 0, rerun.stderr
    assert f"distfix: note: {repo}: removed the temporary worktree {left / 'worktree'} left by an interrupted migration" in rerun.stderr
    assert git(repo, "show", "fixes:train.py") == FIXED
    assert git(repo, "worktree", "list").count("\n") == 1
    assert list(temporary.iterdir()) == []
