"""Checks a fix must pass before it is offered: the fixed program reads no name it lost or never had.

A rewrite that is right in general can still break the program it is applied to: a
`with strategy.scope():` written on the path where `strategy` was never bound, a TF_CONFIG
assignment removed while the same script reads it back, `import tensorflow` added to a Ray
script. Each check returns the reason a fix fails (a short sentence for the user) or None; the
engine then reports the finding as advice with that reason instead of offering the edits.
"""

from __future__ import annotations

import builtins
import keyword
import re
from functools import lru_cache
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import (
    ExpressionContext,
    ExpressionContextProvider,
    MetadataWrapper,
)

from fixer.cell_lines import has_cell_mark
from fixer.positions import positions as positions_of
from fixer.semantic import bound_on_every_path, rebound_below
from fixer.textmap import TextMap, apply_edits
from fixer.tf.fix_scope import FixedChunk, OriginalFile, fixed_chunk, fixed_function
from fixer.tf.index import ModuleIndex

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from libcst.metadata import CodeRange

    from fixer.semantic import PathIndex
    from fixer.tf.fix_scope import SplicedIndex
    from fixer.tf.names import NameResolver
    from fixer.types import Edit

_BUILTINS = frozenset(dir(builtins)) | {"__file__", "__name__", "__doc__", "self", "cls"}
_TF_IMPORT_HEADS = ("import tensorflow", "from tensorflow", "import keras", "from keras", "import tf_keras")


def fix_failure(
    text: str,
    names: NameResolver,
    edits: Sequence[Edit],
    module: cst.Module | None = None,
    original: OriginalFile | None = None,
) -> str | None:
    """Why applying ``edits`` to ``text`` would make the program worse, or None when it would not.

    ``module`` (the parsed ``text``) lets the cheap pre-checks skip names the module binds at
    top level, so most fixes are judged without parsing the fixed text. ``original`` (what the
    rule run knows of the file) lets a fix inside one function be judged on that function alone.
    """
    return (
        inserts_tensorflow_import(names, edits)
        or unbound_inserted_names(text, edits, module, original)
        or removes_what_is_read(text, edits, original)
    )


def inserts_tensorflow_import(names: NameResolver, edits: Sequence[Edit]) -> str | None:
    """A fix may not make a file that never imports TensorFlow start importing it."""
    if names.imports_tensorflow:
        return None
    for edit in edits:
        if any(line.strip().startswith(_TF_IMPORT_HEADS) for line in edit.content.splitlines()):
            return "the file does not import TensorFlow"
    return None


def candidate_reads(content: str, after_dot: bool = False) -> set[str]:
    """Plain names inserted text may read: identifiers not after a dot, minus keywords and builtins.

    A cheap over-approximation (no parse): it only decides whether the precise check, which
    parses the fixed text, is needed at all. ``after_dot``: the text is inserted right after a
    dot, so its first identifier is an attribute (a renamed method).
    """
    code = _STRING.sub("''", content)
    if after_dot:
        code = re.sub(r"^[A-Za-z_]\w*", "", code)
    found = {m.group(1) for m in _IDENTIFIER.finditer(code)}
    return {n for n in found if not keyword.iskeyword(n)} - _BUILTINS


_STRING = re.compile(r"(?s)(\"\"\".*?\"\"\"|\'\'\'.*?\'\'\'|\"(?:\\.|[^\"\\\n])*\"|\'(?:\\.|[^\'\\\n])*\'|#[^\n]*)")
_IDENTIFIER = re.compile(r"(?<![\w.])([A-Za-z_]\w*)")


