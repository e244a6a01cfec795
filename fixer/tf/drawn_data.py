"""Data a process draws itself: random samples that differ from one worker's process to the next.

A multi-worker test or demo often makes synthetic data where it runs: every worker's process
calls `np.random.randint(...)` (or `tf.random.uniform`, `random.random`, an unseeded
`np.random.default_rng()`), so each worker holds samples of its own and reading them whole reads
nothing twice (`benchmarks/probe_per_process_random_data.py`: two processes draw different values;
a constant seed makes them draw the same). Not per process: a draw fixed by a constant seed,
given to the draw or to the generator, or set for the whole program (`np.random.seed(0)`,
`tf.random.set_seed(0)`, `keras.utils.set_random_seed(0)`, `random.seed(0)`): every worker then
draws the same samples. A seed holding the task index is per worker
(:func:`fixer.tf.pipelines.task_dependent`).

Not a rule: TFD202 asks it of the data a `dataset_fn` or a per-worker loop reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic import BindingKind
from fixer.tf.drawing_names import DRAWING_MODULES, GENERATORS, SEEDING, STATELESS
from fixer.tf.parameters import positional_parameters
from fixer.tf.pipelines import task_dependent

if TYPE_CHECKING:
    from fixer.tf.model import TFModel

_LITERALS = (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
_MAX_DEPTH = 12  # expressions, names and calls followed: a chain, never a search


def drawn_per_process(tf: TFModel, expr: cst.BaseExpression) -> bool:
    """True when the value of ``expr`` is made only of random draws the process makes itself, with
    no constant seed: draws, names bound to them, a parameter every call site of its function
    gives such a value, what a module function (or a function of another module of the project)
    returns from draws, and tuples, indexing and array calls over them (`np.concatenate([a, b])`).
    Data read from anywhere else (a file, a literal array, a dataset) is not."""
    if _constant_program_seed(tf):
        return False  # every worker's process starts the generators from the same seed
    return _drawn(tf, expr, 0)


def _drawn(tf: TFModel, expr: cst.BaseExpression, depth: int) -> bool:
    if depth > _MAX_DEPTH:
        return False
    if isinstance(expr, cst.Tuple | cst.List):
        parts = [element.value for element in expr.elements]
        return bool(parts) and all(_drawn(tf, part, depth + 1) for part in parts)
    if isinstance(expr, cst.Subscript):
        return _drawn(tf, expr.value, depth + 1)
    if isinstance(expr, cst.Name):
        return _name_drawn(tf, expr, depth)
    if isinstance(expr, cst.BinaryOperation):
        parts = [side for side in (expr.left, expr.right) if not _neutral(tf, side)]
        return bool(parts) and all(_drawn(tf, side, depth + 1) for side in parts)
    if isinstance(expr, cst.Call):
        return _call_drawn(tf, expr, depth)
    return False


def _name_drawn(tf: TFModel, use: cst.Name, depth: int) -> bool:
    """Every binding of ``use`` that reaches it holds drawn data."""
    found = tf.semantic.resolve(use)
    if not found:
        return False
    for bound in found:
        node = bound.scope.node
        if bound.kind is BindingKind.PARAMETER and isinstance(node, cst.FunctionDef):
            given = arguments_for(tf, node, bound.name)
            if not given or not all(_drawn(tf, arg, depth + 1) for arg in given):
                return False
        elif bound.kind is BindingKind.ASSIGNMENT and bound.value is not None:
            if not _drawn(tf, bound.value, depth + 1):
                return False
        elif bound.kind is BindingKind.ASSIGNMENT and isinstance(bound.statement, cst.Assign):
            # `keys, labels = make_samples(...)`: unpacked from what one call returns.
            if not _drawn(tf, bound.statement.value, depth + 1):
                return False
        else:
            return False
    return True


def _call_drawn(tf: TFModel, call: cst.Call, depth: int) -> bool:
    callee = tf.names.callee(call) or ""
    if callee.startswith(DRAWING_MODULES):
        return _draw_unseeded(tf, call, callee)
    if tf.project.draws_random(call.func):
        return True  # a helper of another module of the project that draws unseeded
    if isinstance(call.func, cst.Attribute):
        receiver = call.func.value
        if _is_generator(tf, receiver):
            return True  # `rng.integers(...)` of a generator made without a constant seed
        if callee:
            return _arguments_drawn(tf, call, depth)  # `np.concatenate([a, b])`, `tf.constant(a)`
        # `keys.astype(np.int64)`: a method of drawn data keeps it drawn.
        return _drawn(tf, receiver, depth + 1) and _arguments_drawn(tf, call, depth, allow_none=True)
    if isinstance(call.func, cst.Name):
        defs = tf.index.functions_by_name.get(call.func.value, [])
        if callee == "" and len(defs) == 1:
            returns = [r.value for r in tf.index.in_function("returns", defs[0]) if r.value is not None]
            return bool(returns) and all(_drawn(tf, value, depth + 1) for value in returns)
    return False


def _draw_unseeded(tf: TFModel, call: cst.Call, callee: str) -> bool:
    """A draw of a process-wide generator given no constant seed (none, or one holding the task)."""
    if callee in SEEDING or callee.startswith(STATELESS):
        return False
    seed = _seed_argument(call, callee)
    if callee in GENERATORS:
        return False  # the generator itself is not data; its draws are (see `_is_generator`)
    return seed is None or task_dependent(tf, seed)


def _is_generator(tf: TFModel, receiver: cst.BaseExpression) -> bool:
    """``receiver`` is a random generator made here with no constant seed (``np.random.default_rng()``,
    ``np.random.default_rng(task_id)``), directly or through a name bound only to one."""
    if isinstance(receiver, cst.Name):
        value = tf.semantic.value_of(receiver)
        receiver = value if value is not None else receiver
    if not isinstance(receiver, cst.Call):
        return False
    callee = tf.names.callee(receiver) or ""
    if callee not in GENERATORS:
        return False
    seed = _seed_argument(receiver, callee)
    none = isinstance(seed, cst.Name) and seed.value == "None"
    return seed is None or none or task_dependent(tf, seed)


def _seed_argument(call: cst.Call, callee: str) -> cst.BaseExpression | None:
    """The seed given to ``call``: ``seed=``, or the first positional argument of a generator."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "seed":
            return arg.value
    if callee in GENERATORS:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        return positional[0].value if positional else None
    return None


