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
or a family (`2.x`) says nothing.

A library's table of supported frameworks has one row per framework instead:

    | Framework | Versions |
    | --- | --- |
    | [TensorFlow](docs/tensorflow.md) | 1.13, 1.14, 1.15, 2.1.0, 2.2.0, 2.3.0, 2.3.1 |

Under a header of exactly "Framework(s)" and "Version(s)", the row whose first cell is TensorFlow
(a link's text counts) lists the releases the library supports; its TensorFlow 2 releases are
statements as a column's are (its 1.x ones are another program's: TF 2 code does not run there),
and only when the cell is nothing but a list of releases. Read as text.
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
_FRAMEWORK_HEADER = re.compile(r"(?i)^frameworks?$")
_VERSIONS_HEADER = re.compile(r"(?i)^versions?$")
_TENSORFLOW_CELL = re.compile(r"(?i)^(?:tensorflow|\[tensorflow\]\([^)\s]*\))$")
# A cell of releases of any major: `1.13, 1.15, 2.1.0, 2.3.1`.
_ANY_RELEASES = re.compile(r"^\s*v?[12]\.\d{1,2}(?:\.\d+)?(?:\s*[,/]\s*v?[12]\.\d{1,2}(?:\.\d+)?)*\s*$")
_RELEASE_2 = re.compile(r"(?<![\d.])(?P<major>2)\.(?P<minor>\d{1,2})")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def version_table_statements(text: str, path: str) -> list[Evidence]:
    """The TensorFlow 2 releases of each row of a table whose column is headed "TensorFlow Version(s)",
    and of the TensorFlow row of a "Framework | Version(s)" table."""
    found: list[Evidence] = []
    column: int | None = None  # the TensorFlow column of the table being read
    versions: int | None = None  # the versions column of a table of frameworks, one per row
    for number, line, _ in prose_lines(text):
        if not line.lstrip().startswith("|"):
            column = versions = None  # the table ended
            continue
        cells = _cells(line)
        header = next((i for i, cell in enumerate(cells) if _HEADER.match(cell)), None)
        if header is not None:
            column = header
        elif _FRAMEWORK_HEADER.match(cells[0]) and any(_VERSIONS_HEADER.match(cell) for cell in cells):
            versions = next(i for i, cell in enumerate(cells) if _VERSIONS_HEADER.match(cell))
        elif versions is not None and versions < len(cells) and _TENSORFLOW_CELL.match(cells[0]):
            if _ANY_RELEASES.match(cells[versions]):
                found += [
                    Evidence("tensorflow", exactly((2, int(m.group("minor")))), path, number, line.strip())
                    for m in _RELEASE_2.finditer(cells[versions])
                ]
        elif column is not None and not _SEPARATOR.match(line) and column < len(cells):
            if _RELEASES.match(cells[column]):
                found += [
                    Evidence("tensorflow", exactly((2, int(m.group("minor")))), path, number, line.strip())
                    for m in _RELEASE.finditer(cells[column])
                ]
    return found
