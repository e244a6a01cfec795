"""Whether any file of the project reads a configuration module: imports it, or names its file.

A scaffold's `config.py` that sets a literal TF_CONFIG and imports nothing but the standard library
builds no cluster by itself: its TF_CONFIG reaches a strategy only through a program that imports
it (`import config`, `from worker import config`, `from .config import ...`), runs it in its own
process (`%run config.py`, `exec(open("config.py").read())`), or a launcher that starts it and then
something else in that process, which a module of its own does not do. TFD601 leaves such an
inert module unreported when no `.py` file or notebook of the project root does either (noise36:
policy 2).

The test is textual and errs towards "read": any line of a project file that says `import` or
`from` and has the module's name as a word, or that names its file (`config.py`), counts; so does a
`__import__`/`import_module` line naming it. Its result depends on every Python file and notebook
of the root (one of them may gain the import), so it is recorded as one dependency,
``<root>|python-files``, whose stamp changes when any such file is added, removed or edited
(:func:`python_files_stamp`): a cached result is checked again then.
"""

from __future__ import annotations

import os
import re
import sys
import zlib
from typing import TYPE_CHECKING

from fixer.sources import SourceError, open_regular

if TYPE_CHECKING:
    from collections.abc import Iterator

    from fixer.tf.module_summary import ImportRef

PYTHON_FILES = "|python-files"
_SKIPPED_FOLDERS = frozenset({"site-packages", "dist-packages", "node_modules", "__pycache__"})
_MAX_BYTES = 2_000_000  # a larger file is data or generated output, not a program importing ours
# Standard-library modules that start or load other programs: a module importing one may be a launcher.
_STARTERS = frozenset({"subprocess", "multiprocessing", "runpy", "importlib", "concurrent", "pty"})


def imports_only_the_standard_library(imports: dict[str, ImportRef]) -> bool:
    """The module imports nothing but standard-library modules that start no other program (no
    TensorFlow, no project module): by itself it builds no strategy and starts no worker."""
    for ref in imports.values():
        head = ref.module.split(".")[0]
        if ref.level or head not in sys.stdlib_module_names or head in _STARTERS:
            return False
    return True


def read_by_project(module: str, root: str) -> bool:
    """Some `.py` file or notebook under ``root`` other than ``module`` imports it or names its file."""
    stem = os.path.splitext(os.path.basename(module))[0]
    if stem == "__init__":
        stem = os.path.basename(os.path.dirname(module))  # a package: imported by its folder's name
    mention = re.compile(
        rb"^[^\n]*\b(?:import|from|__import__|import_module)\b[^\n]*\b" + re.escape(stem.encode()) + rb"\b"
        rb"|\b" + re.escape(stem.encode()) + rb"\.py\b",
        re.MULTILINE,
    )
    target = os.path.abspath(module)
    for path in _python_files(root):
        if path == target:
            continue
        try:
            if os.path.getsize(path) > _MAX_BYTES:
                continue
            with open_regular(path) as handle:
                data = handle.read()
        except (OSError, SourceError):
            return True  # unreadable: it may import the module
        if mention.search(data):
            return True
    return False


def python_files_stamp(key: str) -> tuple[int, int] | None:
    """The stamp of ``<root>|python-files``: changes when a `.py` file or notebook under the root is
    added, removed, resized or modified (the cache's dependency for :func:`read_by_project`)."""
    entries = []
    for path in _python_files(key.removesuffix(PYTHON_FILES)):
        try:
            st = os.stat(path)
        except OSError:
            continue
        entries.append(f"{path}\0{st.st_size}\0{st.st_mtime_ns}")
    text = "\n".join(entries)
    return (len(entries), zlib.crc32(text.encode("utf-8", "surrogateescape"))) if entries else None


def _python_files(root: str) -> Iterator[str]:
    """Every `.py` file and notebook under ``root``, sorted, outside hidden folders and libraries."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_FOLDERS)
        for name in sorted(files):
            if name.endswith((".py", ".ipynb")):
                yield os.path.join(folder, name)
