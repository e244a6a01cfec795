"""A `dataset_fn` built from data its enclosing function was handed, with auto-sharding off.

Platform runners give each worker its own slice before TensorFlow sees it (a Spark barrier task's
partition, a Ray actor's shard): the method receives it as a parameter, unpacks it, and builds a
closure `dataset_fn(input_context)` over it that sets `AutoShardPolicy.OFF` because the data is
already split. Sharding it again by the input context would keep 1/N of each worker's own slice.
What the flow model can see: every value the pipeline's source is built from is a parameter of the
enclosing function, or what a call of the project (not a loader of a known library) made of one;
and the author turned auto-sharding off in the same `dataset_fn`.

A framework that starts the workers itself may also hand each one its stream: the entry it calls
(a function nothing in the module calls or names) receives a context, wraps it in an object
(`tf_context = TFContext(context)`) and asks that object for the worker's dataset
(`tf_context.get_tfdataset_from_flink()`), or passes what it got to a module helper's parameter.
Such a pipeline root is this worker's own data, whatever library (the project's own one too)
defines the object: :func:`framework_handed`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic import Binding, BindingKind
from fixer.tf.dataset_api import DATASET_METHODS
from fixer.tf.drawn_data import arguments_for

if TYPE_CHECKING:
    from fixer.tf.index import FunctionLike
    from fixer.tf.model import TFModel

# Libraries whose calls load or make data themselves (files, TFDS, arrays): what they return is
# the same whole data on every worker, not a slice handed in.
_LOADING_ROOTS = frozenset({"tensorflow", "keras", "tf_keras", "tensorflow_datasets", "numpy", "pandas", "h5py"})
_RECEIVERS = frozenset({"self", "cls"})


def handed_in_with_sharding_off(tf: TFModel, fn: FunctionLike, sources: list[cst.Call]) -> bool:
    """``fn`` (a `dataset_fn` nested in a function) sets `AutoShardPolicy.OFF` itself and every
    data argument of its `tf.data` ``sources`` comes from the enclosing function's parameters."""
    if not sources or not isinstance(fn, cst.FunctionDef) or not sets_sharding_off(tf, fn):
        return False
    outer = tf.index.enclosing_function(fn)
    if not isinstance(outer, cst.FunctionDef):
        return False
    data = [part for source in sources for a in source.args if a.keyword is None for part in _parts(a.value)]
    return bool(data) and all(_handed_in(tf, value, outer) for value in data)


def sets_sharding_off(tf: TFModel, fn: cst.FunctionDef) -> bool:
    """An ``<options>...auto_shard_policy = AutoShardPolicy.OFF`` statement runs in ``fn`` itself."""
    for assign in tf.index.in_function("assigns", fn):
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            continue
        target = assign.targets[0].target
        if isinstance(target, cst.Attribute) and target.attr.value == "auto_shard_policy":
            if (tf.names.qualified(assign.value) or "").endswith("AutoShardPolicy.OFF"):
                return True
    return False


def _parts(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The elements of a tuple or list (``(features, labels)``), else the value itself."""
    if isinstance(value, cst.Tuple | cst.List):
        return [part for element in value.elements for part in _parts(element.value)]
    return [value]


def _handed_in(tf: TFModel, value: cst.BaseExpression, outer: cst.FunctionDef) -> bool:
    """``value`` is a name the closure reads from ``outer``, which holds there one of its
    parameters or what a project call made of one (``data, label = split(partition)``)."""
    if not isinstance(value, cst.Name):
        return False
    found = tf.semantic.resolve(value)
    if not found or any(b.scope.node is not outer for b in found):
        return False
    return all(_parameter(b.kind, b.name) or _made_from_parameter(tf, b.statement, outer) for b in found)


def _parameter(kind: BindingKind, name: str) -> bool:
    return kind is BindingKind.PARAMETER and name not in _RECEIVERS


def _made_from_parameter(tf: TFModel, statement: cst.CSTNode, outer: cst.FunctionDef) -> bool:
    """``statement`` assigns the result of a call, not a known library's loader, given one of
    ``outer``'s parameters."""
    if not isinstance(statement, cst.Assign) or not isinstance(statement.value, cst.Call):
        return False
    call = statement.value
    callee = tf.names.qualified(call.func) or ""
    if callee.split(".")[0] in _LOADING_ROOTS:
        return False
    for argument in call.args:
        if isinstance(argument.value, cst.Name):
            given = tf.semantic.resolve(argument.value)
            if given and all(b.scope.node is outer and _parameter(b.kind, b.name) for b in given):
                return True
    return False


def framework_handed(tf: TFModel, dataset: cst.BaseExpression, depth: int = 0) -> bool:
    """The pipeline ``dataset`` stands for is rooted in what a framework handed this worker: a
    method of an object its entry was given or built from what it was given
    (``ctx.get_tfdataset_from_flink()``), or a module function's parameter that every call in the
    module passes such a pipeline. Followed through the `tf.data` methods applied to it and every
    binding of the names that can hold it."""
    node = dataset
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if node.func.attr.value not in DATASET_METHODS:
            return _entry_object(tf, node.func.value)
        node = node.func.value
    if not isinstance(node, cst.Name) or depth > 4:
        return False
    found = tf.semantic.resolve(node)
    return bool(found) and all(_handed_binding(tf, bound, depth) for bound in found)


def _handed_binding(tf: TFModel, bound: Binding, depth: int) -> bool:
    """A binding of a pipeline's name that holds framework-handed data (see framework_handed)."""
    if bound.kind is BindingKind.PARAMETER:
        return _every_caller_hands(tf, bound.statement, bound.name, depth)
    if bound.kind is not BindingKind.ASSIGNMENT or bound.value is None:
        return False
    return framework_handed(tf, bound.value, depth + 1)


def _every_caller_hands(tf: TFModel, func: cst.CSTNode, name: str, depth: int) -> bool:
    """Every call of ``func`` in the module passes a framework-handed pipeline for ``name``."""
    if not isinstance(func, cst.FunctionDef):
        return False
    given = arguments_for(tf, func, name)
    return bool(given) and all(framework_handed(tf, value, depth + 1) for value in given)


def _entry_object(tf: TFModel, receiver: cst.BaseExpression) -> bool:
    """``receiver`` is a parameter of a framework's entry (not ``self``), or bound there, on every
    path, to what a non-loader call made of one (``TFContext(context)``)."""
    if not isinstance(receiver, cst.Name):
        return False
    found = tf.semantic.resolve(receiver)
    if not found:
        return False
    for bound in found:
        entry = bound.scope.node
        if not isinstance(entry, cst.FunctionDef) or _named_in_module(tf, entry):
            return False
        if not (_parameter(bound.kind, bound.name) or _made_from_parameter(tf, bound.statement, entry)):
            return False
    return True


def _named_in_module(tf: TFModel, func: cst.FunctionDef) -> bool:
    """Code of the module calls or names ``func``: the module runs it itself, so what its
    parameters receive comes from the module (a `main(args)`), not from a framework."""
    for use in tf.index.names.get(func.name.value, []):
        if use is not func.name and any(b.statement is func for b in tf.semantic.resolve(use)):
            return True
    return False