def unbound_inserted_names(
    text: str,
    edits: Sequence[Edit],
    original: cst.Module | None = None,
    original_file: OriginalFile | None = None,
) -> str | None:
    """Every name the fix inserts must be bound on every path to where it is inserted.

    The edits are applied and the result parsed (only the edited function's text when
    ``original_file`` is given and one function body holds every edit); each name the inserted
    text reads is looked up where it now stands. Names bound at module level by an import, def or
    class are always in reach of code that runs after the module loaded.
    """
    inserted = [e for e in edits if e.content.strip()]
    wanted = set().union(
        set(), *(candidate_reads(e.content, after_dot=text[e.start - 1 : e.start] == ".") for e in inserted)
    )
    if original_file is not None:
        original = original_file.module
    if wanted and original is not None:
        wanted -= _top_level_definitions_in_original(original)
    if not wanted:
        return None
    regions = _inserted_regions(text, edits)
    local = fixed_function(original_file, edits) if original_file is not None else None
    if local is not None:
        return _first_unbound(
            sorted(wanted),
            local.index,
            local.contexts,
            local.offset,
            regions,
            lambda name: (
                _binds_outside(original_file, local.function, name)  # type: ignore[arg-type]  # local: file set
                or _binds_anywhere(local.index.local, local.contexts, name)
            ),
            lambda low, high: False,  # one function body: no cell boundary inside it
        )
    fixed = apply_edits(text, list(edits))
    try:
        module = cst.parse_module(fixed)
    except cst.ParserSyntaxError:
        return None  # the engine rejects unparsable fixes on its own
    index = ModuleIndex.build(module)
    wanted -= _top_level_definitions(module)
    if not wanted:
        return None
    textmap = TextMap(fixed)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = positions_of(module)
    contexts = wrapper.resolve(ExpressionContextProvider)

    def offset(node: cst.CSTNode) -> int:
        start = positions[node].start
        return textmap.offset(start.line, start.column + 1)

    return _first_unbound(
        sorted(wanted),
        index,
        contexts,
        offset,
        regions,
        lambda name: _binds_anywhere(index, contexts, name),
        lambda low, high: has_cell_mark(fixed[low:high]),
    )


def _first_unbound(
    wanted: list[str],
    index: ModuleIndex | SplicedIndex,
    contexts: Mapping[cst.CSTNode, ExpressionContext],
    offset: Callable[[cst.CSTNode], int],
    regions: list[tuple[int, int]],
    bound_somewhere: Callable[[str], bool],
    crosses_cell: Callable[[int, int], bool],
) -> str | None:
    """The reason for the first wanted name read in an inserted region where it may be unbound,
    or bound to another object than the one the code below it uses.

    A name the file never binds (a star import, a notebook's earlier kernel) is not ours to
    judge; whether the file binds it is asked last, only for a read that fails, since answering
    it may take a look at the whole file. A name the program's own code binds again below the read
    in the same scope (and notebook cell) is read too early: the fix would use an earlier cell's object, or none in
    a fresh kernel, while the code below uses the new one (a model made in one strategy's scope
    and compiled in another's raises). ``crosses_cell(low, high)``: a cell boundary lies between.
    """
    for name in wanted:
        for node in index.names.get(name, []):
            if contexts.get(node) is not ExpressionContext.LOAD or not _reads(index, node):
                continue
            where = offset(node)
            if not any(low <= where < high for low, high in regions):
                continue
            if not bound_on_every_path(index, name, node):
                if bound_somewhere(name):
                    return f"`{name}` is not bound on every path to where the fix would use it"
                break
            again = rebound_below(index, name, node)
            if again is not None and _left_as_it_was(offset(again), regions) and not crosses_cell(where, offset(again)):
                return f"`{name}` is bound again below where the fix would use it"
    return None


def _left_as_it_was(where: int, regions: list[tuple[int, int]]) -> bool:
    """True when ``where`` (a fixed-text offset) is outside every inserted region: the program's
    own code, not the fix's (a helper the fix adds may rebind its own parameters as it likes)."""
    return not any(low <= where < high for low, high in regions)


def _binds_anywhere(index: ModuleIndex, contexts: Mapping[cst.CSTNode, ExpressionContext], name: str) -> bool:
    """True when the module binds ``name`` anywhere: an assignment target, a def, a parameter.

    Whether the name exists in the file at all (else the read is not ours to judge), not which
    binding reaches a read: :func:`fixer.semantic.bound_on_every_path` decides that.
    """
    if index.functions_by_name.get(name):
        return True
    for node in index.names.get(name, []):
        if contexts.get(node) is ExpressionContext.STORE or isinstance(index.parent.get(node), cst.Param):
            return True
    return False


def _binds_outside(original: OriginalFile, function: cst.FunctionDef, name: str) -> bool:
    """True when the original file binds ``name`` somewhere outside ``function`` (which the fix
    rewrites): :func:`_binds_anywhere` for the part of the file a per-function check did not parse."""
    index = original.index
    if any(not index.is_within(f, function) for f in index.functions_by_name.get(name, [])):
        return True
    nodes = [n for n in index.names.get(name, []) if not index.is_within(n, function)]
    if not nodes:
        return False
    contexts = _contexts_of(original.module)
    return any(
        contexts.get(node) is ExpressionContext.STORE or isinstance(index.parent.get(node), cst.Param) for node in nodes
    )


