"""Re-parsing a document that is edited over and over, one top-level statement at a time.

The language server checks a document after every keystroke. Parsing 2,000 lines with libcst,
indexing them and computing positions costs about half a second, while an edit usually changes
one top-level statement. :class:`DocumentParser` splits the text into chunks at top-level
statement boundaries (found with Python's own parser, about 15 times faster than libcst), keeps
the tree, index and positions of every chunk of the previous version, and parses only the chunks
whose text is new. The module it assembles is the one a whole-file parse gives, node for node
(``tests/test_incremental.py`` compares them), so rules cannot tell the difference.

Whenever that equivalence is not certain (a syntax error, mixed line endings or indentation, a
comment that libcst would attach to the block above), it parses the whole file instead.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import CodePosition, CodeRange

from fixer.checked_parse import parse_checked
from fixer.class_members import LINE, ClassChunk, Member, cut_class
from fixer.engine import ParsedSource, may_be_too_complex, parse_source
from fixer.expected_failure import expected_failure_lines
from fixer.positions import positions as positions_of
from fixer.syntax import parse_module
from fixer.tf.index import ModuleIndex

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from fixer.types import Finding

# Between two chunks only blank lines and comments in column 0 may stand: libcst gives those to
# the next statement. Anything indented may belong to the block above (its footer), so no split.
_SPLITTABLE_GAP = re.compile(r"(?:#[^\r\n]*)?\r?\n\Z")


@dataclass(frozen=True)
class _Chunk:
    """One chunk parsed on its own: its statements, their index and (on first use) their positions."""

    module: cst.Module
    index: ModuleIndex
    line_count: int
    has_block: bool  # holds an indented block, so libcst detected the file's indentation here
    text: str

    @cached_property
    def positions(self) -> Mapping[cst.CSTNode, CodeRange]:
        """libcst's positions of the chunk's nodes, computed when a rule or a finding first asks.

        They cost a code generation of the chunk; on a document's first version that was about
        0.5 s of a 2,000-line file, most of it for statements no finding or rule looks at.
        """
        return positions_of(self.module)

    @cached_property
    def expected_failures(self) -> frozenset[int]:
        """The chunk's lines (1-based, from its first line) inside a test's expected-raise
        blocks: complete top-level statements hold every such block whole, so the file's lines
        are each chunk's, shifted (fixer/expected_failure.py)."""
        return expected_failure_lines(self.text)

    @classmethod
    def parse(cls, text: str, first: bool) -> _Chunk | None:
        """Parse one chunk; None when libcst refuses it (the caller then parses the whole file)."""
        try:
            module = parse_checked(text)
        except Exception:  # any refusal means: do not trust the split, parse the whole text
            return None
        if not module.body:
            return None
        if not first and module.header:
            # Alone, a chunk's leading comments and blank lines are a module header; in the file
            # they are the first statement's leading lines.
            head = module.body[0]
            head = head.with_changes(leading_lines=[*module.header, *head.leading_lines])
            module = module.with_changes(header=(), body=[head, *module.body[1:]])
        try:
            index = ModuleIndex.build(module)
        except RecursionError:
            return None
        has_block = any(type(node) is cst.IndentedBlock for node in index.order)
        return cls(module, index, len(LINE.findall(text)), has_block, text)

    def children(self) -> Iterator[cst.CSTNode]:
        """The nodes directly below the chunk's module: header lines, statements, footer lines."""
        yield from self.module.header
        yield from self.module.body
        yield from self.module.footer


def split_chunks(text: str) -> list[str] | None:
    """The text cut into chunks of whole lines, each ending with a top-level statement.

    The first chunk also holds the file's header, the last one its footer. None when the text
    does not parse or cannot be split safely.
    """
    split = _split_chunks(text)
    return split[0] if split is not None else None


# A chunk that holds one class: CPython's tree of it, and the lines of the text parsed before it
# (its lines are the tree's, less these), so that fixer/class_members.py need not parse it again.
ClassTrees = dict[int, tuple[ast.ClassDef, int]]


