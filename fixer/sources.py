"""Reading and writing source files: encodings, BOMs, line endings, discovery and atomic writes."""

from __future__ import annotations

import codecs
import contextlib
import errno
import io
import os
import signal
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pathspec

from fixer.config import ConfigError, load_config

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

# A file above this size is reported and skipped: no training script is that large, and parsing
# one with libcst would take minutes and gigabytes.
MAX_FILE_BYTES = 10 * 1024 * 1024

SOURCE_SUFFIXES = (".py", ".ipynb")

# Folders that never hold user code worth checking.
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "__pycache__",
        "node_modules",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".distfix_cache",
        "site-packages",
        "build",
        "dist",
        ".eggs",
        ".ipynb_checkpoints",
    }
)


# Bazel writes this file at the top of every output base it creates: what lies below (the
# workspace's external repositories, TensorFlow's own source among them when a project builds
# against it) is a build cache, not the project's code, even when a project commits it.
BAZEL_OUTPUT_BASE_MARKER = "DO_NOT_BUILD_HERE"


class SourceError(Exception):
    """A file could not be read as Python source; the message is one line for the user."""


@dataclass(frozen=True)
class DecodedSource:
    """A decoded source text plus what is needed to write it back byte for byte."""

    text: str
    encoding: str
    bom: bool


def decode_source(data: bytes) -> DecodedSource:
    """Decode Python source bytes, honouring a BOM and a PEP 263 coding cookie.

    Line endings are kept as they are: the engine edits the text without normalising them.
    """
    if b"\x00" in data[:8192]:
        raise SourceError("binary file (contains NUL bytes), not Python source")
    bom = data.startswith(codecs.BOM_UTF8)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        raise SourceError(f"bad encoding declaration: {exc}") from None
    if encoding == "utf-8-sig":
        encoding = "utf-8"
    body = data[len(codecs.BOM_UTF8) :] if bom else data
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as exc:
        raise SourceError(f"not valid {encoding} at byte {exc.start}; add a coding declaration or re-encode") from None
    except LookupError:
        raise SourceError(f"unknown encoding {encoding!r} in the coding declaration") from None
    return DecodedSource(text=text, encoding=encoding, bom=bom)


def encode_source(text: str, like: DecodedSource) -> bytes:
    """Encode ``text`` the way the original was encoded (same codec, same BOM)."""
    data = text.encode(like.encoding)
    return codecs.BOM_UTF8 + data if like.bom else data


# What a path that is not a regular file is, in the words of the message that skips it.
_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a directory"),
)


def not_regular_reason(mode: int) -> str | None:
    """Why a file of this ``st_mode`` is skipped (``not a regular file (a FIFO)``), or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    kind = next((name for test, name in _SPECIAL_KINDS if test(mode)), "a special file")
    return f"not a regular file ({kind}); skipped"


def open_regular(path: Path | str) -> io.BufferedReader:
    """Open ``path`` for reading only if it is a regular file; otherwise raise a SourceError.

    A FIFO, socket or device named ``x.py`` is never opened the ordinary way: opening a FIFO
    blocks until a writer comes, and reading a device may never end. The mode is checked before
    opening, and again on the opened descriptor (non-blocking, so a FIFO swapped in between
    cannot block either).
    """
    reason = not_regular_reason(os.stat(path).st_mode)
    if reason is not None:
        raise SourceError(reason)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        reason = not_regular_reason(os.fstat(fd).st_mode)
        if reason is not None:
            raise SourceError(reason)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: Path) -> bytes:
    """Read one file's bytes; every failure (folder, special file, too large, unreadable, binary) is a SourceError."""
    try:
        if path.is_dir():
            raise SourceError("is a directory")
        with open_regular(path) as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_FILE_BYTES:
                raise SourceError(f"file too large ({size / 1e6:.1f} MB; the limit is {MAX_FILE_BYTES / 1e6:.0f} MB)")
            data = handle.read()
    except SourceError:
        raise
    except FileNotFoundError:
        raise SourceError("no such file") from None
    except PermissionError:
        raise SourceError("permission denied") from None
    except OSError as exc:
        raise SourceError(exc.strerror or str(exc)) from None
    if b"\x00" in data[:8192]:
        raise SourceError("binary file (contains NUL bytes), not Python source")
    return data


