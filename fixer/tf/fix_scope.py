"""The function a fix edits, re-parsed on its own: fix checks in time proportional to the fix.

Checking a fix used to mean applying it, parsing the whole fixed file and resolving libcst
metadata over all of it, once per finding: on a 3,000-line test file with a dozen findings,
seconds of work for edits of a few lines. Most fixes edit inside one function body. Then the
fixed program differs from the original only inside that function, and the questions a fix
check asks ("is this name bound on every path to here?") stop at the function: its
parameters and body answer them, and beyond it only module-level bindings count, which an
edit inside a body cannot change. So only the function's fixed text is parsed, and
module-level questions are answered from the original file's index.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import libcst as cst
from libcst.metadata import (
    CodeRange,
    ExpressionContext,
    ExpressionContextProvider,
    MetadataWrapper,
)

from fixer.positions import line_span
from fixer.positions import positions as positions_of
from fixer.textmap import TextMap, apply_edits
from fixer.tf.index import ModuleIndex
from fixer.types import Edit

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence

    from fixer.tf.index import FunctionLike

# A nested function's text keeps its indentation; under this header it parses unchanged, so
# columns hold and lines shift by one.
_HEADER = "if 1:"


@dataclass(frozen=True)
class OriginalFile:
    """What a rule run already knows of the file a fix is checked against."""

    text: str
    module: cst.Module
    index: ModuleIndex
    positions: Callable[[], Mapping[cst.CSTNode, CodeRange]]  # the whole file's (computed once)
    textmap: TextMap


@dataclass
class FixedChunk:
    """The lines a fix edits, parsed from the fixed text: one function, or whole top-level statements."""

    module: cst.Module  # the fixed lines (under the header when they are a nested function)
    start: int  # offset of the chunk in the original text, and in the fixed text
    end: int  # end of the chunk in the original text
    shift: int  # how much longer the fixed chunk is than the original one
    header_length: int
    textmap: TextMap  # of the parsed source (header included)
    function: cst.FunctionDef | None  # the original function the edits fall in, if any
    _positions: Mapping[cst.CSTNode, CodeRange] | None = None

    @property
    def positions(self) -> Mapping[cst.CSTNode, CodeRange]:
        """Positions of the chunk's nodes in the parsed source (computed on first use)."""
        if self._positions is None:
            self._positions = positions_of(self.module)
        return self._positions

    def offset(self, node: cst.CSTNode) -> int:
        """Offset in the fixed text where ``node`` (one of the chunk's) starts."""
        start = self.positions[node].start
        return self.start + self.textmap.offset(start.line, start.column + 1) - self.header_length

    def holds(self, original: OriginalFile, node: cst.CSTNode) -> bool:
        """True when ``node`` of the original file lies in the lines the chunk replaces."""
        start = original.positions()[node].start
        return self.start <= original.textmap.offset(start.line, start.column + 1) < self.end

    def fixed_offset(self, original: OriginalFile, node: cst.CSTNode) -> int:
        """Offset in the fixed text of ``node``, a node of the original file outside the chunk."""
        start = original.positions()[node].start
        offset = original.textmap.offset(start.line, start.column + 1)
        return offset + self.shift if offset >= self.end else offset


def fixed_chunk(original: OriginalFile, edits: Sequence[Edit], function_only: bool = False) -> FixedChunk | None:
    """The edited lines parsed with the edits applied: the innermost function whose body holds
    every edit, else (unless ``function_only``) the run of top-level statements they touch.

    None when the fixed lines do not parse (or, for a function, no longer parse as one function
    of the same indentation): then the caller checks the whole file.
    """
    low = min(e.start for e in edits)
    high = max(e.end for e in edits)
    function: cst.FunctionDef | None = None
    found = _innermost_function(original, low, high)
    if found is not None:
        function, chunk_start, chunk_end = found
    elif function_only:
        return None
    else:
        span = _top_level_span(original, low, high)
        if span is None:
            return None
        chunk_start, chunk_end = span
    chunk = original.text[chunk_start:chunk_end]
    shifted = [Edit(e.start - chunk_start, e.end - chunk_start, e.content) for e in edits]
    fixed = apply_edits(chunk, shifted)
    nested = function is not None and chunk[:1] in (" ", "\t", "\f")
    header = _HEADER + original.module.default_newline if nested else ""
    try:
        module = _parsed(header + fixed)
    except (cst.ParserSyntaxError, RecursionError, MemoryError):
        return None
    if function is not None and _single_function(module, nested) is None:
        return None
    return FixedChunk(
        module=module,
        start=chunk_start,
        end=chunk_end,
        shift=len(fixed) - len(chunk),
        header_length=len(header),
        textmap=TextMap(header + fixed),
        function=function,
    )


@dataclass
class FixedFunction:
    """The one function a fix edits, parsed from the fixed text, with what a binding check asks of it."""

    chunk: FixedChunk
    index: SplicedIndex  # the fixed function's nodes, module-level questions to the original
    contexts: Mapping[cst.CSTNode, ExpressionContext]

    @property
    def function(self) -> cst.FunctionDef:
        """The original function the edits fall in."""
        return self.chunk.function  # type: ignore[return-value]  # fixed_function: a chunk with a function

    def offset(self, node: cst.CSTNode) -> int:
        """Offset in the fixed text where ``node`` starts."""
        return self.chunk.offset(node)


