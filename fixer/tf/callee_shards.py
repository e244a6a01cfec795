"""Whether a call hands the values a helper shards with: ``self._make_input(bs, ctx.num_input_pipelines,
ctx.input_pipeline_id)`` into ``def _make_input(self, bs, count=None, index=None): ... ds.shard(count, index)``.

TFD202 asks it of the calls in a `dataset_fn(input_context)`: the function shards by the context (or
by the worker count and index it was given) when a helper of the module, a function or a method of
the enclosing class called on ``self``, shards with parameters this call gives a value (ledger12b
class 4). The values themselves are not judged: whatever the caller passes as the shard count and
index is what it means the worker's share to be; only a literal ``None`` (the helper's "no shard")
is not a value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic import BindingKind
from fixer.tf.parameters import positional_parameters, takes_receiver

if TYPE_CHECKING:
    from fixer.tf.index import FunctionLike
    from fixer.tf.model import TFModel

# How deep a parameter is followed into the helpers its function hands it to.
_DEPTH = 3


def hands_shard_arguments(tf: TFModel, call: cst.Call, depth: int = 0) -> bool:
    """True when a helper ``call`` reaches (a module function, or a method on ``self``) shards a
    dataset with two of its parameters this call gives a value other than ``None``, in its body or
    in a function nested in it, or hands them on to a helper that does."""
    if depth > _DEPTH:
        return False
    for helper in tf.replica.resolve_callable(call.func, call):
        if not isinstance(helper, cst.FunctionDef):
            continue
        given = _given_parameters(helper, call)
        if len(given) >= 2 and _shards_with(tf, helper, given, depth):
            return True
    return False


def _given_parameters(helper: cst.FunctionDef, call: cst.Call) -> set[str]:
    """The parameters of ``helper`` that ``call`` passes a value (not ``None``) for."""
    positional = [p.name.value for p in positional_parameters(helper)]
    if takes_receiver(helper) and isinstance(call.func, cst.Attribute):
        positional = positional[1:]  # `self.method(...)`: the receiver is not among the arguments
    given: set[str] = set()
    for position, arg in enumerate(call.args):
        if arg.star or (isinstance(arg.value, cst.Name) and arg.value.value == "None"):
            continue
        if arg.keyword is not None:
            given.add(arg.keyword.value)
        elif position < len(positional):
            given.add(positional[position])
    return given


def _shards_with(tf: TFModel, helper: cst.FunctionDef, given: set[str], depth: int) -> bool:
    """A `.shard(a, b)` in ``helper`` (or nested in it) whose two arguments are parameters of
    ``helper`` in ``given``; or a call there handing two of them on to a helper that shards."""
    for inner in tf.index.calls:
        if not tf.index.is_within(inner, helper.body):
            continue
        func = inner.func
        if isinstance(func, cst.Attribute) and func.attr.value == "shard":
            if len(inner.args) >= 2 and all(_is_given(tf, helper, a.value, given) for a in inner.args[:2]):
                return True
            continue
        passed = [a for a in inner.args if _is_given(tf, helper, a.value, given)]
        if len(passed) >= 2 and hands_shard_arguments(tf, inner, depth + 1):
            return True
    return False


def _is_given(tf: TFModel, helper: FunctionLike, value: cst.BaseExpression, given: set[str]) -> bool:
    """``value`` is a name that resolves to one of ``helper``'s parameters in ``given``."""
    if not isinstance(value, cst.Name) or value.value not in given:
        return False
    found = tf.semantic.resolve(value)
    return bool(found) and all(b.kind is BindingKind.PARAMETER and b.scope.node is helper for b in found)
