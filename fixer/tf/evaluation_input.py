"""Whether a dataset is read only by Keras `evaluate`/`predict`: followed from where it is made,
through the names it is bound to and the pipeline steps chained onto it (``ds = ds.map(...)``).

TFD202 leaves `AutoShardPolicy.OFF` on such a dataset: every worker then evaluates the whole set,
and the metrics `evaluate` all-reduces are means, which counting every example once per worker
leaves unchanged (benchmarks/probe_noise42_premises.py): redundant work, no wrong number. A dataset
that also reaches `fit`, a loop, `iter(...)` or a `distribute` call is not evaluation input.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from fixer.tf.model import TFModel

_EVALUATION = frozenset({"evaluate", "predict"})
# How many rebinding steps (``ds = ds.map(...)``) are followed before giving up: a pipeline is
# rebuilt a few times, never dozens.
_DEPTH = 8


def only_evaluated(tf: TFModel, made: cst.BaseExpression) -> bool:
    """``made`` (a dataset expression) ends, through names and chained pipeline steps, only as the
    data of `evaluate(...)`/`predict(...)` calls, at least one of them; False for any other read or
    for what cannot be followed (an attribute, a return, a call argument elsewhere)."""
    uses: list[cst.Call] = []
    return _ends_in_evaluation(tf, made, uses, 0) and bool(uses)


def _ends_in_evaluation(tf: TFModel, value: cst.BaseExpression, uses: list[cst.Call], depth: int) -> bool:
    """Every way ``value`` is read is evaluation input; the `evaluate`/`predict` calls go to ``uses``."""
    outer = _chain_end(tf, value)
    parent = tf.index.parent.get(outer)
    if isinstance(parent, cst.Arg):
        call = tf.index.parent.get(parent)
        if _is_evaluation_data(call, parent):
            assert isinstance(call, cst.Call)  # _is_evaluation_data checks it
            uses.append(call)
            return True
        return False
    if not isinstance(parent, cst.Assign) or len(parent.targets) != 1 or depth >= _DEPTH:
        return False
    target = parent.targets[0].target
    if not isinstance(target, cst.Name):
        return False
    made = tf.semantic.binding_at(target)
    if made is None:
        return False
    reads = [
        use
        for use in tf.index.names.get(target.value, ())
        if use is not target and any(found is made for found in tf.semantic.resolve(use))
    ]
    return all(_ends_in_evaluation(tf, use, uses, depth + 1) for use in reads)


def _chain_end(tf: TFModel, value: cst.BaseExpression) -> cst.BaseExpression:
    """The outermost call of the method chain ``value`` starts (``value.map(f).batch(n)``)."""
    current = value
    while True:
        attribute = tf.index.parent.get(current)
        call = tf.index.parent.get(attribute) if isinstance(attribute, cst.Attribute) else None
        if not (isinstance(attribute, cst.Attribute) and attribute.value is current and isinstance(call, cst.Call)):
            return current
        if call.func is not attribute or attribute.attr.value in _EVALUATION:
            return current
        current = call


def _is_evaluation_data(call: cst.CSTNode | None, arg: cst.Arg) -> bool:
    """``arg`` is the data of ``model.evaluate(...)``/``model.predict(...)`` (first or ``x=``)."""
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)):
        return False
    if call.func.attr.value not in _EVALUATION:
        return False
    if arg.keyword is not None:
        return arg.keyword.value == "x"
    return bool(call.args) and call.args[0] is arg
