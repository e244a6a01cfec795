"""Node positions of a libcst module: of one statement at a time, or of the whole module.

libcst computes positions by generating the code of the whole module and recording where each
node's text falls. On a large file that costs more than parsing it (11.1 s against 8.6 s for
the 168 tf-keras files the pre-filter keeps), while a rule run asks for the positions of a few
nodes. :class:`StatementPositions` generates only the statement that holds the node asked for:
the innermost statement of a block, whose first line CPython's ``ast`` already knows.

``MetadataWrapper.resolve(PositionProvider)`` also runs a batched visit of the whole module
first, even when no batchable provider is needed, and libcst's visit rebuilds every node it
passes (about 45 % of the call on tf-keras' training_test.py); :func:`positions` asks the
provider itself, which gives the same mapping.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from typing import cast

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from fixer.syntax import parse_module
from fixer.textmap import TextMap

try:  # the state libcst's PositionProvider generates code with (not part of its public API)
    from libcst.metadata.position_provider import PositionProvidingCodegenState
except ImportError:  # pragma: no cover - another libcst: every file takes the whole-module path
    PositionProvidingCodegenState = None  # type: ignore[assignment,misc]

# What CPython's ast counts as one statement, as libcst spells it: each small statement of a
# line (`a = 1; b = 2` is two) and each compound statement, `elif` included (ast nests it in
# `orelse` as an `If`).
_STATEMENT_TYPES = (cst.BaseSmallStatement, cst.BaseCompoundStatement)
_AST_CONTAINERS = (ast.stmt, ast.excepthandler, ast.match_case)
_AST_NAMES = {"Del": "Delete"}  # where the two spell a statement differently


def positions(module: cst.Module) -> Mapping[cst.CSTNode, CodeRange]:
    """libcst's ``PositionProvider`` ranges of every node of ``module`` (1-based lines, 0-based columns)."""
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    generate = getattr(PositionProvider(), "_gen", None)
    if generate is None:  # a libcst without the provider's own entry point: the public way
        return wrapper.resolve(PositionProvider)
    found: Mapping[cst.CSTNode, CodeRange] = generate(wrapper)
    return found


class StatementPositions(Mapping[cst.CSTNode, CodeRange]):
    """The positions :func:`positions` gives, computed one statement at a time as they are asked for.

    A node's range is found by generating the code of the innermost statement that sits in a
    block and holds it, with the indentation of the blocks around it, starting at the line
    CPython's ``ast`` gives for that statement. The generated text is compared with the file's
    text at that place; when they differ (or the node lies outside every statement, or the two
    parsers disagree on the statements), the whole module's positions are computed instead, so
    the answer is always libcst's own.
    """

    def __init__(
        self,
        module: cst.Module,
        parent: Mapping[cst.CSTNode, cst.CSTNode],
        nodes: Iterable[cst.CSTNode],
        text: str,
        tree: ast.Module | None = None,
    ) -> None:
        """``parent`` and ``nodes`` (every node in pre-order) come from the module's index;
        ``text`` is the text libcst parsed and ``tree`` CPython's tree of it, if already built."""
        self._module = module
        self._parent = parent
        self._nodes = nodes
        self._text = text
        self._tree = tree
        # Each generated statement's ranges as generated (from line 1), and the lines to add.
        self._generated: dict[cst.BaseStatement, tuple[dict[cst.CSTNode, CodeRange], int]] = {}
        self._whole: Mapping[cst.CSTNode, CodeRange] | None = None
        self._spans: dict[cst.CSTNode, tuple[int, int]] | None = None
        self._textmap: TextMap | None = None

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        if self._whole is None:
            innermost = None
            for statement in self._statements_holding(node):
                generated = self._generated.get(statement)
                if generated is not None:
                    return _shifted(generated[0][node], generated[1])
                innermost = innermost or statement
            if innermost is not None and self._generate(innermost):
                computed, shift = self._generated[innermost]
                return _shifted(computed[node], shift)
            self._whole = positions(self._module)
        return self._whole[node]

    def __iter__(self) -> Iterator[cst.CSTNode]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def line_span(self, statement: cst.BaseStatement) -> tuple[int, int]:
        """First and last line of a statement of a block, from CPython's tree when it has them:
        the lines of its range, found without generating its code."""
        first = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else statement
        last = statement.body[-1] if isinstance(statement, cst.SimpleStatementLine) else statement
        spans = self._statement_spans()
        if first in spans and last in spans:
            return spans[first][0], spans[last][1]
        found = self[statement]
        return found.start.line, found.end.line

    def _all(self) -> Mapping[cst.CSTNode, CodeRange]:
        if self._whole is None:
            self._whole = positions(self._module)
        return self._whole

    def _statements_holding(self, node: cst.CSTNode) -> Iterator[cst.BaseStatement]:
        """The statements of blocks (or of the module's body) that hold ``node``, innermost first."""
        current = node
        parent = self._parent.get(current)
        while parent is not None:
            if isinstance(parent, (cst.IndentedBlock, cst.Module)) and isinstance(current, cst.BaseStatement):
                yield current
            current, parent = parent, self._parent.get(parent)

    def _generate(self, statement: cst.BaseStatement) -> bool:
        """Generate the code of ``statement`` and keep its ranges; False when they cannot be placed."""
        if PositionProvidingCodegenState is None:
            return False
        first = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else statement
        span = self._statement_spans().get(first)
        if span is None:
            return False
        provider = PositionProvider()
        state = PositionProvidingCodegenState(
            default_indent=self._module.default_indent,
            default_newline=self._module.default_newline,
            provider=provider,
        )
        state.indent_tokens = self._indentation(statement)
        statement._codegen(state)
        # The provider stores each node's CodeRange itself (no lazy values) while it generates.
        computed = cast("dict[cst.CSTNode, CodeRange]", provider._computed)
        shift = span[0] - computed[statement].start.line
        if not self._text_matches(shift, "".join(state.tokens)):
            return False
        self._generated[statement] = (computed, shift)
        return True

    def _indentation(self, statement: cst.BaseStatement) -> list[str]:
        """The indentation libcst's code generation holds when it reaches ``statement``."""
        indents = []
        parent = self._parent.get(statement)
        while parent is not None:
            # The two nodes whose code generation indents what they hold (`match` its cases).
            if isinstance(parent, (cst.IndentedBlock, cst.Match)):
                indents.append(self._module.default_indent if parent.indent is None else parent.indent)
            parent = self._parent.get(parent)
        return indents[::-1]

    def _text_matches(self, shift: int, code: str) -> bool:
        """True when the file's text holds ``code`` from the start of line ``1 + shift``."""
        if self._textmap is None:
            self._textmap = TextMap(self._text)
        starts = self._textmap.line_starts
        if not 0 <= shift < len(starts):
            return False
        start = starts[shift]
        if self._text.startswith(code, start):
            return True
        # The last statement of a file without a final line break: libcst generates one.
        rest = self._text[start:]
        return code.startswith(rest) and code[len(rest) :] in ("\n", "\r\n", "\r")

    def _statement_spans(self) -> dict[cst.CSTNode, tuple[int, int]]:
        """First and last line of every libcst statement, from CPython's tree ({} when the two disagree)."""
        if self._spans is None:
            self._spans = _statement_spans(self._nodes, self._tree or parse_module(self._text))
        return self._spans


