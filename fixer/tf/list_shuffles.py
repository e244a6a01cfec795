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
    or a name shuffled in place before the source by `np.random.shuffle` / `random.shuffle`. A
    constant global seed of the matching generator makes the order the same on every worker."""
    found: list[ListShuffle] = []
    for use in _names_given(source):
        bindings = tf.semantic.resolve(use)
        for bound in bindings:
            value = bound.value
            if isinstance(value, cst.Call) and (callee := tf.names.callee(value) or "") in _RETURNING:
                if not _seeded(tf, value, callee):
                    found.append(ListShuffle(value, callee, seedable=True))
        found += _in_place(tf, use, bindings, source)
    unique: dict[cst.Call, ListShuffle] = {item.call: item for item in found}
    return list(unique.values())


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