@lru_cache(maxsize=1)
def _contexts_of(module: cst.Module) -> Mapping[cst.CSTNode, ExpressionContext]:
    """Expression contexts of the whole original module: asked only when a fixed read fails (rare)."""
    return MetadataWrapper(module, unsafe_skip_copy=True).resolve(ExpressionContextProvider)


def _reads(index: PathIndex, node: cst.Name) -> bool:
    """A name that reads a variable (not an attribute's name or a keyword argument's)."""
    parent = index.parent.get(node)
    if isinstance(parent, cst.Attribute) and parent.attr is node:
        return False
    return not (isinstance(parent, cst.Arg) and parent.keyword is node)


def _top_level_definitions(module: cst.Module) -> set[str]:
    """Names the module defines by a top-level import, def or class: a read of one of them in a
    fix needs no precise check (each is in reach of any code that runs after the module loaded)."""
    found: set[str] = set()
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef | cst.ClassDef):
            found.add(statement.name.value)
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Import | cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                    for alias in small.names:
                        target = alias.asname.name if alias.asname else alias.name
                        head: cst.BaseExpression = target
                        while isinstance(head, cst.Attribute):
                            head = head.value
                        if isinstance(head, cst.Name):
                            found.add(head.value)
    return found


# Every fix a rule reports on one module asks about the same original module: compute its
# top-level bindings once (libcst nodes hash by identity, so this holds one module, the last).
_top_level_definitions_in_original = lru_cache(maxsize=1)(_top_level_definitions)


def _inserted_regions(text: str, edits: Sequence[Edit]) -> list[tuple[int, int]]:
    """Where each edit's content lands in the fixed text (edits applied in order)."""
    regions = []
    shift = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        start = edit.start + shift
        regions.append((start, start + len(edit.content)))
        shift += len(edit.content) - (edit.end - edit.start)
    return regions


def removes_what_is_read(text: str, edits: Sequence[Edit], original: OriginalFile | None = None) -> str | None:
    """A fix may not remove the last binding of a name (or environment key) that code after it reads.

    TF_CONFIG set and then read back by the same script, a dict built once and used again:
    removing the binding turns those reads into `NameError`/`KeyError`. Reads before the removed
    code (a `pop` of an earlier value) do not depend on it. With ``original`` (what the rule run
    knows of the file) only the edited lines are parsed again.
    """
    if not any(e.end > e.start for e in edits):
        return None
    removed = set().union(set(), *(_assigned_in(text[e.start : e.end]) for e in edits))
    reinserted = set().union(set(), *(_assigned_in(e.content) for e in edits))
    if not removed - reinserted:
        return None  # nothing assigned is removed, or the fix moves it (checked by the binding check)
    chunk = fixed_chunk(original, edits) if original is not None else None
    if chunk is not None:
        return _removes_what_is_read_locally(original, chunk, edits)  # type: ignore[arg-type]  # chunk: original set
    fixed = apply_edits(text, list(edits))
    try:
        before = cst.parse_module(text)
        after = cst.parse_module(fixed)
    except cst.ParserSyntaxError:
        return None
    old_bound, _, old_targets = _assignments_and_reads(before)
    new_bound, new_reads, _ = _assignments_and_reads(after)
    lost = {key for key, _ in old_bound} - {key for key, _ in new_bound}
    if not lost:
        return None
    old_positions = positions_of(before)
    removed_at = _removed_at(lost, old_targets, old_positions, TextMap(text), edits)
    textmap = TextMap(fixed)
    positions = positions_of(after)

    def offset(node: cst.CSTNode) -> int:
        start = positions[node].start
        return textmap.offset(start.line, start.column + 1)

    return _read_after_removal(removed_at, ((key, offset(node)) for key, node in new_reads if key in removed_at))


def _removes_what_is_read_locally(original: OriginalFile, chunk: FixedChunk, edits: Sequence[Edit]) -> str | None:
    """:func:`removes_what_is_read` from the original file's bindings and reads and the fixed lines'.

    The fixed file is the original outside the chunk and the fixed chunk inside it: its bindings
    and reads are the original's outside the chunk and the chunk's own.
    """
    old_bound, old_reads, old_targets = _assignments_and_reads_of(original.module)
    chunk_bound, chunk_reads, _ = _assignments_and_reads(chunk.module)
    new_bound = {key for key, node in old_bound if not chunk.holds(original, node)} | {key for key, _ in chunk_bound}
    lost = {key for key, _ in old_bound} - new_bound
    if not lost:
        return None
    removed_at = _removed_at(lost, old_targets, original.positions(), original.textmap, edits)
    reads = [
        *(
            (key, chunk.fixed_offset(original, node))
            for key, node in old_reads
            if key in removed_at and not chunk.holds(original, node)
        ),
        *((key, chunk.offset(node)) for key, node in chunk_reads if key in removed_at),
    ]
    # In source order, as a visit of the whole fixed file meets them (a visit's order is that of
    # the nodes' starts; the stable sort keeps it where two start together).
    return _read_after_removal(removed_at, sorted(reads, key=lambda read: read[1]))


