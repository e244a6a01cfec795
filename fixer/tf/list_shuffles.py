"""Lists reordered by an unseeded shuffle before a `tf.data` source is built from them.

A script often shuffles its list of file paths itself (`paths = tf.random.shuffle(paths)`,
`np.random.shuffle(paths)`, `random.shuffle(paths)`) and then builds the dataset with
`Dataset.from_tensor_slices(paths)`. Without a seed each worker's process draws its own order, so
sharding that dataset by data hands every worker its slice of a different list: the slices overlap
and miss examples even when the dataset's own `shuffle` has a constant seed
(`benchmarks/probe_upstream_list_shuffle.py`). Not a rule: TFD204 asks it of the pipelines it
judges.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.pipelines import task_dependent

if TYPE_CHECKING:
    from fixer.semantic import Binding
    from fixer.tf.model import TFModel

# A shuffle that returns a reordered copy, and the global seed that fixes it on every worker.
_RETURNING: dict[str, tuple[str, ...]] = {
    "tensorflow.random.shuffle": ("tensorflow.random.set_seed", "keras.utils.set_random_seed")
}
# Shuffles in place, and the global seeds that fix them.
_IN_PLACE: dict[str, tuple[str, ...]] = {
    "numpy.random.shuffle": ("numpy.random.seed", "keras.utils.set_random_seed"),
    "random.shuffle": ("random.seed", "keras.utils.set_random_seed"),
}

# Calls that keep their first argument's order (a conversion, not a reordering).
_CONVERSIONS = frozenset(
    {"numpy.array", "numpy.asarray", "tensorflow.constant", "tensorflow.convert_to_tensor", "tensorflow.identity"}
)
_ORDER_KEEPING_BUILTINS = frozenset({"list", "tuple"})
_MAX_DEPTH = 8


@dataclass(frozen=True)
class ListShuffle:
    """An unseeded shuffle of a list a dataset source is built from."""

    call: cst.Call
    # The canonical name of the shuffle (`tensorflow.random.shuffle`, `numpy.random.shuffle`...).
    callee: str
    # True when the shuffle takes a `seed=` of its own (`tf.random.shuffle`); the in-place
    # shuffles of NumPy and `random` are seeded only through their module's global generator.
    seedable: bool


def list_shuffles(tf: TFModel, source: cst.Call) -> list[ListShuffle]:
    """The unseeded shuffles, in this module, of the lists ``source`` (a `tf.data` constructor such
    as `from_tensor_slices((paths, labels))`) is built from: a name bound to `tf.random.shuffle(...)`,
    or a name shuffled in place before the source by `np.random.shuffle` / `random.shuffle`,
    followed through names, slices (`paths[:n]`), methods (`.numpy()`, `.tolist()`) and
    conversions (`np.array(...)`, `list(...)`). A constant global seed of the matching generator
    makes the order the same on every worker; `sorted(...)` makes it the same again."""
    found: list[ListShuffle] = []
    for use in _names_given(source):
        found += _followed(tf, use, source, 0)
    unique: dict[cst.Call, ListShuffle] = {item.call: item for item in found}
    return list(unique.values())


def _followed(tf: TFModel, expr: cst.BaseExpression, source: cst.Call, depth: int) -> list[ListShuffle]:
    """The unseeded list shuffles whose order ``expr`` keeps (a chain, never a search)."""
    if depth > _MAX_DEPTH:
        return []
    if isinstance(expr, cst.Subscript):
        return _followed(tf, expr.value, source, depth + 1)
    if isinstance(expr, cst.Name):
        bindings = tf.semantic.resolve(expr)
        found = _in_place(tf, expr, bindings, source)
        for bound in bindings:
            if bound.value is not None and bound.value is not expr:
                found += _followed(tf, bound.value, source, depth + 1)
        return found
    if not isinstance(expr, cst.Call):
        return []
    callee = tf.names.callee(expr) or ""
    if callee in _RETURNING:
        return [] if _seeded(tf, expr, callee) else [ListShuffle(expr, callee, seedable=True)]
    func = expr.func
    if isinstance(func, cst.Attribute) and not callee:
        return _followed(tf, func.value, source, depth + 1)  # `.numpy()`, `.tolist()` of the list
    plain = [a.value for a in expr.args if a.keyword is None and not a.star]
    builtin = isinstance(func, cst.Name) and func.value in _ORDER_KEEPING_BUILTINS and not callee
    if plain and (callee in _CONVERSIONS or builtin):
        return _followed(tf, plain[0], source, depth + 1)
    return []


def _names_given(source: cst.Call) -> list[cst.Name]:
    """The names among the data arguments of ``source``: `x`, or the parts of `(x, y)` / `[x, y]`."""
    names: list[cst.Name] = []
    for arg in source.args:
        if arg.keyword is not None and arg.keyword.value != "tensors":
            continue
        parts = [e.value for e in arg.value.elements] if isinstance(arg.value, cst.Tuple | cst.List) else [arg.value]
        names += [part for part in parts if isinstance(part, cst.Name)]
    return names


def _in_place(tf: TFModel, use: cst.Name, bindings: list[Binding], source: cst.Call) -> list[ListShuffle]:
    """`np.random.shuffle(name)` / `random.shuffle(name)` calls before ``source`` on a binding of
    ``name`` that reaches ``use``."""
    found = []
    order = tf.index.order
    for call in tf.index.calls:
        callee = tf.names.callee(call) or ""
        if callee not in _IN_PLACE or not call.args or order[call] > order[source]:
            continue
        shuffled = call.args[0].value
        if not (isinstance(shuffled, cst.Name) and shuffled.value == use.value):
            continue
        if set(tf.semantic.resolve(shuffled)) & set(bindings) and not _seeded(tf, call, callee):
            found.append(ListShuffle(call, callee, seedable=False))
    return found


def _seeded(tf: TFModel, call: cst.Call, callee: str) -> bool:
    """The shuffle's order is the same on every worker: a constant `seed=` of its own, or a
    constant global seed of its generator set in the module."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "seed":
            return not _none(arg.value) and not task_dependent(tf, arg.value)
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if callee in _RETURNING and len(positional) > 1:
        return not _none(positional[1].value) and not task_dependent(tf, positional[1].value)
    seeders = _RETURNING.get(callee) or _IN_PLACE.get(callee, ())
    for other in tf.index.calls:
        if (tf.names.callee(other) or "") in seeders and other.args:
            first = other.args[0].value
            if not _none(first) and not task_dependent(tf, first):
                return True
    return False


def _none(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"
