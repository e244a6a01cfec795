"""Where one program ends in a script that holds several (reproductions pasted one after another).

Collections of issue reproductions and copied answers paste whole programs into one file: each
starts again with its imports. What one program does (start worker processes) says nothing about
another, so facts that hold "later in the file" hold only up to the next program's start.

A new program starts at a top-level run of imports that imports a module an earlier run already
imported (`import tensorflow as tf` again), and after a top-level `if __name__ == "__main__":`
block (the end of the program it runs). A first import of a module further down (`import
subprocess` before starting workers) is the same program. A notebook is one program: its cells
share one kernel, so the caller does not split it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from fixer.tf.index import ModuleIndex


class Programs:
    """The programs of one module, as ranges of its top-level statements."""

    def __init__(self, module: cst.Module, index: ModuleIndex) -> None:
        self._index = index
        self._module = module
        self._position = {id(statement): position for position, statement in enumerate(module.body)}
        self._starts = _program_starts(list(module.body))

    def program_of(self, node: cst.CSTNode) -> int:
        """The number of the program ``node`` belongs to (0 for the first)."""
        position = self._position.get(id(self._top_level(node)), 0)
        return sum(1 for start in self._starts if start <= position)

    def same_program(self, first: cst.CSTNode, second: cst.CSTNode) -> bool:
        """``first`` and ``second`` belong to the same pasted program."""
        return self.program_of(first) == self.program_of(second)

    def _top_level(self, node: cst.CSTNode) -> cst.CSTNode:
        """The module-level statement that holds ``node``."""
        top = node
        for ancestor in self._index.ancestors(node):
            if ancestor is self._module:
                return top
            top = ancestor
        return top


def _program_starts(body: list[cst.BaseStatement]) -> list[int]:
    """Positions of the top-level statements that start a program after the first."""
    starts: set[int] = set()
    imported: set[str] = set()  # by the earlier runs of imports of the current program
    run: set[str] = set()  # by the current run
    run_start: int | None = None
    for position, statement in enumerate(body):
        modules = _imported_modules(statement)
        if modules is None:
            imported |= run
            run, run_start = set(), None
            continue
        if run_start is None:
            run_start = position
        if modules & imported and run_start > 0:
            starts.add(run_start)  # this run imports again what the program above imported
            imported = set()
        run |= modules
    starts.update(position + 1 for position, statement in enumerate(body[:-1]) if _is_main_block(statement))
    return sorted(starts)


def _imported_modules(statement: cst.BaseStatement) -> set[str] | None:
    """The modules an import statement imports (`import a.b as c` and `from a.b import c`: `a.b`),
    or None for any other statement."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return None
    modules: set[str] = set()
    for small in statement.body:
        if isinstance(small, cst.Import):
            modules.update(_dotted(alias.name) for alias in small.names)
        elif isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
            modules.add(_dotted(small.module))
        else:
            return None
    return modules


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return node.value if isinstance(node, cst.Name) else ""


def _is_main_block(statement: cst.BaseStatement) -> bool:
    """``if __name__ == "__main__":`` at the top level."""
    if not isinstance(statement, cst.If) or statement.orelse is not None:
        return False
    test = statement.test
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    sides = (test.left, test.comparisons[0].comparator)
    return (
        isinstance(test.comparisons[0].operator, cst.Equal)
        and any(isinstance(side, cst.Name) and side.value == "__name__" for side in sides)
        and any(isinstance(side, cst.SimpleString) and side.evaluated_value == "__main__" for side in sides)
    )