def read_source(path: Path) -> DecodedSource:
    """Read and decode one file; every failure becomes a one-line SourceError."""
    return decode_source(read_bytes(path))


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` through a temporary file and a rename, keeping its mode.

    A crash or Ctrl-C at any moment leaves either the old file or the new one, never half of one.
    A symlink stays a symlink: its target is what gets replaced.
    """
    path = path.resolve()
    mode = path.stat().st_mode & 0o7777
    tmp_name = None
    try:
        with _stop_signals_blocked():  # a stop between creating the file and naming it would leak it
            fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".distfix", dir=path.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException:  # including a stop (Ctrl-C, SIGTERM): the temporary file goes
        if tmp_name is not None:
            Path(tmp_name).unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def _stop_signals_blocked() -> Iterator[None]:
    """SIGINT and SIGTERM held back (delivered on leaving) in this thread."""
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    except (AttributeError, OSError):  # pragma: no cover - not POSIX
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@dataclass(frozen=True)
class DiscoveryProblem:
    """A path given on the command line that cannot be checked, with the reason."""

    path: str
    message: str


def _gitignore_spec(root: Path) -> pathspec.PathSpec[pathspec.Pattern] | None:
    ignore = root / ".gitignore"
    if not ignore.is_file():
        return None
    try:
        lines = ignore.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.PathSpec.from_lines("gitwildmatch", lines)


def discover(
    paths: Iterable[str], exclude: pathspec.PathSpec[pathspec.Pattern] | None = None
) -> tuple[list[Path], list[DiscoveryProblem]]:
    """Expand command-line paths into source files, in a stable sorted order.

    Folders are walked (symlinked folders are not followed, so loops cannot happen), their
    ``.gitignore`` is honoured, and ``exclude`` patterns from the configuration are applied.
    Files named explicitly are always taken, whatever their suffix.
    """
    found: list[Path] = []
    problems: list[DiscoveryProblem] = []
    for raw in paths:
        path = Path(raw)
        try:
            path.stat()
        except FileNotFoundError:
            kind = "broken symlink" if path.is_symlink() else "no such file or directory"
            problems.append(DiscoveryProblem(raw, kind))
            continue
        except OSError as exc:
            reason = "symlink loop" if exc.errno == errno.ELOOP else exc.strerror or "cannot be read"
            problems.append(DiscoveryProblem(raw, reason))
            continue
        if path.is_dir():
            found.extend(_walk(path, exclude))
        else:
            found.append(path)
    unique = sorted(set(found), key=lambda p: str(p))
    return unique, problems


class _ProjectExclude:
    """The ``exclude`` patterns of the project a walked folder belongs to, relative to its root."""

    def __init__(self, folder: Path) -> None:
        try:
            config = load_config(folder)
        except ConfigError:  # reported for each file when it is checked
            config = None
        self.root = config.root.resolve() if config is not None and config.root is not None else None
        patterns = config.exclude if config is not None else ()
        self.spec = pathspec.PathSpec.from_lines("gitwildmatch", patterns) if patterns and self.root else None

    def excludes(self, path: str, folder: bool = False) -> bool:
        """True when ``path`` (absolute) matches a pattern, as the project root sees it."""
        if self.spec is None or self.root is None:
            return False
        try:
            rel = Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return False
        return self.spec.match_file(rel + "/" if folder else rel)


def _walk(root: Path, exclude: pathspec.PathSpec[pathspec.Pattern] | None) -> Iterator[Path]:
    ignore = _gitignore_spec(root)
    project = _ProjectExclude(root)
    absolute_root = os.path.abspath(root)
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        if BAZEL_OUTPUT_BASE_MARKER in filenames:
            dirnames[:] = []
            continue
        rel_dir = os.path.relpath(dirpath, root)
        absolute_dir = os.path.join(absolute_root, rel_dir)
        kept = []
        for name in sorted(dirnames):
            rel = os.path.normpath(os.path.join(rel_dir, name))
            if name in SKIPPED_DIRS or _ignored(rel + "/", ignore, exclude):
                continue
            if project.excludes(os.path.normpath(os.path.join(absolute_dir, name)), folder=True):
                continue
            kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            if not name.endswith(SOURCE_SUFFIXES):
                continue
            if not os.path.exists(os.path.join(dirpath, name)):
                continue  # a broken or looping symlink found by walking is not user source
            rel = os.path.normpath(os.path.join(rel_dir, name))
            if _ignored(rel, ignore, exclude) or project.excludes(os.path.normpath(os.path.join(absolute_dir, name))):
                continue
            yield Path(dirpath) / name


def _ignored(rel: str, *specs: pathspec.PathSpec[pathspec.Pattern] | None) -> bool:
    return any(spec is not None and spec.match_file(rel) for spec in specs)
