"""Git operations of a migration: refuse dirty trees, and commit fixes on a new branch through a
separate worktree, so the user's checkout and current branch stay exactly as they were."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path


class GitError(Exception):
    """A git command failed; the message is one line for the user."""


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` and return its stdout; failures raise GitError with git's reason."""
    try:
        out = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(f"git {args[0]} failed: {exc}") from None
    if out.returncode != 0:
        reason = (out.stderr or out.stdout).strip().splitlines()
        raise GitError(f"git {args[0]} failed: {reason[-1] if reason else out.returncode}")
    return out.stdout


def is_dirty(repo: Path) -> bool:
    """True when the work tree has uncommitted changes to tracked files."""
    return bool(git(repo, "status", "--porcelain", "--untracked-files=no").strip())


def branch_exists(repo: Path, name: str) -> bool:
    """True when a local branch ``name`` exists."""
    try:
        git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{name}")
    except GitError:
        return False
    return True


class BranchWorktree:
    """A temporary worktree on a new branch made from HEAD; removed on exit, the branch kept."""

    def __init__(self, repo: Path, branch: str) -> None:
        self.repo = repo
        self.branch = branch
        self.path = Path(tempfile.mkdtemp(prefix="distfix-migrate-")) / "worktree"

    def __enter__(self) -> "BranchWorktree":
        if branch_exists(self.repo, self.branch):
            raise GitError(f"branch {self.branch!r} already exists in {self.repo}")
        git(self.repo, "worktree", "add", "--quiet", "-b", self.branch, str(self.path), "HEAD")
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            git(self.repo, "worktree", "remove", "--force", str(self.path))
        except GitError:
            pass
        shutil.rmtree(self.path.parent, ignore_errors=True)

    def discard_branch(self) -> None:
        """Delete the branch (after an interrupted run, so that a rerun can make it again)."""
        try:
            git(self.repo, "branch", "-D", self.branch)
        except GitError:
            pass

    def translate(self, file: Path) -> Path:
        """The copy of a repository file inside this worktree."""
        return self.path / file.relative_to(self.repo)

    def commit(self, message: str) -> str | None:
        """Commit every change in the worktree; returns the commit id, or None if nothing changed."""
        git(self.path, "add", "--all")
        if not git(self.path, "status", "--porcelain").strip():
            return None
        identity: list[str] = []
        try:
            git(self.path, "config", "user.email")
        except GitError:  # no identity configured: commit as distfix rather than fail
            identity = ["-c", "user.name=distfix", "-c", "user.email=distfix@localhost"]
        git(self.path, *identity, "commit", "--quiet", "--no-verify", "-m", message)
        return git(self.path, "rev-parse", "HEAD").strip()
