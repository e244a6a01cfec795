"""Runs the engine over many files: reading, per-folder configuration, fixing and writing.

Every front-end that works on files (check, fix, migrate) goes through :func:`process_file`,
which never raises for a bad file; :func:`run` spreads files over a process pool and returns
results in the order of the input paths.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from fixer.config import Config, ConfigError, load_config
from fixer.engine import check_source, fix_source, parse_error_finding
from fixer.sources import SourceError, encode_source, read_source, write_atomically
from fixer.types import FileResult


@dataclass(frozen=True)
class Job:
    """What to do with each file: check only, or fix (and maybe write)."""

    fix: bool = False
    write: bool = False
    unsafe: bool = False
    overrides: tuple[tuple[str, object], ...] = ()  # command-line settings over the file's config


@lru_cache(maxsize=256)
def _folder_config(folder: Path) -> Config:
    return load_config(folder)


def config_for(path: Path, overrides: tuple[tuple[str, object], ...]) -> Config:
    """The configuration for ``path``: nearest pyproject.toml, then command-line overrides."""
    base = _folder_config(path.parent.resolve())
    return base.with_overrides(**dict(overrides)) if overrides else base


def _error_result(path: str, message: str) -> FileResult:
    return FileResult(path=path, error=message, findings=[parse_error_finding(path, message)])


def process_file(path: Path, job: Job) -> FileResult:
    """Check or fix one file; any problem becomes a FileResult with ``error`` set."""
    name = str(path)
    try:
        config = config_for(path, job.overrides)
    except ConfigError as exc:
        return _error_result(name, str(exc))
    if path.suffix == ".ipynb":
        from fixer.notebook import process_notebook

        return process_notebook(path, job, config)
    try:
        decoded = read_source(path)
    except SourceError as exc:
        return _error_result(name, str(exc))
    if not job.fix:
        return check_source(name, decoded.text, config)
    result = fix_source(name, decoded.text, config, unsafe=job.unsafe)
    if job.write and result.changed and result.fixed_text is not None:
        try:
            write_atomically(path, encode_source(result.fixed_text, decoded))
        except (OSError, UnicodeEncodeError) as exc:
            result.error = f"could not write: {exc}"
    return result


def _process_indexed(item: tuple[Path, Job]) -> FileResult:
    return process_file(*item)


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def run(paths: Iterable[Path], job: Job, jobs: int | None = None) -> list[FileResult]:
    """Process ``paths`` with ``jobs`` worker processes; results keep the input order."""
    items = [(path, job) for path in paths]
    workers = min(jobs or default_jobs(), len(items))
    # A pool costs ~100 ms to start; it only pays off for more than a handful of files.
    if workers <= 1 or len(items) < 8:
        return [_process_indexed(item) for item in items]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_process_indexed, items, chunksize=max(1, len(items) // (workers * 8))))
