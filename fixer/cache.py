"""A persistent result cache: an unchanged file is re-checked without being parsed.

Two layers. :class:`StatIndex`, one file for the whole cache, maps a file's path and ``stat``
signature (size, modification time, inode) to its last result, so a warm run over unchanged
files reads neither the files nor one entry per file. When the signature changed, or the file
is new, :class:`ResultCache` entries keyed on the file's bytes (plus the distfix version, the
rule set and the configuration) still spare a parse after a mere ``touch`` or checkout.
The cache lives in one ``.distfix_cache/`` at the root of the project around the current folder
(the nearest folder at or above it with a ``pyproject.toml`` or ``.git``; ``DISTFIX_CACHE_DIR``
overrides it); it is safe to delete at any time. Its files are JSON with a schema check
(fixer/cache_format.py): a file there is never executed, and one that is not what this version
wrote is ignored and rebuilt.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fixer.cache_format import CacheFormatError, decode_result, dumps, encode_result, loads
from fixer.codes import RULE_CODES, source_fingerprint
from fixer.version import __version__

if TYPE_CHECKING:
    from fixer.config import Config
    from fixer.types import FileResult

CACHE_DIR_NAME = ".distfix_cache"
# What marks a project's root folder, where its one cache lives.
PROJECT_MARKERS = ("pyproject.toml", ".git")


def cache_root() -> Path:
    """Where entries are stored: ``DISTFIX_CACHE_DIR``, else ``.distfix_cache`` at the project root."""
    override = os.environ.get("DISTFIX_CACHE_DIR")
    return Path(override) if override else _project_root(Path.cwd()) / CACHE_DIR_NAME


@lru_cache(maxsize=8)
def _project_root(folder: Path) -> Path:
    """The nearest folder at or above ``folder`` that holds a project marker; ``folder`` if none does.

    One cache per project, wherever in it distfix is started, rather than one per folder.
    """
    for candidate in (folder, *folder.parents):
        if any(os.path.exists(os.path.join(candidate, marker)) for marker in PROJECT_MARKERS):
            return candidate
    return folder


@lru_cache(maxsize=1024)
def context_key(config: Config, mode: str, path: str = "") -> str:
    """A digest of everything a result depends on besides the file's bytes.

    The path counts only through the codes enabled for it (``per-file-ignores``), so equal
    files in different folders share an entry when the same rules apply to both. Neither the
    rules nor libcst are imported: a run whose every file is answered from the cache needs
    neither (see fixer/codes.py).
    """
    enabled = ",".join(code for code in RULE_CODES if config.is_enabled(code, path or None))
    digest = hashlib.blake2b(digest_size=20)
    for part in (__version__, source_fingerprint(), config.fingerprint(), mode, enabled):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def path_context_key(config: Config, mode: str, path: str) -> str:
    """:func:`context_key` for ``path``, shared by every path when there are no per-file ignores."""
    return context_key(config, mode, path if config.per_file_ignores else "")


def cache_key(data: bytes, config: Config, mode: str, path: str) -> str:
    """A digest of the file's bytes and of everything else a result depends on."""
    digest = hashlib.blake2b(path_context_key(config, mode, path).encode(), digest_size=20)
    digest.update(data)
    return digest.hexdigest()


class ResultCache:
    """Load and store FileResults by key; I/O problems and unreadable entries just mean a miss."""

    KIND = "result"

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or cache_root()

    def _entry(self, key: str) -> Path:
        return self.root / __version__ / key[:2] / f"{key}.json"

    def load(self, key: str, path: str) -> FileResult | None:
        """The cached result for ``key`` (re-labelled with ``path``), or None."""
        try:
            with open(self._entry(key), "rb") as handle:
                result = decode_result(loads(handle.read(), self.KIND))
        except (OSError, CacheFormatError):
            return None
        if not dependencies_unchanged(result):
            return None
        return relabel(result, path)

    def store(self, key: str, result: FileResult) -> None:
        """Save ``result`` atomically; a failure to write is ignored (the cache is optional)."""
        _write_atomically(self._entry(key), dumps(self.KIND, encode_result(result)), self.root)


def relabel(result: FileResult, path: str) -> FileResult:
    """``result`` as reported for ``path`` (an entry may have been stored under another spelling)."""
    if result.path != path:
        result.findings = [replace(f, path=path) for f in result.findings]
        result.path = path
    return result


