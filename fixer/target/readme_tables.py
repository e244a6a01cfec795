"""A README table with a TensorFlow version column: the releases a model was validated on.

    | Validated on | SynapseAI Version | TensorFlow Version(s) | Mode     |
    |:------------:|:-----------------:|:---------------------:|:--------:|
    | Gaudi        | 1.10.0            | 2.12.0                | Training |

A vendor's reference model (Habana's Model-References) states the TensorFlow it runs on only in
such a table, its requirements file naming other packages. Each release in the column's cells is a
README statement (weaker than a pin file beside it); several rows are several statements and the
oldest decides, as for several images (the code must run on each). Only a column whose header
is "TensorFlow Version" / "TensorFlow Version(s)" / "TensorFlow Versions" counts, and only cells
that are TensorFlow 2 releases (`2.12.0`, `2.13`): a table without that header, a range (`>= 2.12`)
or a family (`2.x`) says nothing. Read as text.
"""

from __future__ import annotations

import re

from fixer.target.markdown import prose_lines
from fixer.target.sources import Evidence, exactly

_HEADER = re.compile(r"(?i)^\W*tensorflow\s+versions?(?:\s*\(s\))?\W*$")
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
# A cell of releases: `2.12.0`, `2.12`, `2.12.0, 2.13.0`, `2.12.0 / 2.13.0`.
_RELEASES = re.compile(r"^\s*v?2\.\d{1,2}(?:\.\d+)?(?:\s*[,/]\s*v?2\.\d{1,2}(?:\.\d+)?)*\s*$")
_RELEASE = re.compile(r"(?P<major>2)\.(?P<minor>\d{1,2})")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def version_table_statements(text: str, path: str) -> list[Evidence]:
    """The TensorFlow 2 releases of each row of a table whose column is headed "TensorFlow Version(s)"."""
    found: list[Evidence] = []
    column: int | None = None  # the TensorFlow column of the table being read
    for number, line, _ in prose_lines(text):
        if not line.lstrip().startswith("|"):
            column = None  # the table ended
            continue
        cells = _cells(line)
        header = next((i for i, cell in enumerate(cells) if _HEADER.match(cell)), None)
        if header is not None:
            column = header
        elif column is not None and not _SEPARATOR.match(line) and column < len(cells):
            if _RELEASES.match(cells[column]):
                found += [
                    Evidence("tensorflow", exactly((2, int(m.group("minor")))), path, number, line.strip())
                    for m in _RELEASE.finditer(cells[column])
                ]
    return found
