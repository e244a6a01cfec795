"""``migrate --write --branch NAME --commit``: only committed files go on the branch; an
interrupted branch run leaves nothing behind; ``--resume`` is refused with ``--branch``."""

from __future__ import annotations

import json
from pathlib import Path

from repos import BAD, FIXED, git, make_repo

from fixer.migrate.run import MigrateOptions, migrate


def test_uncommitted_files_are_left_out_of_the_branch_with_a_note(tmp_path, distfix):
    repo = make_repo(tmp_path / "repo", {"train.py": BAD})
    (repo / "untracked.py").write_text(BAD)
    report = tmp_path / "r.json"
    result = distfix("migrate", str(repo), "--write", "--branch", "fixes", "--commit", "--report", str(report))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "no such file" not in result.stderr
    assert f"not committed, so not on branch fixes and not checked (commit them, or run without --branch): {repo / 'untracked.py'}" in result.stderr
    assert git(repo, "show", "fixes:train.py") == FIXED
    assert git(repo, "ls-tree", "--name-only", "fixes").split() == ["train.py"]
    assert (repo / "untracked.py").read_text() == BAD
    data = json.loads(report.read_text())
    assert data["repositories"][0]["skipped"] == [str(repo / "untracked.py")]
    assert data["totals"]["skipped"] == 1 and data["totals"]["errors"] == 0
    assert data["verdict"] == "Every finding was fixed. 1 uncommitted file(s) were left out of the branch and not checked."


def test_staged_but_uncommitted_files_are_left_out_too(tmp_path, distfix):
    repo = make_repo(tmp_path / "repo", {"train.py": BAD})
    (repo / "staged.py").write_text(BAD)
    git(repo, "add", "staged.py")
    result = distfix("migrate", str(repo), "--write", "--branch", "fixes", "--commit", "--allow-dirty")
    assert result.returncode == 1, result.stderr
    assert "1 file(s) not committed, so not on branch fixes" in result.stderr
    assert git(repo, "ls-tree", "--name-only", "fixes").split() == ["train.py"]
    assert git(repo, "diff", "--cached", "--name-only").split() == ["staged.py"], "the index is untouched"


def test_resume_with_branch_is_refused_before_anything(tmp_path, distfix):
    repo = make_repo(tmp_path / "repo", {"train.py": BAD})
    result = distfix("migrate", str(repo), "--write", "--branch", "fixes", "--commit", "--resume")
    assert result.returncode == 2
    assert "--resume does not apply to --branch" in result.stderr and "run the same command again" in result.stderr
    assert "fixes" not in git(repo, "branch")
    assert (repo / "train.py").read_text() == BAD


def test_interrupted_branch_run_deletes_the_branch_and_saves_no_state(tmp_path):
    repo = make_repo(tmp_path / "repo", {f"train_{n}.py": BAD for n in range(12)})
    state = tmp_path / "state.json"
    options = MigrateOptions(paths=(str(repo),), write=True, jobs=1, branch="fixes", commit=True, state_file=state)

    def interrupt(done: int, total: int, findings: int, errors: int, eta: float | None) -> None:
        if done >= 1:
            raise KeyboardInterrupt

    report = migrate(options, progress=interrupt)
    assert report.interrupted and 1 <= len(report.results) < 12
    assert report.verdict.endswith("this report is partial; no branch was made; run the migration again.")
    assert not state.exists()
    assert "fixes" not in git(repo, "branch")
    assert git(repo, "worktree", "list").count("\n") == 1
    assert all(path.read_text() == BAD for path in Path(repo).glob("*.py"))
    again = migrate(options)
    assert not again.interrupted and git(repo, "show", "fixes:train_0.py") == FIXED


def test_a_repository_where_nothing_changes_gets_no_branch(tmp_path, distfix):
    clean = make_repo(tmp_path / "clean", {"train.py": FIXED})
    dirty = make_repo(tmp_path / "dirty", {"train.py": BAD})
    result = distfix("migrate", str(clean), str(dirty), "--write", "--branch", "fixes", "--commit")
    assert result.returncode == 0, result.stderr
    assert f"distfix: note: {clean}: nothing to change: no branch made" in result.stderr
    assert "fixes" not in git(clean, "branch")
    assert git(dirty, "show", "fixes:train.py") == FIXED