def _arguments_drawn(tf: TFModel, call: cst.Call, depth: int, allow_none: bool = False) -> bool:
    """The positional arguments of ``call`` that carry data (not literals, not module attributes
    such as ``np.int64``) are all drawn, and there is one (unless ``allow_none``)."""
    data = [a.value for a in call.args if a.keyword is None and not _neutral(tf, a.value)]
    if not data:
        return allow_none
    return all(_drawn(tf, value, depth + 1) for value in data)


def _neutral(tf: TFModel, expr: cst.BaseExpression) -> bool:
    """A literal, or a library attribute (``np.int64``, ``tf.float32``): no data of its own."""
    if isinstance(expr, _LITERALS):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return _neutral(tf, expr.expression)
    return isinstance(expr, cst.Attribute) and tf.names.qualified(expr) is not None


def _constant_program_seed(tf: TFModel) -> bool:
    """The module seeds a process-wide generator with a value that does not hold the task index."""
    for call in tf.index.calls:
        if (tf.names.callee(call) or "") in SEEDING:
            first = call.args[0].value if call.args else None
            if first is None or not task_dependent(tf, first):
                return True
    return False


def arguments_for(tf: TFModel, func: cst.FunctionDef, name: str) -> list[cst.BaseExpression]:
    """What the calls of ``func`` in this module pass for its parameter ``name`` (every positional
    argument from its place on, for ``*name``)."""
    positional = [p.name.value for p in positional_parameters(func)]
    star = isinstance(func.params.star_arg, cst.Param) and func.params.star_arg.name.value == name
    found: list[cst.BaseExpression] = []
    for site in tf.strategies.call_sites(func):
        plain = [a for a in site.args if a.keyword is None]
        for arg in site.args:
            if arg.keyword is not None and arg.keyword.value == name:
                found.append(arg.value)
        if star:
            found += [a.value for a in plain[len(positional) :]]
        elif name in positional and positional.index(name) < len(plain):
            found.append(plain[positional.index(name)].value)
    return found
