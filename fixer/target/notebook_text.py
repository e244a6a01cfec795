"""The container a notebook's text tells readers to run it in: a versioned TensorFlow image named
in a code line of a Markdown cell (`docker run ... nvcr.io/nvidia/merlin/merlin-tensorflow:22.07`).

Like a README's run instructions (fixer/target/readme.py), this is weaker than a pin file: the
model takes it for the notebook's own cells only when the notebook installs no TensorFlow and its
folder's decision comes from no pin file (docs/target.md). Only images count; prose is not read.
"""

from __future__ import annotations

from fixer.notebook_cells import cells_of_type
from fixer.target.readme import code_lines
from fixer.target.sources import Evidence, image_statements, may_name_image, unknown_merlin_release


def markdown_images(data: object, path: str) -> list[Evidence]:
    """The versioned TensorFlow images named in the code of the notebook's Markdown cells."""
    found: list[Evidence] = []
    for number, source, _ in cells_of_type(data, "markdown"):
        if not may_name_image(source):
            continue  # its code lines are pieces of this text joined by spaces: none names an image
        for line, code in code_lines(source):
            if unknown_merlin_release(code):
                continue  # some release: says nothing the folder does not
            found += [
                e
                for e in image_statements(code, path, line, number)
                if e.kind == "tensorflow" and not e.allowed.open_ended
            ]
    return found
