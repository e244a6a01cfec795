"""Orchestrates a migration: collect files, fix them across a process pool with progress, stop
cleanly on Ctrl-C (resumable, also after a kill), commit on a branch when asked, and build the report."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from fixer.migrate.baseline import apply_baseline
from fixer.migrate.files import Target, collect
from fixer.migrate.gitops import COMMIT_SUBJECT, BranchWorktree, GitError, branch_tip, is_dirty, remove_leftovers
from fixer.migrate.state import DEFAULT_STATE_FILE, StateJournal, load_state
from fixer.migrate.summary import MigrationReport, RepoOutcome
from fixer.pool import die_with_parent, map_resilient
from fixer.runner import Job, process_file
from fixer.types import FileResult


@dataclass(frozen=True)
class MigrateOptions:
    """Everything the command line says about one migration."""

    paths: tuple[str, ...]
    write: bool = False
    unsafe: bool = False
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    jobs: int = 1
    branch: str | None = None
    commit: bool = False
    update_branch: bool = False
    allow_dirty: bool = False
    excludes: tuple[str, ...] = ()
    baseline: Path | None = None
    state_file: Path = Path(DEFAULT_STATE_FILE)
    target_version: tuple[int, int] | None = None

    def fingerprint(self) -> dict[str, Any]:
        """What must match for --resume to continue a run."""
        return {
            "paths": list(self.paths),
            "write": self.write,
            "unsafe": self.unsafe,
            "select": list(self.select),
            "ignore": list(self.ignore),
            "branch": self.branch,
            "excludes": list(self.excludes),
            "target_version": list(self.target_version) if self.target_version else None,
        }


RESUME_ON_BRANCH = (
    "--resume does not apply to --branch: an interrupted --branch run makes no branch and saves no state; "
    "run the same command again"
)


class MigrationInterrupted(Exception):
    """Ctrl-C while the branches were being prepared or committed; the message says what is left."""


Progress = Callable[[int, int, int, int, float | None], None]  # done, total, findings, errors, ETA (s) if known


def _ignore_sigint(parent: int) -> None:
    # Workers leave Ctrl-C to the parent, which stops the pool and saves the state; they die with it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent)


def _job(options: MigrateOptions, write: bool) -> Job:
    overrides: tuple[tuple[str, object], ...] = tuple(
        (k, list(v)) for k, v in (("select", options.select), ("ignore", options.ignore)) if v
    )
    if options.target_version is not None:
        overrides += (("target_version", options.target_version),)
    return Job(fix=True, write=write, unsafe=options.unsafe, overrides=overrides, use_cache=False)


def _work_items(
    targets: list[tuple[Target, RepoOutcome]], options: MigrateOptions, worktrees: dict[Path, BranchWorktree]
) -> list[tuple[str, Path, Job]]:
    """(name in the report, file to process, job) for every file of every target.

    On a branch, files that are not in HEAD (untracked, or only staged) do not exist in the
    worktree: they are left out of the branch and listed in their outcome's ``skipped``.
    """
    items = []
    seen: set[str] = set()
    for target, outcome in targets:
        worktree = worktrees.get(target.repo) if target.repo else None
        for file in target.files:
            if str(file) in seen:
                continue
            seen.add(str(file))
            if worktree is None:
                items.append((str(file), file, _job(options, write=options.write)))
            elif worktree.translate(file).is_file():
                items.append((str(file), worktree.translate(file), _job(options, write=True)))
            else:
                outcome.skipped.append(str(file))
    return items


def _run_pool(
    items: list[tuple[str, Path, Job]],
    done: dict[str, FileResult],
    options: MigrateOptions,
    progress: Progress | None,
    journal: StateJournal | None,
) -> bool:
    """Process items not yet done, noting each finished one in ``journal``; returns False when
    interrupted by Ctrl-C."""
    pending = [item for item in items if item[0] not in done]
    total = len(items)
    started = time.monotonic()
    findings = sum(_found(r) for r in done.values())
    errors = sum(1 for r in done.values() if r.error)
    finished_now = 0

    def report() -> None:
        if progress is not None:
            rate = finished_now / max(time.monotonic() - started, 1e-6)
            eta = (total - len(done)) / rate if rate else None
            progress(len(done), total, findings, errors, eta)

    report()
    broken = False
    with ProcessPoolExecutor(
        max_workers=max(1, options.jobs), initializer=_ignore_sigint, initargs=(os.getpid(),)
    ) as pool:
        futures: dict[Future[Any], str] = {}
        queue = iter(pending)
        try:
            for _ in range(options.jobs * 4):
                _submit(pool, futures, queue)
            while futures:
                finished, _ = wait(futures, return_when=FIRST_COMPLETED)
                for future in finished:
                    if isinstance(future.exception(), BrokenProcessPool):
                        raise BrokenProcessPool("a worker died")  # the files left are finished below
                    result = _record(done, futures.pop(future), future, journal)
                    finished_now += 1
                    findings += _found(result)
                    errors += 1 if result.error else 0
                    _submit(pool, futures, queue)
                report()
        except KeyboardInterrupt:
            for future in futures:
                future.cancel()
            pool.shutdown(wait=True, cancel_futures=True)
            # Files that were being processed are finished (and written) by now: record them, so
            # the saved state matches the tree and --resume does not do them again.
            for future, name in futures.items():
                if not future.cancelled():
                    _record(done, name, future, journal)
            return False
        except BrokenProcessPool:
            broken = True
    if broken:
        # A worker died (a native crash, the OOM killer): every pending file of that pool failed
        # with it. The files left are run in a pool that isolates the one that kills its worker.
        left = [item for item in pending if item[0] not in done]
        try:
            results = map_resilient(
                _process_item, [(file, job) for _, file, job in left], max(1, options.jobs), _crashed_item
            )
        except KeyboardInterrupt:
            return False
        for (name, _, _), result in zip(left, results, strict=True):
            _store(done, name, result, journal)
        report()
    return True


def _process_item(item: tuple[Path, Job]) -> FileResult:
    return process_file(*item)


def _crashed_item(item: tuple[Path, Job]) -> FileResult:
    return FileResult(
        path=str(item[0]), error="distfix crashed on this file (its worker process died); please report it"
    )


def _record(done: dict[str, FileResult], name: str, future: Future[Any], journal: StateJournal | None) -> FileResult:
    """Store the finished ``future``'s result for the file ``name`` in ``done`` (and the
    journal), and return it."""
    try:
        result = future.result()
    except Exception as exc:  # a bug in distfix: report it, go on
        result = FileResult(path=name, error=f"internal error: {type(exc).__name__}: {exc}")
    return _store(done, name, result, journal)


def _store(done: dict[str, FileResult], name: str, result: FileResult, journal: StateJournal | None) -> FileResult:
    """Store ``result`` as the result of the file ``name`` in ``done`` (and the journal), and return it."""
    result = replace(result, path=name) if result.path != name else result
    result.findings = [replace(f, path=name) for f in result.findings]
    result.applied = [replace(f, path=name) for f in result.applied]
    done[name] = result
    if journal is not None:
        journal.record(name, result)
    return result


def _found(result: FileResult) -> int:
    """Findings of a file as the report counts them: fixed plus remaining, parse errors apart."""
    return len(result.applied) + sum(1 for f in result.findings if f.code != "TFD000")


def _submit(pool: ProcessPoolExecutor, futures: dict[Future[Any], str], queue: Iterator[tuple[str, Path, Job]]) -> None:
    item = next(queue, None)
    if item is not None:
        name, file, job = item
        futures[pool.submit(process_file, file, job)] = name


def commit_message(results: list[FileResult]) -> str:
    """Subject plus the rules applied and their counts."""
    counts: dict[tuple[str, str], int] = {}
    for result in results:
        for finding in result.applied:
            counts[(finding.code, finding.name)] = counts.get((finding.code, finding.name), 0) + 1
    files = sum(1 for r in results if r.changed)
    lines = [f"{COMMIT_SUBJECT} ({sum(counts.values())} fixes in {files} files)", "", "Rules applied:"]
    lines += [f"- {code} {name}: {n}" for (code, name), n in sorted(counts.items())]
    return "\n".join(lines) + "\n"


def _open_worktrees(
    targets: list[Target], outcomes: list[RepoOutcome], options: MigrateOptions, worktrees: dict[Path, BranchWorktree]
) -> None:
    """Make a temporary worktree in every repository (after removing those of killed runs), or
    set the outcome's error."""
    assert options.branch is not None
    for target, outcome in zip(targets, outcomes, strict=True):
        if target.repo is None:
            outcome.error = "not a git repository: --branch needs one"
            continue
        if target.repo in worktrees:
            continue
        outcome.notes += remove_leftovers(target.repo)
        if not options.allow_dirty and is_dirty(target.repo):
            outcome.error = "the working tree has uncommitted changes (commit or stash them, or pass --allow-dirty)"
            continue
        try:
            worktrees[target.repo] = BranchWorktree(target.repo, options.branch, options.update_branch).__enter__()
        except GitError as exc:
            outcome.error = str(exc)


