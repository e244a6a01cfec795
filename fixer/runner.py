"""Runs the engine over many files: reading, per-folder configuration, fixing and writing.

Every front-end that works on files (check, fix, migrate) goes through :func:`process_file`,
which never raises for a bad file; :func:`run` spreads files over a process pool and returns
results in the order of the input paths.

The analysis (the engine, libcst, the rules, the pre-filter) is imported where a file is
analysed, not here: a warm run whose every file is answered by the stat index never needs it.
"""

from __future__ import annotations

import os
import sys
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from fixer.batch_collection import batch_collection
from fixer.cache import ResultCache, Signature, StatIndex, cache_key, path_context_key, signature
from fixer.config import Config, ConfigError, load_config
from fixer.pool import map_resilient
from fixer.sources import SourceError, decode_source, encode_source, read_bytes, write_atomically
from fixer.types import FileResult

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from pathlib import Path

    from fixer.prefilter import FilterPlan


@dataclass(frozen=True)
class Job:
    """What to do with each file: check only, or fix (and maybe write)."""

    fix: bool = False
    write: bool = False
    unsafe: bool = False
    overrides: tuple[tuple[str, object], ...] = ()  # command-line settings over the file's config
    use_cache: bool = True
    prefilter: bool = True
    # Folders given to the command: a module under one is also seen through the project's
    # scripts that import it (fixer/tf/importers.py).
    project_roots: tuple[str, ...] = ()
    # `fix --emit-launcher`: distfix writes each script's launchers, which give every task its
    # TF_CONFIG, so TFD601 may take the hard-coded one out (fixer/tf/script_launchers.py).
    launchers_written: bool = False

    @property
    def mode(self) -> str:
        """What the result depends on besides the file and the configuration."""
        # A module checked within a project root may also be reported through its importers.
        project = f",project={'|'.join(self.project_roots)}" if self.project_roots else ""
        launched = ",launchers-written" if self.launchers_written else ""
        return f"fix={self.fix},unsafe={self.unsafe},prefilter={self.prefilter}{project}{launched}"


@lru_cache(maxsize=4096)
def _folder_config(folder: Path) -> Config:
    # Keyed on the folder as spelled: resolving it (a system call per path component) once per
    # folder rather than once per file is most of what a warm run spends outside imports.
    return load_config(folder.resolve())


def config_for(path: Path, overrides: tuple[tuple[str, Any], ...]) -> Config:
    """The configuration for ``path``: nearest pyproject.toml, then command-line overrides
    (keyword arguments of :meth:`Config.with_overrides`, which types their values)."""
    base = _folder_config(path.parent)
    return base.with_overrides(**dict(overrides)) if overrides else base


def _error_result(path: str, message: str) -> FileResult:
    from fixer.engine import parse_error_finding

    return FileResult(path=path, error=message, findings=[parse_error_finding(path, message)])


def process_file(path: Path, job: Job) -> FileResult:
    """Check or fix one file; any problem becomes a FileResult with ``error`` set."""
    try:
        config = config_for(path, job.overrides)
    except ConfigError as exc:
        return _error_result(str(path), str(exc))
    return process_with_config(path, job, config)


def process_with_config(path: Path, job: Job, config: Config) -> FileResult:
    """:func:`process_file` with the file's configuration already known.

    ``.py`` files and notebooks take the same path: cache, pre-filter on the bytes, decode,
    analyse, write atomically; only the analysis differs.
    """
    read = _read_or_cached(path, job, config)
    if isinstance(read, FileResult):
        return read
    data, cache, key = read
    with _project_context(job):
        return _process(path, data, job, config, cache, key)


def screen_file(path: Path, job: Job) -> FileResult | None:
    """What :func:`process_file` returns for ``path`` when that needs no analysis (a configuration
    or read error, a cache hit, a file the pre-filter skips); None for a file to analyse.

    The runner asks this in its own process first, so that only files with work go to a pool;
    :func:`process_file` asks the same questions again, on the bytes it reads then.
    """
    name = str(path)
    try:
        config = config_for(path, job.overrides)
    except ConfigError as exc:
        return _error_result(name, str(exc))
    read = _read_or_cached(path, job, config)
    if isinstance(read, FileResult):
        return read
    with _project_context(job):
        return FileResult(path=name) if _skipped(read[0], job, config, name) else None


def _read_or_cached(path: Path, job: Job, config: Config) -> FileResult | tuple[bytes, ResultCache | None, str]:
    """The file's bytes with its result cache and key, or the result that ends its processing
    already: a read error, or a cache hit (looked up before the pre-filter and the project's import
    graph: a hit needs neither, nor the rules and libcst they import, about a second of a warm run
    that misses the stat index)."""
    name = str(path)
    try:
        data = read_bytes(path)
    except SourceError as exc:
        return _error_result(name, str(exc))
    cache, key = _cache_and_key(data, config, job, path)
    if cache is not None:
        cached = cache.load(key, name)
        if cached is not None:
            return cached
    return data, cache, key


