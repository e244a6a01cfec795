"""A `.py` file that is the nbconvert export of the executed notebook beside it: the same program
and the same run, so the notebook's statements about its kernel (its install cells, its saved
outputs' TensorFlow and Keras) are the export's too.

`jupyter nbconvert --to script` writes each code cell under a `# In[N]:` marker, N the cell's
execution count (`# In[ ]:` for a cell never run). The export belongs to `<stem>.ipynb` in its
folder when its markers, in order, are that notebook's code cells' execution counts, and at least
one cell ran: an export of another run of the notebook, or of an edited copy, numbers its cells
differently. Read as text, never executed.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

_MARKER = re.compile(r"(?m)^# In\[(?P<count>[ \d]*)\]:\s*$")

Counters = tuple[int | None, ...]


def execution_counts(cells: object) -> Counters:
    """The execution count of each code cell of a notebook's `cells` list (None: never run)."""
    counts: list[int | None] = []
    for cell in cells if isinstance(cells, list) else []:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            count = cell.get("execution_count")
            counts.append(count if isinstance(count, int) else None)
    return tuple(counts)


def numbered_counts(cells: object) -> tuple[tuple[int, int | None], ...]:
    """(1-based number among all cells, execution count) of each code cell of a notebook's `cells`
    list, the number `# distfix-cell N` gives the cell in the checked module (None: never run)."""
    found: list[tuple[int, int | None]] = []
    for number, cell in enumerate(cells if isinstance(cells, list) else [], start=1):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            count = cell.get("execution_count")
            found.append((number, count if isinstance(count, int) else None))
    return tuple(found)


def export_markers(text: str) -> Counters:
    """The `# In[N]:` markers of an exported script, in order; () for a script with none."""
    return tuple(int(m.group("count")) if m.group("count").strip() else None for m in _MARKER.finditer(text))


def exported_from(script: Path, text: str) -> Path | None:
    """The notebook beside ``script`` (same stem) that ``text`` may be an export of, when ``text``
    has export markers of which at least one counts a run; the caller compares the counts."""
    if "# In[" not in text:
        return None  # most scripts: no marker, no file system look-up
    markers = export_markers(text)
    if not any(count is not None for count in markers):
        return None
    notebook = script.with_suffix(".ipynb")
    return notebook if notebook.is_file() else None
