"""A long class re-parsed one member at a time, for the language server's incremental parser.

fixer/incremental.py re-parses only the top-level statements an edit changed; a test class of
800 lines is one statement, and an edit in one of its methods cost a libcst parse of the whole
class and its positions (350-400 ms of server CPU per edit). Here such a class is cut into its
head (decorators, ``class`` line, first member) and its other members (each with the blank and
comment lines above it), each member parsed on its own inside a stand-in ``class _:`` line, so
that its indentation, and every node libcst builds for it, are those of a whole-file parse. The
class is assembled from the parts of the previous version whose text is unchanged and the
parts parsed again: node for node the class a whole-file parse gives (tests/test_incremental.py).

Whenever that is not certain (a comment indented deeper than the members between two of them:
libcst gives it to the block above; tabs; members indented differently), parts are merged or the
class is parsed whole.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

import libcst as cst
from libcst.metadata import CodePosition, CodeRange

from fixer.checked_parse import parse_checked
from fixer.expected_failure import expected_failure_lines
from fixer.positions import positions as positions_of
from fixer.syntax import parse_module
from fixer.tf.index import ModuleIndex

if TYPE_CHECKING:
    from collections.abc import Sequence

# One line with its ending (`\r\n` or `\n`), or the last line without one.
LINE = re.compile(r".*?(?:\r\n|\n)|.+\Z", re.DOTALL)
STAND_IN = "class _:"


class Head(Protocol):
    """What the head of a class needs from a chunk of fixer/incremental.py: the class parsed
    alone with its first member."""

    module: cst.Module
    index: ModuleIndex
    line_count: int

    @property
    def positions(self) -> Mapping[cst.CSTNode, CodeRange]: ...

    @property
    def expected_failures(self) -> frozenset[int]: ...


def cut_class(text: str, tree: tuple[ast.ClassDef, int] | None = None) -> tuple[str, list[str]] | None:
    """The head of a chunk that holds one class, and the text of each further part of its body.

    A part ends with a member's last line and starts after the previous part's; between two parts
    only blank lines and comments at the members' indentation may stand (libcst gives those to
    the member below). None when the chunk is not one class of two parts or more. ``tree`` is
    CPython's tree of the class when the caller has it, with the number of lines parsed before
    the chunk (its line numbers count those too).
    """
    if "\t" in text or "\f" in text:
        return None  # indentation libcst and the whole-file parser may read differently
    if tree is None:
        try:
            module = parse_module(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        if len(module.body) != 1 or not isinstance(module.body[0], ast.ClassDef):
            return None
        tree = module.body[0], 0
    klass, before = tree
    lines = LINE.findall(text)
    if (klass.end_lineno or klass.lineno) - before != len(lines) or len(klass.body) < 2:
        return None  # lines after the class (a file's footer) may belong to its block
    indent: str | None = None
    ends: list[int] = []  # last line of each part
    for member in klass.body:
        decorators = getattr(member, "decorator_list", ())
        start = min([member.lineno, *(d.lineno for d in decorators)]) - before
        end = (member.end_lineno or member.lineno) - before
        first_line = lines[start - 1]
        margin = first_line[: len(first_line) - len(first_line.lstrip(" "))]
        if not ends:
            ends.append(end)  # the head: the class line and its first member
            continue
        if indent is None:
            indent = margin
        gap = lines[ends[-1] : start - 1]
        if start <= ends[-1] or margin != indent or not all(_between_members(line, indent) for line in gap):
            ends[-1] = max(ends[-1], end)  # `a; b` on one line, or lines libcst may give to the member above
        else:
            ends.append(end)
    if len(ends) < 2 or not indent:
        return None
    starts = [0, *ends[:-1]]
    parts = ["".join(lines[start:end]) for start, end in zip(starts, ends, strict=True)]
    return parts[0], parts[1:]


def _between_members(line: str, indent: str) -> bool:
    """A blank line, or a comment at the members' indentation."""
    if line in ("\n", "\r\n"):
        return True
    return line.startswith(indent + "#")


@dataclass(frozen=True)
class Member:
    """Statements of a class body parsed inside the stand-in class, with their index."""

    module: cst.Module  # the stand-in class, holding the statements
    index: ModuleIndex
    text: str
    newline: str
    line_count: int

    @classmethod
    def parse(cls, text: str, newline: str) -> Member | None:
        """Parse the part ``text`` of a class body; None when libcst refuses it.

        ``newline`` is the document's first line ending: libcst takes a module's default from
        it, and spells every other line ending out, so the stand-in line must end the same way.
        """
        try:
            module = parse_checked(STAND_IN + newline + text)
        except Exception:  # any refusal means: parse the class whole
            return None
        if len(module.body) != 1 or module.footer:
            return None
        stand_in = module.body[0]
        if not isinstance(stand_in, cst.ClassDef) or not isinstance(stand_in.body, cst.IndentedBlock):
            return None
        if stand_in.body.footer:
            return None
        try:
            index = ModuleIndex.build(module)
        except RecursionError:
            return None
        return cls(module, index, text, newline, len(LINE.findall(text)))

    @property
    def block(self) -> cst.IndentedBlock:
        """The stand-in class's block."""
        block = self.module.body[0].body  # a ClassDef: checked in parse
        assert isinstance(block, cst.IndentedBlock)
        return block

    @property
    def statements(self) -> Sequence[cst.BaseStatement]:
        """The class body's statements this part holds."""
        return self.block.body

    @cached_property
    def positions(self) -> Mapping[cst.CSTNode, CodeRange]:
        """libcst's positions in the stand-in module (the part's first line is line 2)."""
        return positions_of(self.module)

    @cached_property
    def expected_failures(self) -> frozenset[int]:
        """The part's lines (1-based) inside a test's expected-raise blocks: each such block
        lies inside one statement."""
        lines = expected_failure_lines(STAND_IN + self.newline + self.text)
        return frozenset(line - 1 for line in lines if line > 1)