def _cache_and_key(data: bytes, config: Config, job: Job, path: Path) -> tuple[ResultCache | None, str]:
    """The result cache a check uses (None for a fix or `--no-cache`) and the file's key in it."""
    if not job.use_cache or job.fix:
        return None, ""
    return ResultCache(), cache_key(data, config, f"{job.mode},notebook={path.suffix == '.ipynb'}", str(path))


@contextmanager
def _project_context(job: Job) -> Iterator[None]:
    """What the analysis of one file of ``job`` sees of its project (roots, launchers)."""
    with ExitStack() as stack:
        if job.project_roots:
            from fixer.tf.importers import project_roots

            stack.enter_context(project_roots(job.project_roots))
            if not job.write:  # no file changes within the run: what the tree's launchers say holds
                from fixer.tf.script_launchers import files_unwritten_in_run

                stack.enter_context(files_unwritten_in_run())
        if job.launchers_written:
            from fixer.tf.script_launchers import caller_launches_with_tf_config

            stack.enter_context(caller_launches_with_tf_config())
        yield


def _skipped(data: bytes, job: Job, config: Config, name: str) -> bool:
    """The pre-filter: no enabled rule can fire on these bytes, nor report through an importer."""
    if not job.prefilter or may_have_findings(data, config, name):
        return False
    return not _helper_candidate(data, config, name, job)


def _process(path: Path, data: bytes, job: Job, config: Config, cache: ResultCache | None, key: str) -> FileResult:
    name = str(path)
    notebook = path.suffix == ".ipynb"
    # Lossless for notebooks too: no trigger text holds a character JSON would escape.
    if _skipped(data, job, config, name):
        return FileResult(path=name)
    try:
        decoded = decode_source(data)
    except SourceError as exc:
        return _error_result(name, str(exc))
    _hash_nodes_in_c()
    if notebook:
        from fixer.notebook import analyse_notebook

        result = analyse_notebook(name, decoded.text, config, fix=job.fix, unsafe=job.unsafe, prefilter=job.prefilter)
    elif job.fix:
        from fixer.engine import fix_source

        result = fix_source(name, decoded.text, config, unsafe=job.unsafe)
    else:
        from fixer.engine import check_source

        result = check_source(name, decoded.text, config, prefilter=job.prefilter)
    if not job.fix:
        if not result.findings:
            result.source = None  # nothing refers to it; keep results small across processes
        if cache is not None:
            cache.store(key, result)
        return result
    if job.write and result.changed and result.fixed_text is not None:
        try:
            write_atomically(path, encode_source(result.fixed_text, decoded))
        except OSError as exc:
            return _unwritten(
                name, decoded.text, config, job, f"could not write: {exc.strerror or exc}; the file is unchanged"
            )
        except UnicodeEncodeError as exc:
            reason = f"the fixed text cannot be encoded as {decoded.encoding} ({exc.reason})"
            return _unwritten(name, decoded.text, config, job, f"could not write: {reason}; the file is unchanged")
    return result


def _hash_nodes_in_c() -> None:
    """libcst hashes its nodes in Python; the index and the rules key their tables by node (~12 % of
    a large file's check, benchmarks/README.md "speed8"): the same identity hash in C, as the
    language server does. Installed once per process, when a first file reaches the analysis."""
    from fixer import node_hash  # libcst only: the server's own modules are not imported

    node_hash.install()


def _unwritten(name: str, text: str, config: Config, job: Job, error: str) -> FileResult:
    """The result of a file whose fixes could not be written: nothing applied, its findings remain.

    Counting the fixes as applied would make the summary say "Fixed N" for a file left as it was.
    """
    if name.endswith(".ipynb"):
        from fixer.notebook import analyse_notebook

        result = analyse_notebook(name, text, config, fix=False, unsafe=job.unsafe, prefilter=job.prefilter)
    else:
        from fixer.engine import check_source

        result = check_source(name, text, config, prefilter=job.prefilter)
    result.error = error
    return result


@lru_cache(maxsize=64)
def filter_plan(config: Config, path_ignores_key: str = "") -> FilterPlan:
    """The pre-filter for the rules ``config`` enables (for ``path_ignores_key`` when it has per-file ignores).

    When TFD000 itself is selected, every file some rule may fire on passes, whichever rules are:
    `--select TFD000` lists the files a full run cannot parse."""
    from fixer.codes import PARSE_ERROR_CODE
    from fixer.prefilter import FilterPlan
    from fixer.registry import default_registry

    rules = default_registry().rules
    if config.is_enabled(PARSE_ERROR_CODE, path_ignores_key or None):
        return FilterPlan(rules)
    return FilterPlan(rule for rule in rules if config.is_enabled(rule.code, path_ignores_key or None))