def _commit_all(
    outcomes: list[RepoOutcome], done: dict[str, FileResult], worktrees: dict[Path, BranchWorktree]
) -> None:
    """Commit each repository's fixes on the branch; a repository where nothing changed gets
    no branch (and an existing one is left as it was)."""
    for repo, worktree in worktrees.items():
        repo_results = [r for name, r in done.items() if Path(name).is_relative_to(repo)]
        commit: str | None = None
        error: str | None = None
        try:
            commit = worktree.commit(commit_message(repo_results))
        except GitError as exc:
            error = str(exc)
        for outcome in outcomes:
            if outcome.repo != str(repo):
                continue
            outcome.error = outcome.error or error
            if commit is not None:
                outcome.branch, outcome.commit = worktree.branch, commit
            elif error is None:
                kept = f"branch {worktree.branch} left as it was" if worktree.previous else "no branch made"
                outcome.notes.append(f"nothing to change: {kept}")


def _interrupted_message(phase: str, worktrees: dict[Path, BranchWorktree], use_branch: bool) -> str:
    """What an interrupt outside the pool (preparing or committing the branches) leaves behind."""
    if not use_branch:
        return f"interrupted while {phase}: nothing was written; run the same command again"
    made = [
        f"{worktree.branch} in {repo}"
        for repo, worktree in worktrees.items()
        if branch_tip(repo, worktree.branch) not in (None, worktree.previous)
    ]
    left = f"branches made before the interrupt: {', '.join(made)}" if made else "no branch was made or changed"
    return f"interrupted while {phase}: {left}; no file of yours was changed; run the same command again"


