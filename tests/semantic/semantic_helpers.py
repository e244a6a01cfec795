"""Build the semantic model of a snippet and name its bindings by line, for readable tests."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from fixer.tf.index import ModuleIndex

if TYPE_CHECKING:
    from fixer.semantic import Binding


class Snippet:
    """A parsed snippet with its semantic model and the line of every node."""

    def __init__(self, source: str) -> None:
        self.module = cst.parse_module(textwrap.dedent(source).lstrip("\n"))
        self.positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        self.index = ModuleIndex.build(self.module)
        self.model = self.index.semantic

    def line(self, node: cst.CSTNode) -> int:
        """The 1-based line ``node`` starts on."""
        return self.positions[node].start.line

    def uses(self, name: str) -> list[cst.Name]:
        """The reads of ``name`` (not its binding targets), in source order."""
        return [n for n in self.index.names[name] if self.model.binding_at(n) is None and n in self.positions]

    def use(self, name: str, line: int) -> cst.Name:
        """The one read of ``name`` on ``line``."""
        found = [n for n in self.uses(name) if self.line(n) == line]
        assert len(found) == 1, f"{len(found)} reads of {name} on line {line}"
        return found[0]

    def reach(self, name: str, line: int) -> list[int]:
        """The lines of the bindings that reach the read of ``name`` on ``line``."""
        return self.lines(self.model.resolve(self.use(name, line)))

    def lines(self, bindings: list[Binding]) -> list[int]:
        """The lines of ``bindings`` (their binding nodes)."""
        return [self.line(b.node) for b in bindings]

    def code(self, node: cst.CSTNode | None) -> str | None:
        """The source of ``node``."""
        return None if node is None else self.module.code_for_node(node)