def filter_stage(data: bytes, config: Config, path: str) -> int:
    """How far a file gets through the pre-filter: 0 and 1 are skipped at stage 1 or 2, 2 is parsed."""
    return filter_plan(config, path if config.per_file_ignores else "").stage(data)


def may_have_findings(data: bytes, config: Config, path: str) -> bool:
    """The pre-filter: False when no enabled rule can fire on a file with these bytes.

    Each rule declares its triggers and needs (texts and patterns without which it cannot
    fire; see fixer/prefilter.py), so skipping such a file loses nothing; the test suite checks
    this on every rule example and corpus case.
    """
    return filter_stage(data, config, path) == 2


def _helper_candidate(data: bytes, config: Config, path: str, job: Job) -> bool:
    """A file the pre-filter would skip that a rule may still report on because a script of the
    project imports it under a strategy (only asked under a project root, and for a text that
    holds one of a rule's ``importer_triggers``)."""
    if not job.project_roots or path.endswith(".ipynb"):
        return False
    if not filter_plan(config, path if config.per_file_ignores else "").importer_candidate(data):
        return False
    from fixer.tf.importers import used_under_strategy

    return used_under_strategy(path)


def _process_indexed(item: tuple[Path, Job]) -> FileResult:
    return process_file(*item)


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def run(paths: Iterable[Path], job: Job, jobs: int | None = None) -> list[FileResult]:
    """Process ``paths`` with ``jobs`` worker processes; results keep the input order.

    When checking with the cache, files whose stat signature is unchanged since a previous run
    are answered from the stat index without being read (see fixer/cache.py). The cyclic
    garbage collector runs less often meanwhile (fixer/batch_collection.py).
    """
    with batch_collection():
        return _run(list(paths), job, jobs)


def _run(paths: list[Path], job: Job, jobs: int | None) -> list[FileResult]:
    importers = sys.modules.get("fixer.tf.importers")
    if importers is not None:
        importers.forget_views()  # files may have changed since an earlier run in this process
    index = StatIndex() if job.use_cache and not job.fix else None
    results: list[FileResult | None] = [None] * len(paths)
    probes: dict[int, tuple[str, Signature | None, str]] = {}
    if index is not None:
        for position, path in enumerate(paths):
            probe = _probe(path, job)
            if probe is None:
                continue
            results[position] = index.lookup(*probe, str(path))
            probes[position] = probe
    pending = [position for position, result in enumerate(results) if result is None]
    for position, result in zip(pending, _run_pool([(paths[p], job) for p in pending], jobs), strict=False):
        results[position] = result
        if index is not None and position in probes:
            index.record(*probes[position], result)
    if index is not None:
        index.save()
    return results  # type: ignore[return-value]


def _probe(path: Path, job: Job) -> tuple[str, Signature | None, str] | None:
    """(absolute path, stat signature taken before the file is read, context key), or None."""
    name = str(path)
    try:
        config = config_for(path, job.overrides)
    except ConfigError:
        return None
    # The signature is taken before a worker reads the file: a later change makes it stale.
    return os.path.abspath(name), signature(name), path_context_key(config, job.mode, name)


def _run_pool(items: list[tuple[Path, Job]], jobs: int | None) -> list[FileResult]:
    """Each item's result: screened here (:func:`screen_file`), the files left analysed here or
    by a pool of ``jobs`` workers."""
    results = [screen_file(*item) for item in items]
    left = [number for number, result in enumerate(results) if result is None]
    work = [items[number] for number in left]
    for number, result in zip(left, _analyse(work, _workers(work, jobs)), strict=True):
        results[number] = result
    return results  # type: ignore[return-value]


# Files left after screening from which a pool starts: by default, where two workers measured as
# fast as one process in wall time (tensorflow/docs' first N files left, benchmarks/README.md
# "speed15"; a pool costs ~0.15 CPU s more); with an explicit `--jobs N`, a handful.
_POOL_FROM = 16
_POOL_FROM_ASKED = 8


def _workers(items: list[tuple[Path, Job]], jobs: int | None) -> int:
    """How many worker processes analyse ``items`` (1: this process)."""
    workers = min(jobs or default_jobs(), len(items))
    if workers <= 1 or len(items) < (_POOL_FROM if jobs is None else _POOL_FROM_ASKED):
        return 1
    return workers


def _analyse(items: list[tuple[Path, Job]], workers: int) -> list[FileResult]:
    if workers <= 1:
        return [_process_indexed(item) for item in items]
    # The workers are forked from this process, which the screening has already made import
    # libcst and the rules (~0.5 CPU s each worker no longer spends).
    return map_resilient(_process_indexed, items, workers, _crashed)


def _crashed(item: tuple[Path, Job]) -> FileResult:
    """The result of a file whose worker process died analysing it (a native crash, the OOM killer)."""
    return _error_result(str(item[0]), "distfix crashed on this file (its worker process died); please report it")