def line_span(positions: Mapping[cst.CSTNode, CodeRange], statement: cst.BaseStatement) -> tuple[int, int]:
    """First and last line of ``statement`` (of a block) in ``positions``, cheaply when they are
    :class:`StatementPositions`."""
    if isinstance(positions, StatementPositions):
        return positions.line_span(statement)
    found = positions[statement]
    return found.start.line, found.end.line


def _shifted(found: CodeRange, lines: int) -> CodeRange:
    if not lines:
        return found
    return CodeRange(
        CodePosition(found.start.line + lines, found.start.column),
        CodePosition(found.end.line + lines, found.end.column),
    )


def _statement_spans(nodes: Iterable[cst.CSTNode], tree: ast.Module) -> dict[cst.CSTNode, tuple[int, int]]:
    ours = [node for node in nodes if _is_statement_class(type(node))]
    theirs = _ast_statements(tree)
    if len(ours) != len(theirs):
        return {}
    lines: dict[cst.CSTNode, tuple[int, int]] = {}
    for node, statement in zip(ours, theirs, strict=True):
        name = _AST_NAMES.get(type(node).__name__, type(node).__name__)
        if type(statement).__name__ not in (name, "Async" + name):
            return {}
        lines[node] = (statement.lineno, statement.end_lineno or statement.lineno)
    return lines


# By node class: libcst's statement bases are abstract classes, whose isinstance checks cost
# about ten times a plain one, and this test runs once per node of the file.
_STATEMENT_CLASSES: dict[type, bool] = {}


def _is_statement_class(kind: type) -> bool:
    known = _STATEMENT_CLASSES.get(kind)
    if known is None:
        known = _STATEMENT_CLASSES[kind] = issubclass(kind, _STATEMENT_TYPES)
    return known


def _ast_statements(tree: ast.Module) -> list[ast.stmt]:
    """Every statement of ``tree`` in source order (pre-order, as libcst's index lists nodes)."""
    found: list[ast.stmt] = []
    stack: list[ast.AST] = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.stmt):
            found.append(node)
        children: list[ast.AST] = []
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                children.extend(item for item in value if isinstance(item, _AST_CONTAINERS))
        stack.extend(reversed(children))
    return found
