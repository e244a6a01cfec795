"""The TensorFlow release a notebook states as its own: its headings and its saved output agree.

A saved output printing TensorFlow's version states a past run (fixer/target/saved_runs.py): the
kernel may have any TensorFlow 2 today. A heading naming a release ("MNIST with ipcmagic and
TensorFlow-2.3") may be aspirational, or stale. When the two independent statements agree (the
headings name one X.Y release and every saved output printing TensorFlow's version prints that
X.Y), the notebook was written for that release and ran on it: the release is its target, as a pin
would be (docs/target.md, "A notebook's title and saved output"). A heading alone, an output alone,
or the two disagreeing keep the saved-run reading.

Headings are a Markdown cell's ATX or underlined headings, and the first line of the notebook's
first cell when it is Markdown (a title cell). Only TensorFlow 2 releases are read: a printed 1.x
is already the notebook's statement (fixer/target/notebook.py). Read as text (never executed).
"""

from __future__ import annotations

from fixer.notebook_cells import cells_of_type
from fixer.target.markdown import is_heading, prose_lines
from fixer.target.readme_title import named_release
from fixer.target.saved_runs import printed_version
from fixer.target.sources import Evidence, exactly


def _headings(data: object) -> list[tuple[int, int, str]]:
    """(cell number, line number in the cell, line) of each heading of the Markdown cells, and of
    the first line of the first cell when that cell is Markdown."""
    found: list[tuple[int, int, str]] = []
    for cell, source, _ in cells_of_type(data, "markdown"):
        first = next((n for n, line in enumerate(source.splitlines(), 1) if line.strip()), None)
        for number, line, following in prose_lines(source):
            if is_heading(line, following) or (cell == 1 and number == first):
                found.append((cell, number, line))
    return found


def stated_release(data: object, code: list[tuple[int, str, dict[str, object]]], path: str) -> Evidence | None:
    """The TF 2 release the notebook JSON ``data`` (at ``path``; ``code``: its `code_cells`) states
    by headings and saved output agreeing; None when either is missing, names several releases,
    or they differ."""
    named = [
        (cell, number, line, release)
        for cell, number, line in _headings(data)
        if (release := named_release(line, abbreviated=True)) is not None
    ]
    printed = {version for _, source, saved in code if (version := printed_version(saved, source)) is not None}
    releases = {entry[3] for entry in named}
    if len(releases) != 1 or printed != releases:
        return None
    cell, number, line, release = named[0]
    if release[0] != 2:
        return None
    said = f"{line.strip()}  # saved output: {release[0]}.{release[1]}"
    return Evidence("tensorflow", exactly(release), path, number, said, cell=cell)
