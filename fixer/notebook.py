"""Jupyter notebooks as sources: code cells analysed together, magics masked, cells written back.

All code cells are joined into one module (later cells use what earlier cells define), with a
boundary comment between cells. IPython magics and shell lines are commented out in place, so
they neither break parsing nor shift columns. Findings are mapped back to ``cell N:line:col``;
fixes are split back into the cells they touch, and only those cells' ``source`` changes.
Masking is in :mod:`fixer.magics`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from fixer.engine import check_source, fix_source, parse_error_finding
from fixer.magics import dedent_cell, leading_indent, mask_cell, quarantine_cell
from fixer.output.diff import unified_diff
from fixer.syntax import parse_module
from fixer.types import FileResult, Finding, Fix, Position

if TYPE_CHECKING:
    import ast

    from fixer.config import Config

# The blank line after the mark keeps it apart from the cell's first statement: fixes that move
# a statement with the comments just above it must not carry the cell boundary along.
_BOUNDARY = "# distfix-cell {number}\n\n"
_BOUNDARY_LINE = re.compile(r"^# distfix-cell (\d+)$")


def cell_boundaries(text: str) -> int:
    """How many cell boundaries ``text`` (a slice of a notebook's combined module) holds."""
    return sum(1 for line in text.splitlines() if _BOUNDARY_LINE.match(line))


def within_cells(text: str, fix: Fix) -> bool:
    """True when ``fix`` keeps every cell boundary of the combined ``text`` where it is.

    A fix that wraps or removes a boundary (a scope block around code of two cells) cannot be
    written back into the cells: it is left out, and the file's other fixes still apply.
    """
    return all(_marks(text[edit.start : edit.end]) == _marks(edit.content) for edit in fix.edits)


def _marks(text: str) -> list[str]:
    return [line for line in text.splitlines() if _BOUNDARY_LINE.match(line)]


class NotebookError(Exception):
    """The notebook cannot be read or written; the message is one line for the user."""


@dataclass
class Cell:
    """One code cell: its position in the notebook and its masked source lines."""

    number: int  # 1-based index among all cells of the notebook
    original: str
    masked: str
    masked_lines: dict[str, str] = field(default_factory=dict)  # masked line -> original line
    error: tuple[str, int, int] | None = None  # (message, line, column) when it does not parse alone
    indent: str = ""  # the first line's indentation, which IPython removes from every line when it runs the cell


@dataclass
class Notebook:
    """A parsed notebook and the module text built from its code cells."""

    data: dict[str, Any]
    cells: list[Cell]
    combined: str
    starts: list[int]  # for each cell, the combined-text line where its source begins (1-based)
    # CPython's tree of ``combined`` when combining built it: the check takes it instead of parsing
    # the same text again (``check_source(tree=...)``).
    tree: ast.Module | None = field(default=None, compare=False, repr=False)


def _cell_source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    if isinstance(source, list):
        if not all(isinstance(part, str) for part in source):
            raise NotebookError("a cell's source is not text")
        return "".join(source)
    if not isinstance(source, str):
        raise NotebookError("a cell's source is not text")
    return source


def load_notebook(text: str) -> Notebook:
    """Parse notebook JSON and build the combined module; malformed input raises NotebookError."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotebookError(f"malformed notebook: invalid JSON at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotebookError("malformed notebook: no list of cells")
    sources: list[tuple[int, str]] = []
    for number, raw in enumerate(data["cells"], start=1):
        if not isinstance(raw, dict):
            raise NotebookError(f"malformed notebook: cell {number} is not an object")
        if raw.get("cell_type") == "code":
            sources.append((number, _cell_source(raw)))
    return combine_cells(sources, data)


def combine_cells(sources: list[tuple[int, str]], data: dict[str, Any] | None = None) -> Notebook:
    """The combined module of code cells given as (1-based cell number, source), in order.

    Used for notebook files (:func:`load_notebook`) and for the language server's notebook
    documents, whose cells arrive one text document each.
    """
    cells = [_masked_cell(number, source) for number, source in sources]
    combined, starts = _joined(cells)
    tree = _tree(combined)
    joined = "".join(c.masked + "\n" for c in cells)
    if (tree is None or _CONTINUED.search(joined)) and not _parses(joined):
        # One cell that does not parse must not hide the findings of the others: it is left
        # out (commented) and reported on its own.
        cells = [_quarantined(cell) for cell in cells]
        (combined, starts), tree = _joined(cells), None
    return Notebook(data=data if data is not None else {}, cells=cells, combined=combined, starts=starts, tree=tree)


# A backslash that may continue its line onto the next: at the end of a line that is not a comment
# (masked shell lines are; a backslash there continues nothing). Without one, the cells joined with
# their boundary marks (comment and blank lines at line starts) parse exactly when the cells joined
# alone do, so the combined text's tree answers both; tests/test_notebook.py compares the two.
_CONTINUED = re.compile(r"(?m)^(?![ \t\f]*#)[^\r\n]*\\(?:\r|\n|$)")


def _tree(text: str) -> ast.Module | None:
    try:
        return parse_module(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _joined(cells: list[Cell]) -> tuple[str, list[int]]:
    """The combined module of ``cells``, each after its boundary mark, and where each cell's text starts."""
    parts: list[str] = []
    starts: list[int] = []
    line = 1
    for cell in cells:
        number, masked = cell.number, cell.masked
        parts.append(_BOUNDARY.format(number=number))
        line += 2
        starts.append(line)
        body = masked if masked.endswith("\n") or not masked else masked + "\n"
        parts.append(body)
        line += body.count("\n")
    return "".join(parts), starts


def _masked_cell(number: int, source: str) -> Cell:
    dedented, originals = dedent_cell(source)
    masked, masked_lines = mask_cell(dedented)
    # A masked line maps to the dedented line, which maps to the original.
    restore = {**originals, **{k: originals.get(v, v) for k, v in masked_lines.items()}}
    return Cell(number, source, masked, restore, indent=leading_indent(source))


def _parses(text: str) -> bool:
    try:
        parse_module(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _quarantined(cell: Cell) -> Cell:
    """The cell commented out, with the error it has on its own, when it does not parse."""
    try:
        parse_module(cell.masked)
    except SyntaxError as exc:
        masked, lines = quarantine_cell(cell.masked)
        restore = {k: cell.masked_lines.get(v, v) for k, v in lines.items()}
        error = (f"syntax error: {exc.msg}", exc.lineno or 1, exc.offset or 1)
        return replace(cell, masked=masked, masked_lines=restore, error=error)
    except (ValueError, RecursionError, MemoryError):
        masked, lines = quarantine_cell(cell.masked)
        restore = {k: cell.masked_lines.get(v, v) for k, v in lines.items()}
        return replace(cell, masked=masked, masked_lines=restore, error=("could not parse", 1, 1))
    return cell


def cell_errors(notebook: Notebook, path: str) -> list[Finding]:
    """A TFD000 finding for each cell left out because it does not parse on its own."""
    return [
        replace(parse_error_finding(path, cell.error[0], cell.error[1], cell.error[2]), cell=cell.number)
        for cell in notebook.cells
        if cell.error is not None
    ]


def _locate(notebook: Notebook, line: int) -> tuple[int, int]:
    """Map a combined-text line to (cell number, line within the cell)."""
    chosen = 0
    for position, start in enumerate(notebook.starts):
        if start <= line:
            chosen = position
    cell = notebook.cells[chosen]
    return cell.number, max(1, line - notebook.starts[chosen] + 1)


def to_cell(notebook: Notebook, finding: Finding) -> Finding:
    """The finding with its cell number and its position in that cell (its fix keeps only its safety)."""
    cell, line = _locate(notebook, finding.start.line)
    end_cell, end_line = _locate(notebook, finding.end.line)
    end = Position(end_line, finding.end.column) if end_cell == cell else Position(line, finding.start.column)
    # Edits refer to the combined module, not to the notebook file: keep the safety, drop offsets.
    fix = Fix(finding.fix.title, (), finding.fix.applicability) if finding.fix else None
    return replace(finding, start=Position(line, finding.start.column), end=end, cell=cell, fix=fix)


def split_cells(notebook: Notebook, combined: str) -> dict[int, str]:
    """New sources of the cells whose text changed, restoring masked magics."""
    chunks: dict[int, list[str]] = {}
    current: int | None = None
    after_mark = False
    for line in combined.splitlines(keepends=True):
        match = _BOUNDARY_LINE.match(line.rstrip("\r\n"))
        if match:
            current = int(match.group(1))
            chunks[current] = []
            after_mark = True
            continue
        if after_mark and not line.strip("\r\n"):
            after_mark = False
            continue  # the blank line that belongs to the mark
        after_mark = False
        if current is None:
            raise NotebookError("a fix moved code above the first cell; apply it by hand")
        else:
            chunks[current].append(line)
    if sorted(chunks) != sorted(c.number for c in notebook.cells):
        raise NotebookError("a fix would cross cell boundaries; apply it by hand")
    changed: dict[int, str] = {}
    for cell in notebook.cells:
        text = "".join(chunks[cell.number])
        if not cell.masked.endswith("\n") and text.endswith("\n"):
            text = text[:-1]
        if text == cell.masked:
            continue
        restored = _restore(cell, text)
        # Judge the written cell the way it is read (IPython's dedent, magics masked, then parsed):
        # the combined module parsing says nothing about a cell's own indentation.
        if cell.error is None and not _parses(_masked_cell(cell.number, restored).masked):
            raise NotebookError(f"a fix would leave cell {cell.number} not compiling; apply it by hand")
        changed[cell.number] = restored
    return changed


def _restore(cell: Cell, text: str) -> str:
    """A cell's new source from its fixed, masked and dedented text.

    Lines the fix kept map back to their originals (magics, indentation). A line the fix wrote
    gets the indentation IPython removed from the cell, or it would be dedented against the rest.
    """
    as_read = set(cell.masked.split("\n"))
    lines = []
    for line in text.split("\n"):
        if line in cell.masked_lines:
            lines.append(cell.masked_lines[line])
        elif not line.strip() or line in as_read:
            lines.append(line)
        else:
            lines.append(cell.indent + line)
    return "\n".join(lines)


def cell_diff(path: str, before: str, after: str) -> str:
    """Unified diffs (``a/PATH:cell N``) of the cells whose source differs between two notebook texts."""
    try:
        pairs = list(zip(json.loads(before)["cells"], json.loads(after)["cells"], strict=False))
        sources = [(_cell_source(old), _cell_source(new)) for old, new in pairs]
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError, NotebookError):
        return ""
    return "".join(
        unified_diff(f"{path}:cell {number}", old, new)
        for number, (old, new) in enumerate(sources, start=1)
        if old != new
    )


# Item and key separators json.dumps is tried with: None is its default for the indent (", "/": "
# without one, ","/": " with one); "," and ":" is the compact JSON Kaggle saves its notebooks in.
_SEPARATORS: tuple[tuple[str, str] | None, ...] = (None, (",", ":"))


def _layout(text: str, data: dict[str, Any]) -> dict[str, Any] | None:
    """json.dumps settings that reproduce ``text`` exactly, or None for an unusual layout."""
    trailing = text[len(text.rstrip("\n")) :]
    for indent in (1, 2, 4, None):
        for separators in _SEPARATORS:
            for ensure_ascii in (False, True):
                for sort_keys in (False, True):
                    settings: dict[str, Any] = {
                        "indent": indent,
                        "separators": separators,
                        "ensure_ascii": ensure_ascii,
                        "sort_keys": sort_keys,
                    }
                    if json.dumps(data, **settings) + trailing == text:
                        return {**settings, "trailing": trailing}
    return None


def _set_source(cell: dict[str, Any], source: str) -> None:
    if isinstance(cell.get("source"), list):
        cell["source"] = source.splitlines(keepends=True)
    else:
        cell["source"] = source


def analyse_notebook(
    path: str, text: str, config: Config, *, fix: bool, unsafe: bool, prefilter: bool = True
) -> FileResult:
    """Check or fix a notebook's JSON text; a malformed one gives a one-line error.

    Findings are in cell coordinates; ``fixed_text`` is the rewritten notebook JSON. Reading,
    caching and writing are the runner's, as for ``.py`` files.
    """
    try:
        notebook = load_notebook(text)
    except NotebookError as exc:
        return FileResult(path=path, error=str(exc), findings=[parse_error_finding(path, str(exc))])
    # Imported here: these modules build on this one. Written modules' findings are advice (no edits).
    from fixer.notebook_cells import code_sources
    from fixer.tf.project_imports import written_modules_visible
    from fixer.written_modules import check_written_cells, module_sources, written_modules

    cells = code_sources(notebook.data)
    written = written_modules(cells)  # combined once: for the imports and for the checks
    # `import mnist_setup` in the notebook or in another written module reads the cell that writes it.
    with written_modules_visible(module_sources(written)):
        if fix:
            result = fix_source(path, notebook.combined, config, unsafe=unsafe, admits=within_cells)
        else:
            result = check_source(path, notebook.combined, config, prefilter=prefilter, tree=notebook.tree)
        findings = cell_errors(notebook, path) + [to_cell(notebook, f) for f in result.findings]
        dependencies = set(result.dependencies)
        findings += check_written_cells(path, cells, written, config, dependencies)
    out = FileResult(path=path, source=text, findings=findings, error=result.error)
    out.dependencies = tuple(sorted(dependencies))
    out.applied = [to_cell(notebook, f) for f in result.applied]
    out.held_back_unsafe = result.held_back_unsafe
    out.reverted = result.reverted
    if fix and result.fixed_text is not None:
        try:
            out.fixed_text = _rewrite(text, notebook, result.fixed_text)
        except NotebookError as exc:
            out.error = str(exc)
    return out


def _rewrite(text: str, notebook: Notebook, combined: str) -> str:
    layout = _layout(text, notebook.data)
    if layout is None:
        raise NotebookError(
            "the notebook's JSON layout (indentation, separators or key order) is not one json.dumps reproduces;"
            " distfix will not rewrite it: save it from Jupyter and run fix again"
        )
    changed = split_cells(notebook, combined)
    for number, source in changed.items():
        _set_source(notebook.data["cells"][number - 1], source)
    trailing: str = layout.pop("trailing")
    return json.dumps(notebook.data, **layout) + trailing