Signature = tuple[int, int, int]  # size, modification time (ns), inode

# A file modified less than this long before it was examined may change again within the same
# modification-time tick without its signature changing (git's "racily clean" files): such a
# result is not entered in the stat index, only in the content-keyed cache.
RACY_SECONDS = 2.0


def signature(path: str) -> Signature | None:
    """The stat signature of ``path``, or None if it cannot be stat'ed or was modified just now."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if time.time() - st.st_mtime < RACY_SECONDS:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


Stamp = tuple[int, int] | None  # size and modification time (ns) of a file; None when absent


def file_stamp(path: str) -> Stamp:
    """The :data:`Stamp` of ``path`` now (for `<folder>|target-files`, of that folder's listing; for
    `<root>|python-files`, of every Python file and notebook under the root)."""
    if path.endswith("|target-files"):  # what the project-target model read (fixer/target/model.py)
        from fixer.target.model import listing_stamp

        return listing_stamp(path)
    if path.endswith("|python-files"):  # whether the project reads a module (fixer/tf/module_readers.py)
        from fixer.tf.module_readers import python_files_stamp

        return python_files_stamp(path)
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def dependencies_unchanged(result: FileResult, stamps: dict[str, Stamp] | None = None) -> bool:
    """True when every other file the result was computed from (a module of the project it
    imports) is as it was then, and every one that was absent is still absent.

    ``stamps`` remembers the stamps already taken (in one run, a file's is taken once).
    """
    if stamps is None:
        return all(file_stamp(path) == stamp for path, stamp in result.dependencies)
    for path, stamp in result.dependencies:
        if path not in stamps:
            stamps[path] = file_stamp(path)
        if stamps[path] != stamp:
            return False
    return True


class StatIndex:
    """Results by absolute path, valid while the file's stat signature and context are unchanged.

    Loaded once per run and saved once at its end (atomically: concurrent runs at worst lose
    each other's new entries). A file whose size, mtime or inode changed is a miss, and the
    caller re-checks it (through the content-keyed :class:`ResultCache`). Entries are kept as
    read (JSON types) and decoded only when looked up; one that does not decode is a miss.
    """

    KIND = "stat-index"

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or cache_root()
        self.file = self.root / __version__ / "stat-index.json"
        # path -> [size, mtime ns, inode, context key, encoded result]
        self._entries: dict[str, list[Any]] = {}
        self._dirty = False
        # Dependencies' stamps taken during this run: every file of a folder depends on the
        # folder's listing of target files (fixer/target), which costs a directory scan.
        self._stamps: dict[str, Stamp] = {}
        try:
            with open(self.file, "rb") as handle:
                loaded = loads(handle.read(), self.KIND)
        except (OSError, CacheFormatError):
            return
        if type(loaded) is dict:
            self._entries = loaded

    def lookup(self, path: str, sig: Signature | None, context: str, name: str) -> FileResult | None:
        """The stored result for ``path`` if its signature and context still match, labelled ``name``."""
        entry = self._entries.get(path)
        if sig is None or type(entry) is not list or len(entry) != 5:
            return None
        if (entry[0], entry[1], entry[2]) != sig or entry[3] != context:
            return None
        try:
            result = decode_result(entry[4])
        except CacheFormatError:
            return None
        if not dependencies_unchanged(result, self._stamps):
            return None
        return relabel(result, name)

    def record(self, path: str, sig: Signature | None, context: str, result: FileResult) -> None:
        """Remember ``result`` for ``path`` as it was when ``sig`` was taken (before reading it)."""
        if sig is None or result.error is not None:
            return
        self._entries[path] = [*sig, context, encode_result(result)]
        self._dirty = True

    def save(self) -> None:
        """Write the index if it changed; a failure to write is ignored (the cache is optional)."""
        if not self._dirty:
            return
        _write_atomically(self.file, dumps(self.KIND, self._entries), self.root)
        self._dirty = False


def _write_atomically(file: Path, data: bytes, root: Path) -> None:
    """Write ``file`` through a temporary file and a rename; errors are ignored (the cache is optional)."""
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        _write_gitignore(root)
        fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, file)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        pass


def _write_gitignore(root: Path) -> None:
    if not (root / ".gitignore").exists():
        (root / ".gitignore").write_text("*\n")