def fixed_function(original: OriginalFile, edits: Sequence[Edit]) -> FixedFunction | None:
    """The innermost function whose body holds every edit, parsed with the edits applied.

    None when no function body holds them all (module-level code), or when the fixed function
    does not parse as one function of the same indentation: then the caller checks the whole file.
    """
    chunk = fixed_chunk(original, edits, function_only=True)
    if chunk is None or chunk.function is None:
        return None
    local, contexts, chunk._positions = _analysed(chunk.module)
    return FixedFunction(chunk=chunk, index=SplicedIndex(local, original.index), contexts=contexts)


@lru_cache(maxsize=64)
def _parsed(source: str) -> cst.Module:
    """The parsed chunk source. The language server checks the same fixed functions again on
    every edit elsewhere in the file: their text, and so this, is unchanged."""
    return cst.parse_module(source)


@lru_cache(maxsize=64)
def _analysed(
    module: cst.Module,
) -> tuple[ModuleIndex, Mapping[cst.CSTNode, ExpressionContext], Mapping[cst.CSTNode, CodeRange]]:
    """Index, expression contexts and positions of a parsed chunk (cached with it, see _parsed)."""
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    return ModuleIndex.build(module), wrapper.resolve(ExpressionContextProvider), positions_of(module)


def _top_level_span(original: OriginalFile, low: int, high: int) -> tuple[int, int] | None:
    """Whole lines from the first top-level statement the edits reach to the last (gaps included)."""
    positions = original.positions()
    textmap = original.textmap
    low_line, high_line = textmap.position(low).line, textmap.position(high).line
    spans = []
    for statement in original.module.body:
        # Lines first (no code generation for them): only statements near the edits need ranges.
        first, last = line_span(positions, statement)
        if last < low_line or first > high_line:
            continue
        where = positions[statement]
        spans.append((textmap.line_starts[where.start.line - 1], textmap.line_end(where.end.line)))
    touched = [(a, b) for a, b in spans if b > low and (a < high or a <= low)]
    if not touched:
        return None
    start = min(touched[0][0], textmap.line_starts[textmap.position(low).line - 1])
    end = max(touched[-1][1], _line_end_at(textmap, high))
    return start, end


def _line_end_at(textmap: TextMap, offset: int) -> int:
    """``offset`` when it starts a line (or ends the text), else the end of the line holding it."""
    if offset >= len(textmap.text):
        return len(textmap.text)
    line = textmap.position(offset).line
    return offset if textmap.line_starts[line - 1] == offset else textmap.line_end(line)


def _innermost_function(original: OriginalFile, low: int, high: int) -> tuple[cst.FunctionDef, int, int] | None:
    """The smallest function whose indented body holds ``[low, high)``, with its line-aligned text span.

    The edits must start at or after the body's first line and end by the end of the function's
    last line; what they write there must still parse as the body (checked after parsing).
    """
    positions = original.positions()
    textmap = original.textmap
    low_line, high_line = textmap.position(low).line, textmap.position(high).line
    best: tuple[cst.FunctionDef, int, int] | None = None
    for function in original.index.functions:
        body = function.body
        if not isinstance(body, cst.IndentedBlock) or not body.body:
            continue
        # Lines first (no code generation for them): a function that cannot hold the edits
        # by its lines is passed over without computing its range.
        last = line_span(positions, function)[1]
        if not (line_span(positions, body.body[0])[0] <= low_line <= last and high_line <= last + 1):
            continue
        whole = positions[function]
        start = textmap.line_starts[whole.start.line - 1]
        end = textmap.line_end(whole.end.line)
        body_start = textmap.line_starts[positions[body.body[0]].start.line - 1]
        if body_start <= low and low < end and high <= end and (best is None or end - start < best[2] - best[1]):
            best = (function, start, end)
    return best


def _single_function(module: cst.Module, nested: bool) -> cst.FunctionDef | None:
    """The parsed chunk's function, when the chunk is exactly one function (under the header)."""
    body: Sequence[cst.BaseStatement] = module.body
    if nested:
        if len(body) != 1 or not isinstance(body[0], cst.If) or not isinstance(body[0].body, cst.IndentedBlock):
            return None
        body = body[0].body.body
    if len(body) != 1 or not isinstance(body[0], cst.FunctionDef):
        return None
    return body[0]


class SplicedIndex:
    """The index of the fixed file as far as a fix check walks it: the fixed function's nodes
    from its own index, module-level tables from the original's (a body edit leaves them as they were).

    Only what :func:`fixer.semantic.bound_on_every_path` reads from a position inside the function.
    """

    def __init__(self, local: ModuleIndex, original: ModuleIndex) -> None:
        self.local = local
        self.original = original
        self.parent = local.parent
        self.names = local.names
        self.functions = original.functions

    def _owner(self, node: cst.CSTNode) -> ModuleIndex:
        return self.local if node in self.local.order else self.original

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        """The parents of ``node`` (one of the fixed function's nodes), nearest first."""
        return self.local.ancestors(node)

    def enclosing_function(self, node: cst.CSTNode) -> FunctionLike | None:
        """The nearest function around ``node``, in whichever tree ``node`` belongs to."""
        return self._owner(node).enclosing_function(node)

    def in_function(self, table: str, func: FunctionLike | None) -> list[Any]:
        """A table's nodes in ``func``: the fixed function's own, or the original module level's."""
        return self.original.in_function(table, None) if func is None else self.local.in_function(table, func)

    def statement_of(self, node: cst.CSTNode) -> cst.BaseStatement:
        """The statement that holds ``node`` (one of the fixed function's nodes)."""
        return self.local.statement_of(node)

    def is_within(self, node: cst.CSTNode, container: cst.CSTNode) -> bool:
        """True when ``container`` is ``node`` or one of its ancestors (both in the fixed function)."""
        return self.local.is_within(node, container)