class ClassChunk:
    """A chunk holding one class, assembled from its head and members: what fixer/incremental.py's
    chunk parsed whole would give, with the same attributes."""

    has_block = True

    def __init__(
        self, text: str, module: cst.Module, index: ModuleIndex, head: Head, members: list[Member], first: bool
    ) -> None:
        self.text = text
        self.first = first  # the document's first chunk (its head holds the file's header)
        self.module = module
        self.index = index
        self.head = head
        self.members = members
        self.line_count = len(LINE.findall(text))

    @classmethod
    def assemble(cls, text: str, head: Head, members: list[Member], first: bool) -> ClassChunk | None:
        """The class of ``head`` with the statements of ``members`` after its first member; None
        when the parts do not fit together as a whole-file parse would."""
        if len(head.module.body) != 1 or head.module.footer:
            return None
        klass = head.module.body[0]
        if not isinstance(klass, cst.ClassDef) or not isinstance(klass.body, cst.IndentedBlock) or klass.body.footer:
            return None
        if any(member.module.default_indent != head.module.default_indent for member in members):
            return None  # libcst would spell the odd blocks' indentation out
        block = klass.body
        new_block = block.with_changes(body=[*block.body, *(s for member in members for s in member.statements)])
        new_class = klass.with_changes(body=new_block)
        module = head.module.with_changes(body=[new_class])
        renamed: dict[cst.CSTNode, cst.CSTNode] = {head.module: module, klass: new_class, block: new_block}
        parts: list[tuple[ModuleIndex, int, Mapping[cst.CSTNode, cst.CSTNode]]] = [(head.index, 0, renamed)]
        for member in members:
            # The stand-in class and its lines are left out; its statements move to the class.
            stand_in: dict[cst.CSTNode, cst.CSTNode] = {member.block: new_block}
            parts.append((member.index, member.index.order[member.statements[0]], stand_in))
        index = ModuleIndex.join(parts)
        return cls(text, module, index, head, members, first)

    @cached_property
    def positions(self) -> Mapping[cst.CSTNode, CodeRange]:
        """Positions from each part's own, shifted to the chunk's lines."""
        return _ClassPositions(self)

    @cached_property
    def expected_failures(self) -> frozenset[int]:
        """The chunk's expected-failure lines (1-based), from each part's."""
        lines = set(self.head.expected_failures)
        offset = self.head.line_count
        for member in self.members:
            lines.update(line + offset for line in member.expected_failures)
            offset += member.line_count
        return frozenset(lines)

    def children(self) -> Iterator[cst.CSTNode]:
        """The nodes directly below the chunk's module: header lines, the class, footer lines."""
        yield from self.module.header
        yield from self.module.body
        yield from self.module.footer


class _ClassPositions(Mapping[cst.CSTNode, CodeRange]):
    """A class chunk's positions: a member's nodes from its part, shifted; the class header's
    from the head; the rebuilt class and block (rarely asked) from the whole chunk."""

    def __init__(self, chunk: ClassChunk) -> None:
        self._chunk = chunk
        self._parent = chunk.index.parent
        self._owner: dict[cst.CSTNode, tuple[Member, int]] = {}
        offset = chunk.head.line_count
        for member in chunk.members:
            for statement in member.statements:
                self._owner[statement] = (member, offset - 1)  # the stand-in line is line 1
            offset += member.line_count
        klass = chunk.module.body[0]
        assert isinstance(klass, cst.ClassDef)
        self._rebuilt = {chunk.module, klass, klass.body}
        self._whole: Mapping[cst.CSTNode, CodeRange] | None = None

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        if node in self._rebuilt:
            if self._whole is None:
                self._whole = positions_of(self._chunk.module)
            return self._whole[node]
        current: cst.CSTNode | None = node
        while current is not None and current not in self._owner:
            current = self._parent.get(current)
        if current is None:
            return self._chunk.head.positions[node]
        member, offset = self._owner[current]
        found = member.positions[node]
        return CodeRange(
            CodePosition(found.start.line + offset, found.start.column),
            CodePosition(found.end.line + offset, found.end.column),
        )

    def __iter__(self) -> Iterator[cst.CSTNode]:
        return iter(self._chunk.index.order)

    def __len__(self) -> int:
        return len(self._chunk.index.order)