def _removed_at(
    lost: set[str],
    targets: _Entries,
    positions: Mapping[cst.CSTNode, CodeRange],
    textmap: TextMap,
    edits: Sequence[Edit],
) -> dict[str, int]:
    """Where the last removed binding of each lost key stood, in the fixed text's offsets."""
    removed_at: dict[str, int] = {}
    for key, node in targets:
        if key in lost:
            end = positions[node].end
            offset = textmap.offset(end.line, end.column + 1)
            removed_at[key] = max(removed_at.get(key, 0), _shifted(offset, edits))
    return removed_at


def _read_after_removal(removed_at: dict[str, int], reads: Iterable[tuple[str, int]]) -> str | None:
    """The reason for the first read (key, fixed offset) at or after its key's removed binding."""
    for key, offset in reads:
        if offset >= removed_at[key]:
            what = f"the environment variable {key[len(_ENV) :]}" if key.startswith(_ENV) else f"`{key}`"
            return f"it removes {what}, which the program still reads"
    return None


def _shifted(offset: int, edits: Sequence[Edit]) -> int:
    """``offset`` of the original text, moved by the edits before it (inside a removal: its start)."""
    shift = 0
    for edit in edits:
        if edit.end <= offset:
            shift += len(edit.content) - (edit.end - edit.start)
        elif edit.start < offset:
            offset = edit.start
    return offset + shift


_ENV = "environ:"
_ASSIGNED = re.compile(r"""(?m)^\s*([\w.\[\]"']+)\s*(?::[^=\n]*)?=(?!=)""")


def _assigned_in(text: str) -> set[str]:
    """Cheap: the targets of line-leading assignments in ``text`` (``x``, ``os.environ["K"]``)."""
    return {m.group(1) for m in _ASSIGNED.finditer(text)}


_Entries = list[tuple[str, cst.CSTNode]]


def _assignments_and_reads(module: cst.Module) -> tuple[_Entries, _Entries, _Entries]:
    """Names (and ``environ:KEY`` entries) the module assigns (with the target node), the nodes
    reading them, and the assignment targets: what a fix removes is compared in source order
    (:func:`removes_what_is_read`), no binding is resolved to a read."""
    bound: _Entries = []
    reads: list[tuple[str, cst.CSTNode]] = []
    assigned: list[tuple[str, cst.CSTNode]] = []
    targets: set[int] = set()

    class _Visit(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            target = node.target
            targets.add(id(target))
            if isinstance(target, cst.Name):
                bound.append((target.value, target))
                assigned.append((target.value, target))
            key = _environ_key(target)
            if key is not None:
                bound.append((_ENV + key, target))
                assigned.append((_ENV + key, target))

        def visit_Subscript(self, node: cst.Subscript) -> None:
            key = _environ_key(node)
            if key is not None and id(node) not in targets:
                reads.append((_ENV + key, node))

        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            name = func.attr.value if isinstance(func, cst.Attribute) else None
            if name in ("get", "getenv", "setdefault", "pop") and node.args:
                key = _string(node.args[0].value)
                if key is not None and _mentions_environ(func):
                    if name == "setdefault":
                        bound.append((_ENV + key, node))
                    else:
                        reads.append((_ENV + key, node))

        def visit_Name(self, node: cst.Name) -> None:
            if id(node) not in targets:
                reads.append((node.value, node))

    module.visit(_Visit())
    return bound, reads, assigned


# Every fix of one file asks about the same original module (one module held, the last).
_assignments_and_reads_of = lru_cache(maxsize=1)(_assignments_and_reads)


def _environ_key(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Subscript) and _mentions_environ(node.value) and len(node.slice) == 1:
        element = node.slice[0].slice
        if isinstance(element, cst.Index):
            return _string(element.value)
    return None


def _mentions_environ(node: cst.BaseExpression) -> bool:
    current = node
    while isinstance(current, cst.Attribute):
        if current.attr.value in ("environ", "getenv"):
            return True
        current = current.value
    return isinstance(current, cst.Name) and current.value in ("environ", "getenv")


def _string(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None
