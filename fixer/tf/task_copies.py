"""Per-task copies of one program: sibling files that differ only in the task index they run.

A project may hold one copy of a script or notebook per task of its cluster (`worker0.ipynb` ...
`worker3.ipynb`), each the same program but for the number that becomes TF_CONFIG's
`task.index`, run together by hand. Those copies are the launch configuration: each one sets its
own task's TF_CONFIG, and together they start every task of the cluster. TFD601 does not report
them; a lone script with a fixed index (copied and edited by hand per machine) stays reported.

Told from the texts: a sibling (same folder, same kind of file) is a copy when its code has the
same lines as this one's except lines that differ in one integer literal only, and this file's
literal there is its own task index; the sibling's literal is then the sibling's index. The copies
count when their indices and this one's are exactly `0..N-1` for the N tasks of that type in the
cluster (N >= 2). A notebook's code is its code cells (outputs and metadata differ between copies).
"""

from __future__ import annotations

import os
import re

from fixer.sources import SourceError, open_regular

Stamp = tuple[int, int] | None  # as fixer.cache.Stamp (that module reaches the TF model)

_INTEGER = re.compile(r"(?<![\w.])\d+(?![\w.])")
_MAX_BYTES = 2_000_000  # as the launchers' reading: larger files are data, not copies of a program


def covers_cluster(path: str, code: str, index: int, size: int, consulted: dict[str, Stamp]) -> bool:
    """``path`` (whose code is ``code``, with task ``index`` of ``size`` tasks of its type) has
    sibling copies that, with it, run every index ``0..size-1``; each sibling read is entered in
    ``consulted`` with its stamp (an edit of it invalidates the answer)."""
    if size < 2 or not 0 <= index < size:
        return False
    folder, extension = os.path.dirname(os.path.abspath(path)), os.path.splitext(path)[1]
    ours = code.splitlines()
    indices = {index}
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return False
    for name in names:
        sibling = os.path.join(folder, name)
        if not name.endswith(extension) or sibling == os.path.abspath(path):
            continue
        theirs = _code(sibling, consulted)
        if theirs is not None and "TF_CONFIG" in theirs:
            other = _copy_index(ours, theirs.splitlines(), index)
            if other is not None:
                indices.add(other)
    return indices == set(range(size))


def _code(path: str, consulted: dict[str, Stamp]) -> str | None:
    """The program text of a sibling file (a notebook's combined code cells), or None."""
    from fixer.cache import file_stamp  # here: see Stamp
    from fixer.notebook import NotebookError, load_notebook  # here: the notebook reaches the TF model

    stamp = consulted[path] = file_stamp(path)
    if stamp is None or stamp[0] > _MAX_BYTES:
        return None
    try:
        with open_regular(path) as handle:
            text = handle.read().decode("utf-8", errors="replace")
    except (OSError, SourceError):
        return None
    if not path.endswith(".ipynb"):
        return text
    try:
        return load_notebook(text).combined
    except NotebookError:
        return None


def _copy_index(ours: list[str], theirs: list[str], index: int) -> int | None:
    """The task index of ``theirs`` when it is ``ours`` with only the integer that is our task
    ``index`` changed (on one or more lines, always the same value); else None."""
    if len(ours) != len(theirs):
        return None
    found: set[int] = set()
    for mine, other in zip(ours, theirs, strict=True):
        if mine == other:
            continue
        pair = _one_integer_changed(mine, other)
        if pair is None or pair[0] != index:
            return None
        found.add(pair[1])
    return found.pop() if len(found) == 1 else None


def _one_integer_changed(mine: str, other: str) -> tuple[int, int] | None:
    """(ours, theirs) when the two lines differ in exactly one integer literal, else None."""
    if _INTEGER.sub("0", mine) != _INTEGER.sub("0", other):
        return None
    pairs = [
        (int(a.group()), int(b.group()))
        for a, b in zip(_INTEGER.finditer(mine), _INTEGER.finditer(other), strict=True)
        if a.group() != b.group()
    ]
    return pairs[0] if len(pairs) == 1 else None