def _split_chunks(text: str) -> tuple[list[str], ClassTrees] | None:
    """:func:`split_chunks`, and the tree of each chunk that holds one class, by chunk number."""
    split = _split(text)
    if split is None:
        return None
    lines, ends, groups = split
    ends[-1] = len(lines)
    return _cut(lines, ends), _class_trees(groups, ends)


def _split(text: str) -> tuple[list[str], list[int], list[list[ast.stmt]]] | None:
    """The lines of ``text``, the last line of each chunk (trailing lines not included), and
    each chunk's statements."""
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        return None  # lone carriage returns: Python and our line split would count lines apart
    try:
        tree = parse_module(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = LINE.findall(text)
    ends: list[int] = []  # last line of each chunk
    groups: list[list[ast.stmt]] = []
    for statement in tree.body:
        decorators = getattr(statement, "decorator_list", ())
        start = min([statement.lineno, *(d.lineno for d in decorators)])
        end = statement.end_lineno or statement.lineno
        gap = lines[ends[-1] : start - 1] if ends else []
        if ends and (start <= ends[-1] or not all(_SPLITTABLE_GAP.match(line) for line in gap)):
            ends[-1] = max(ends[-1], end)  # `a; b` on one line, or a gap libcst may attach above
            groups[-1].append(statement)
        else:
            ends.append(end)
            groups.append([statement])
    return (lines, ends, groups) if ends else None


def _class_trees(groups: list[list[ast.stmt]], ends: list[int], first: int = 0) -> ClassTrees:
    """The chunks (numbered from ``first``) that hold one class statement, with its tree."""
    starts = [0, *ends[:-1]]
    return {
        first + number: (group[0], start)
        for number, (group, start) in enumerate(zip(groups, starts, strict=True))
        if len(group) == 1 and isinstance(group[0], ast.ClassDef)
    }


def _cut(lines: list[str], ends: list[int]) -> list[str]:
    starts = [0, *ends[:-1]]
    return ["".join(lines[start:end]) for start, end in zip(starts, ends, strict=True)]


def _starts_after_a_gap(chunk: str) -> bool:
    """True when the lines before the chunk's first statement may stand between two chunks."""
    for match in LINE.finditer(chunk):
        line = match.group()
        if not _SPLITTABLE_GAP.match(line):
            return not line[:1].isspace()
    return True


def resplit(previous: list[str], text: str) -> list[str] | None:
    """The chunks of ``text``, re-splitting only what changed since it was cut into ``previous``.

    The chunks at both ends whose text is unchanged are kept as they were; only the text between
    them goes through Python's parser. None when that is not certain to equal
    :func:`split_chunks` (the caller then splits the whole text).
    """
    split = _resplit(previous, text)
    return split[0] if split is not None else None


def _resplit(previous: list[str], text: str) -> tuple[list[str], ClassTrees] | None:
    """:func:`resplit`, and the tree of each re-split chunk that holds one class."""
    head, start = 0, 0
    # The last chunk may end with the file's footer lines: it is kept only as the last chunk.
    while head < len(previous) - 1 and text.startswith(previous[head], start):
        start += len(previous[head])
        head += 1
    tail, end = len(previous), len(text)
    while tail > head and text.endswith(previous[tail - 1], start, end):
        begin = end - len(previous[tail - 1])
        if begin > 0 and text[begin - 1] != "\n":
            break  # a chunk starts a line: text typed just before it belongs to its first line
        tail, end = tail - 1, begin
    if start < end and tail < len(previous):
        # Re-split the first unchanged chunk too: comment lines typed just above it are its own.
        end += len(previous[tail])
        tail += 1
    kept_head, kept_tail = previous[:head], previous[tail:]
    middle: list[str] = []
    classes: ClassTrees = {}
    if start < end:
        split = _split(text[start:end])
        if split is None:
            return None
        lines, ends, groups = split
        if kept_tail and ends[-1] != len(lines):
            return None  # trailing comments would belong to the next chunk
        ends[-1] = len(lines)
        middle = _cut(lines, ends)
        classes = _class_trees(groups, ends, first=len(kept_head))
    chunks = [*kept_head, *middle, *kept_tail]
    joins = [len(kept_head)] if kept_head else []
    if kept_tail and (kept_head or middle):
        joins.append(len(chunks) - len(kept_tail))
    if not chunks or not all(_starts_after_a_gap(chunks[j]) for j in joins if j < len(chunks)):
        return None
    return chunks, classes


class DocumentParser:
    """Parses successive versions of one document, reusing the chunks that did not change, and
    the members of a long class that did not (fixer/class_members.py)."""

    def __init__(self) -> None:
        self._chunks: dict[tuple[str, int, bool], _Chunk | ClassChunk] = {}
        self._texts: list[str] = []  # the chunk texts of the previous version
        # The previous version's chunk trees and indexes, and their merged parent table: the next
        # merge corrects it for the chunks that changed (ModuleIndex.combine). The table only, not
        # the merged index: that holds the analysis' semantic model and caches, which are garbage
        # once the analysis is done (kept, they would outlive a collection and make later ones dear).
        self._merged: tuple[list[tuple[cst.Module, ModuleIndex]], dict[cst.CSTNode, cst.CSTNode]] | None = None

    def parse(self, path: str, text: str) -> ParsedSource | Finding:
        """The parsed document, as :func:`fixer.engine.parse_source` would give it."""
        self._merged, merged = None, self._merged  # kept only when this version is assembled too
        if may_be_too_complex(text):
            self._chunks, self._texts = {}, []
            return parse_source(path, text)  # it refuses what would crash libcst before parsing chunks
        split = (_resplit(self._texts, text) if self._texts else None) or _split_chunks(text)
        chunks = self._chunks_of(*split, _first_newline(text)) if split is not None else None
        self._texts = split[0] if chunks is not None and split is not None else []
        if chunks is None:
            self._chunks = {}
            return parse_source(path, text)
        block_indents = {c.module.default_indent for c in chunks if c.has_block}
        if len(block_indents) > 1:
            return parse_source(path, text)  # libcst would record the odd blocks' indentation
        first, last = chunks[0].module, chunks[-1].module
        module = cst.Module(
            body=[statement for chunk in chunks for statement in chunk.module.body],
            header=first.header,
            footer=last.footer,
            encoding=first.encoding,
            default_indent=block_indents.pop() if block_indents else first.default_indent,
            default_newline=first.default_newline,
            has_trailing_newline=last.has_trailing_newline,
        )
        parts = [(c.module, c.index) for c in chunks]
        index = ModuleIndex.combine(module, parts, merged)
        self._merged = (parts, index.parent)
        return ParsedSource(
            module, index, ChunkPositions(module, index, chunks), expected_failures=_expected_failures(chunks)
        )

    def _chunks_of(self, texts: list[str], classes: ClassTrees, newline: str) -> list[_Chunk | ClassChunk] | None:
        """The chunk for each text, from the previous version where the text is unchanged;
        ``classes``: the trees of the chunks that hold one class (for those not kept)."""
        seen: Counter[str] = Counter()
        keys: list[tuple[str, int, bool]] = []
        for number, chunk_text in enumerate(texts):
            # Equal texts get distinct keys (and trees): rules key their tables on node identity.
            keys.append((chunk_text, seen[chunk_text], number == 0))
            seen[chunk_text] += 1
        kept = {key: self._chunks[key] for key in keys if key in self._chunks}
        in_use = {id(chunk) for chunk in kept.values()}
        spare = _Parts(chunk for chunk in self._chunks.values() if id(chunk) not in in_use)
        chunks: list[_Chunk | ClassChunk] = []
        for number, key in enumerate(keys):
            chunk = kept.get(key) or _parse_chunk(key[0], key[2], newline, spare, classes.get(number))
            if chunk is None:
                return None
            chunks.append(chunk)
        self._chunks = dict(zip(keys, chunks, strict=True))
        return chunks


def _first_newline(text: str) -> str:
    """The document's first line ending, which libcst takes as the module's default."""
    end = text.find("\n")
    return "\r\n" if end > 0 and text[end - 1] == "\r" else "\n"


class _Parts:
    """The heads and members of the previous version's classes that no kept chunk holds: an
    edited class takes those whose text is unchanged (each part stands in one place only)."""

    def __init__(self, chunks: Iterable[_Chunk | ClassChunk]) -> None:
        self._heads: dict[tuple[str, bool], list[_Chunk]] = {}
        self._members: dict[tuple[str, str], list[Member]] = {}
        for chunk in chunks:
            if isinstance(chunk, ClassChunk) and isinstance(chunk.head, _Chunk):
                self._heads.setdefault((chunk.head.text, chunk.first), []).append(chunk.head)
                for member in chunk.members:
                    self._members.setdefault((member.text, member.newline), []).append(member)

    def head(self, text: str, first: bool) -> _Chunk | None:
        """A head parsed from ``text`` before, or a new parse of it."""
        spare = self._heads.get((text, first))
        return spare.pop() if spare else _Chunk.parse(text, first)

    def member(self, text: str, newline: str) -> Member | None:
        """A member parsed from ``text`` before, or a new parse of it."""
        spare = self._members.get((text, newline))
        return spare.pop() if spare else Member.parse(text, newline)


def _parse_chunk(
    text: str, first: bool, newline: str, spare: _Parts, tree: tuple[ast.ClassDef, int] | None
) -> _Chunk | ClassChunk | None:
    """A chunk parsed again: a class of several members from its parts, else whole. ``tree``:
    CPython's tree of the chunk's class, when the split built one."""
    cut = cut_class(text, tree)
    if cut is not None:
        head_text, member_texts = cut
        head = spare.head(head_text, first)
        members = [spare.member(member_text, newline) for member_text in member_texts]
        if head is not None and all(member is not None for member in members):
            chunk = ClassChunk.assemble(text, head, members, first)  # type: ignore[arg-type]  # no None left
            if chunk is not None:
                return chunk
    return _Chunk.parse(text, first)


def _expected_failures(chunks: list[_Chunk | ClassChunk]) -> frozenset[int]:
    """The document's expected-failure lines, from each chunk's (computed once per chunk)."""
    lines: set[int] = set()
    offset = 0
    for chunk in chunks:
        lines.update(line + offset for line in chunk.expected_failures)
        offset += chunk.line_count
    return frozenset(lines)


class ChunkPositions(Mapping[cst.CSTNode, CodeRange]):
    """Positions of an assembled module's nodes, from each chunk's own positions, shifted."""

    def __init__(self, module: cst.Module, index: ModuleIndex, chunks: list[_Chunk | ClassChunk]) -> None:
        self._module = module
        self._parent = index.parent
        self._owner: dict[cst.CSTNode, tuple[_Chunk | ClassChunk, int]] = {}
        offset = 0
        for chunk in chunks:
            for child in chunk.children():
                self._owner[child] = (chunk, offset)
            offset += chunk.line_count

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        top, parent = node, self._parent.get(node)
        while parent is not None and parent is not self._module:
            top, parent = parent, self._parent.get(parent)
        if parent is None:
            raise KeyError(node)
        chunk, offset = self._owner[top]
        found = chunk.positions[node]
        if offset == 0:
            return found
        return CodeRange(
            CodePosition(found.start.line + offset, found.start.column),
            CodePosition(found.end.line + offset, found.end.column),
        )

    def __iter__(self) -> Iterator[cst.CSTNode]:
        # The nodes with a range: every node below the module (the index's parents hold each once).
        return iter(self._parent)

    def __len__(self) -> int:
        return len(self._parent)
