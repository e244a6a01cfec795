"""Whether a loop's own target still holds a name where it is read in the loop body."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst

    from fixer.semantic.model import SemanticModel


def loop_variable_reaches(semantic: SemanticModel, use: cst.Name, loop: cst.For) -> bool:
    """``use`` (a read of a name ``loop`` binds as its target, inside the loop) can get the element
    the loop gave: the loop's binding reaches it. False when every path rebinds the name in the body
    first (``for text in batches: text = split(text); step(text)``): the element no longer reaches
    there. True when the model cannot tell (a node it does not know)."""
    found = semantic.resolve(use)
    return not found or any(binding.statement is loop for binding in found)
