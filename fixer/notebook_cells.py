"""The code cells of a notebook's JSON, read leniently.

Several readers look at a notebook's code without analysing it (the modules its `%%writefile`
cells write, the scripts it launches, the TensorFlow it installs). They share this one reader,
which skips what is not text instead of raising: a malformed notebook is reported once, by
`fixer.notebook.load_notebook`, not by each reader.
"""

from __future__ import annotations


def cells_of_type(data: object, cell_type: str) -> list[tuple[int, str, dict[str, object]]]:
    """(1-based cell number among all cells, source, the cell) of each cell of ``cell_type``
    ("code", "markdown") whose source is text."""
    cells = data.get("cells") if isinstance(data, dict) else None
    found: list[tuple[int, str, dict[str, object]]] = []
    for number, cell in enumerate(cells if isinstance(cells, list) else [], start=1):
        if isinstance(cell, dict) and cell.get("cell_type") == cell_type:
            source = cell.get("source", "")
            if isinstance(source, list):
                source = _joined(source)
            if isinstance(source, str):
                found.append((number, source, cell))
    return found


def _joined(parts: list[object]) -> str:
    """The text parts of a cell's source list, joined (its other parts skipped)."""
    try:
        # All text, as a notebook writes it: joined at once, without testing each line (per line,
        # that test was 0.3 CPU s of vertex-ai-samples' run; benchmarks/README.md, speed13).
        return "".join(parts)  # type: ignore[arg-type]
    except TypeError:
        return "".join(part for part in parts if isinstance(part, str))


def code_cells(data: object) -> list[tuple[int, str, dict[str, object]]]:
    """(1-based cell number among all cells, source, the cell) of each code cell whose source is text."""
    return cells_of_type(data, "code")


def code_sources(data: object) -> list[tuple[int, str]]:
    """(1-based cell number among all cells, source) of each code cell whose source is text."""
    return [(number, source) for number, source, _ in code_cells(data)]