def test_an_existing_branch_is_refused_with_how_to_update_it(tmp_path, distfix):
    repo = make_repo(tmp_path / "repo", {"train.py": BAD})
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    assert distfix("migrate", str(repo), "--write", "--branch", "fixes", "--commit").returncode == 0
    tip = git(repo, "rev-parse", "fixes")
    again = distfix("migrate", str(repo), "--write", "--branch", "fixes", "--commit", env={"TMPDIR": str(temporary)})
    assert again.returncode == 2
    assert "branch 'fixes' already exists: pass --update-branch" in again.stderr
    assert f"git -C {repo} branch -D fixes" in again.stderr
    assert git(repo, "rev-parse", "fixes") == tip
    assert list(temporary.iterdir()) == [], "a refused run leaves no temporary folder"


def test_update_branch_replaces_the_fixes_with_fixes_of_the_current_head(tmp_path, distfix):
    repo = make_repo(tmp_path / "repo", {"train.py": BAD})
    command = ("migrate", str(repo), "--write", "--branch", "fixes", "--commit", "--update-branch")
    assert distfix(*command).returncode == 0
    first = git(repo, "rev-parse", "fixes").strip()
    assert distfix(*command).returncode == 0
    assert git(repo, "rev-parse", "fixes").strip() == first, "the same fixes of the same HEAD: the branch is not touched"
    (repo / "more.py").write_text(BAD)
    git(repo, "add", "more.py")
    git(repo, "commit", "-q", "-m", "more training")
    head = git(repo, "rev-parse", "HEAD").strip()
    assert distfix(*command).returncode == 0
    assert git(repo, "rev-parse", "fixes^").strip() == head, "rebuilt on the current HEAD"
    assert git(repo, "show", "fixes:more.py") == FIXED and git(repo, "show", "fixes:train.py") == FIXED
    assert git(repo, "rev-list", "--count", "main..fixes").strip() == "1"


def test_update_branch_refuses_a_branch_with_someone_elses_commits(tmp_path, distfix):
    repo = make_repo(tmp_path / "repo", {"train.py": BAD})
    command = ("migrate", str(repo), "--write", "--branch", "fixes", "--commit", "--update-branch")
    assert distfix(*command).returncode == 0
    git(repo, "checkout", "-q", "fixes")
    (repo / "notes.md").write_text("reviewed\n")
    git(repo, "add", "notes.md")
    git(repo, "commit", "-q", "-m", "review notes")
    git(repo, "checkout", "-q", "main")
    tip = git(repo, "rev-parse", "fixes")
    (repo / "more.py").write_text(BAD)
    git(repo, "add", "more.py")
    git(repo, "commit", "-q", "-m", "more training")
    refused = distfix(*command)
    assert refused.returncode == 2
    assert "has commits distfix did not make" in refused.stderr and "review notes" in refused.stderr
    assert git(repo, "rev-parse", "fixes") == tip


def test_update_branch_needs_branch_and_bad_branch_names_are_refused(tmp_path, distfix):
    repo = make_repo(tmp_path / "repo", {"train.py": BAD})
    alone = distfix("migrate", str(repo), "--write", "--update-branch")
    assert alone.returncode == 2 and "--update-branch needs --branch" in alone.stderr
    bad = distfix("migrate", str(repo), "--write", "--branch", "two..dots", "--commit")
    assert bad.returncode == 2 and "--branch 'two..dots': not a valid git branch name" in bad.stderr


def test_update_branch_refuses_a_branch_that_is_checked_out(tmp_path, distfix):
    repo = make_repo(tmp_path / "repo", {"train.py": BAD})
    command = ("migrate", str(repo), "--write", "--branch", "fixes", "--commit", "--update-branch")
    assert distfix(*command).returncode == 0
    git(repo, "checkout", "-q", "fixes")
    tip = git(repo, "rev-parse", "fixes")
    refused = distfix(*command, "--allow-dirty")
    assert refused.returncode == 2
    assert "branch 'fixes' is checked out in a work tree of this repository" in refused.stderr
    assert git(repo, "rev-parse", "fixes") == tip and git(repo, "status", "--porcelain") == ""