def migrate(options: MigrateOptions, resume: bool = False, progress: Progress | None = None) -> MigrationReport:
    """Run one migration and return its report (also when interrupted in the pool).

    Without a branch, every finished file is journalled in the state file, so that ``resume``
    continues after any stop. On a branch, the branch is written only once its commit exists:
    an interrupted run leaves none, and is simply run again. Ctrl-C while the branches are being
    prepared or committed raises :class:`MigrationInterrupted` once the worktrees are removed.
    """
    use_branch = options.write and options.branch is not None
    if resume and use_branch:
        raise ValueError(RESUME_ON_BRANCH)
    started = time.monotonic()
    done: dict[str, FileResult] = {}
    if resume:
        saved_options, done = load_state(options.state_file)
        if saved_options != options.fingerprint():
            raise ValueError("--resume needs the same paths and options as the interrupted run")
    targets = [collect(Path(p), options.excludes) for p in options.paths]
    outcomes = [
        RepoOutcome(path=str(t.path), repo=str(t.repo) if t.repo else None, files=len(t.files), root=str(t.root))
        for t in targets
    ]
    journal = None if use_branch else StateJournal(options.state_file, options.fingerprint(), resume)
    worktrees: dict[Path, BranchWorktree] = {}
    completed = False
    phase = "preparing the branches" if use_branch else "starting"
    try:
        if use_branch:
            _open_worktrees(targets, outcomes, options, worktrees)
        usable = [(t, o) for t, o in zip(targets, outcomes, strict=True) if o.error is None]
        items = _work_items(usable, options, worktrees)
        completed = _run_pool(items, done, options, progress, journal)
        if completed and options.commit:
            phase = "committing"
            _commit_all(outcomes, done, worktrees)
    except KeyboardInterrupt:
        message = _interrupted_message(phase, worktrees, use_branch)
        raise MigrationInterrupted(message) from None
    finally:
        for worktree in worktrees.values():
            worktree.__exit__(None, None, None)
        if journal is not None:
            journal.close(finished=completed)
    ordered = [done[name] for name, _, _ in items if name in done]
    roots = {str(file): target.root for target in targets for file in target.files}
    hidden = apply_baseline(ordered, options.baseline, roots, record=completed)
    return MigrationReport(
        results=ordered,
        repos=outcomes,
        seconds=time.monotonic() - started,
        wrote=options.write,
        unsafe=options.unsafe,
        baseline_hidden=hidden,
        interrupted=not completed,
        resumable=not use_branch,
    )
