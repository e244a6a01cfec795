"""Git operations of a migration: refuse dirty trees, and commit fixes through a separate,
detached worktree, so the user's checkout and current branch stay exactly as they were.

The branch itself is written last, in one ``git update-ref`` once its commit exists: a run that
is interrupted or killed before then leaves no branch, and a repository where nothing changed
gets none. Git runs in a session of its own and Ctrl-C is held back while it runs, so that an
interrupt never leaves a git command half done (a stale lock, a half-made worktree).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

# The subject of every commit a migration makes (run.commit_message): how --update-branch tells
# its own commits from a person's.
COMMIT_SUBJECT = "Fix TensorFlow distributed-training mistakes with distfix"
# Temporary worktrees are made in folders named after the process that made them, so that a later
# run can tell the leftovers of a killed run (process gone) from those of a running one.
_WORKTREE_PREFIX = "distfix-migrate-"
_LEFTOVER = re.compile(rf"{_WORKTREE_PREFIX}(\d+)-[^/]*/worktree$")


class GitError(Exception):
    """A git command failed; the message is one line for the user."""


@contextmanager
def _interrupt_after() -> Iterator[None]:
    """Hold back Ctrl-C until the block is over, then raise it (main thread only: elsewhere
    signals are not delivered to Python code anyway)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        raise KeyboardInterrupt


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` and return its stdout; failures raise GitError with git's reason."""
    try:
        with _interrupt_after():
            # A session of its own: a Ctrl-C at the terminal reaches distfix, not git.
            out = subprocess.run(
                ["git", *args], cwd=repo, capture_output=True, text=True, timeout=300, start_new_session=True
            )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(f"git {args[0]} failed: {exc}") from None
    if out.returncode != 0:
        reason = (out.stderr or out.stdout).strip().splitlines()
        raise GitError(f"git {args[0]} failed: {reason[-1] if reason else out.returncode}")
    return out.stdout


def is_dirty(repo: Path) -> bool:
    """True when the work tree has uncommitted changes to tracked files."""
    return bool(git(repo, "status", "--porcelain", "--untracked-files=no").strip())


def branch_tip(repo: Path, name: str) -> str | None:
    """The commit a local branch ``name`` points at, or None when there is no such branch."""
    try:
        return git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{name}").strip()
    except GitError:
        return None


def check_branch_name(name: str) -> str | None:
    """Why ``name`` cannot be a branch name, or None when it can."""
    out = subprocess.run(["git", "check-ref-format", "--branch", name], capture_output=True, text=True)
    return None if out.returncode == 0 else f"--branch {name!r}: not a valid git branch name"


def remove_leftovers(repo: Path) -> list[str]:
    """Remove the temporary worktrees of killed migrations of ``repo`` (their process is gone);
    return a note for each."""
    try:
        listing = git(repo, "worktree", "list", "--porcelain")
    except GitError:
        return []
    notes = []
    for line in listing.splitlines():
        match = _LEFTOVER.search(line.removeprefix("worktree "))
        if not line.startswith("worktree ") or match is None or _alive(int(match.group(1))):
            continue
        path = Path(line.removeprefix("worktree "))
        try:
            git(repo, "worktree", "remove", "--force", str(path))
        except GitError:
            git(repo, "worktree", "prune")
        shutil.rmtree(path.parent, ignore_errors=True)
        notes.append(
            f"removed the temporary worktree {path} left by an interrupted migration (process {match.group(1)})"
        )
    return notes


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


class BranchWorktree:
    """A temporary detached worktree at HEAD; :meth:`commit` puts its changes on ``branch``.

    The branch must not exist, unless ``update`` is set: then its distfix commit is replaced by
    one made from the current HEAD, and a branch holding any other commit is refused.
    """

    def __init__(self, repo: Path, branch: str, update: bool = False) -> None:
        self.repo = repo
        self.branch = branch
        self.update = update
        self.previous: str | None = None  # the branch's commit before this run, with update
        self.path: Path | None = None

    def __enter__(self) -> BranchWorktree:
        self.previous = branch_tip(self.repo, self.branch)
        if self.previous is not None and not self.update:
            raise GitError(
                f"branch {self.branch!r} already exists: pass --update-branch to replace its fixes with fixes of the "
                f"current HEAD, or delete it (git -C {self.repo} branch -D {self.branch})"
            )
        if self.previous is not None:
            self._refuse_checked_out()
            self._refuse_foreign_commits()
        folder = Path(tempfile.mkdtemp(prefix=f"{_WORKTREE_PREFIX}{os.getpid()}-"))
        self.path = folder / "worktree"
        try:
            git(self.repo, "worktree", "add", "--quiet", "--detach", str(self.path), "HEAD")
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _refuse_checked_out(self) -> None:
        # Moving a branch that a work tree has checked out would leave that tree showing the
        # fixes as undone: git itself refuses to do it, and so does distfix.
        listing = git(self.repo, "worktree", "list", "--porcelain")
        if f"branch refs/heads/{self.branch}" in listing.splitlines():
            raise GitError(
                f"branch {self.branch!r} is checked out in a work tree of this repository: switch to another "
                "branch there before --update-branch"
            )

    def _refuse_foreign_commits(self) -> None:
        log = git(self.repo, "log", "--format=%h %s", f"HEAD..refs/heads/{self.branch}")
        foreign = [line for line in log.splitlines() if not line.split(" ", 1)[-1].startswith(COMMIT_SUBJECT)]
        if foreign:
            raise GitError(
                f"branch {self.branch!r} has commits distfix did not make ({foreign[0]}), which --update-branch "
                "would drop: merge them first, or use another --branch"
            )

    def __exit__(self, *exc_info: object) -> None:
        if self.path is None:
            return
        try:
            git(self.repo, "worktree", "remove", "--force", str(self.path))
        except GitError:
            pass
        shutil.rmtree(self.path.parent, ignore_errors=True)
        try:  # if the removal failed, the folder is gone now: let git forget it
            git(self.repo, "worktree", "prune")
        except GitError:
            pass
        self.path = None

    def _same_change(self, commit: str) -> bool:
        """True when the branch's commit has the same parent and files as ``commit``."""

        def parent_and_tree(rev: str) -> str:
            return git(self.repo, "rev-parse", f"{rev}^", f"{rev}^{{tree}}")

        return parent_and_tree(self.previous or "") == parent_and_tree(commit)

    def translate(self, file: Path) -> Path:
        """The copy of a repository file inside this worktree."""
        assert self.path is not None, "the worktree is open"
        return self.path / file.relative_to(self.repo)

    def commit(self, message: str) -> str | None:
        """Commit every change and point the branch at that commit; return the commit id, or
        None when nothing changed (then no branch is made, and an existing one is left alone)."""
        assert self.path is not None, "the worktree is open"
        git(self.path, "add", "--all")
        if not git(self.path, "status", "--porcelain").strip():
            return None
        identity: list[str] = []
        try:
            git(self.path, "config", "user.email")
        except GitError:  # no identity configured: commit as distfix rather than fail
            identity = ["-c", "user.name=distfix", "-c", "user.email=distfix@localhost"]
        git(self.path, *identity, "commit", "--quiet", "--no-verify", "-m", message)
        commit = git(self.path, "rev-parse", "HEAD").strip()
        if self.previous is not None and self._same_change(commit):
            return self.previous  # the branch already holds exactly these fixes of this HEAD
        # The old value makes the update atomic: it fails if the branch changed meanwhile.
        expected = self.previous or "0" * len(commit)
        git(self.repo, "update-ref", "-m", "distfix migrate", f"refs/heads/{self.branch}", commit, expected)
        return commit
