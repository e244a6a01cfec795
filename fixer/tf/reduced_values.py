"""Values `strategy.reduce` made: cross-replica tensors, followed through a caller's loop.

An explicit reduce-then-update loop runs the replicas' gradient computation under `strategy.run`,
reduces the gradients with `strategy.reduce(MEAN, g, axis=None)` in the compiled function that
called it, and hands the reduced tensors (summed and averaged over micro-batches by the Python
loop, perhaps) to a second compiled function whose only work is `apply_gradients`. That update runs
in cross-replica context on values every replica agrees on, as `strategy.extended.update` does:
measured on TensorFlow 2.21 with Keras 3 and two replicas (benchmarks/probe_ledger22d_premises.py),
it runs, keeps the replicas' copies equal and matches the one-device update (ledger22d class 1,
TFD103). This module says whether an expression holds such values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic.bindings import BindingKind
from fixer.semantic.targets import target_names
from fixer.tf.parameters import call_position, takes_receiver

if TYPE_CHECKING:
    from fixer.semantic.bindings import Binding
    from fixer.tf.model import TFModel

# The kinds of origin a value can have: a `strategy.reduce` result, or anything else that carries
# data (a per-replica value, a tape's gradient, an attribute, a parameter we cannot follow).
# Constants (`None`, counters, literals) carry no data and have no origin.
_REDUCED = "reduced"
_OTHER = "other"
# Methods that put their argument into the list they are called on (`grads.append(g)`).
_GROWERS = frozenset({"append", "extend", "insert"})
# Builtins whose result holds their arguments' elements.
_PASSING_BUILTINS = frozenset({"list", "tuple", "zip"})
# How far calls into functions of the module are followed.
_MAX_DEPTH = 4


def reduced_across_replicas(tf: TFModel, value: cst.BaseExpression, site: cst.Call | None = None) -> bool:
    """Every datum ``value`` carries comes from `<strategy>.reduce(...)` results (and there is one).

    Followed: names to the assignments that reach them (`for` and comprehension targets to what
    they iterate, a list built empty to what is appended to it, a tuple unpacked from a call to
    the position returned), arithmetic, conditional expressions, comprehensions, subscripts, calls
    of functions of the module to what they return, and other calls to their arguments
    (`tf.clip_by_global_norm(grads, 1.0)`). A parameter of the function ``site`` calls is followed
    to the argument ``site`` passes for it.
    """
    origins = _Tracer(tf, site).origins(value, None, 0)
    return origins == {_REDUCED}


class _Tracer:
    """Collects the origins of an expression, each (node, position) visited once."""

    def __init__(self, tf: TFModel, site: cst.Call | None) -> None:
        self.tf = tf
        self.site = site
        self.seen: set[tuple[int, int | None]] = set()

    def origins(self, value: cst.BaseExpression, position: int | None, depth: int) -> set[str]:
        """The origins of ``value`` (of its ``position``-th element when it is unpacked)."""
        key = (id(value), position)
        if key in self.seen:
            return set()  # a cycle (`acc = acc + g` in a loop): the other bindings decide
        self.seen.add(key)
        if isinstance(value, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)):
            return set()
        if isinstance(value, cst.Name):
            return set() if value.value in ("None", "True", "False") else self._name(value, position, depth)
        if isinstance(value, (cst.Tuple, cst.List)):
            elements = [e.value for e in value.elements]
            if position is not None and position < len(elements):
                elements = [elements[position]]
            return self._union(elements, depth)
        if isinstance(value, cst.BinaryOperation):
            return self._union([value.left, value.right], depth)
        if isinstance(value, cst.BooleanOperation):
            return self._union([value.left, value.right], depth)
        if isinstance(value, cst.UnaryOperation):
            return self.origins(value.expression, None, depth)
        if isinstance(value, cst.IfExp):
            return self._union([value.body, value.orelse], depth)
        if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            return self.origins(value.elt, None, depth)
        if isinstance(value, cst.Subscript):
            return self.origins(value.value, _constant_index(value), depth)
        if isinstance(value, cst.Call):
            return self._call(value, position, depth)
        return {_OTHER}

    def _union(self, values: list[cst.BaseExpression], depth: int) -> set[str]:
        found: set[str] = set()
        for value in values:
            found |= self.origins(value, None, depth)
        return found

    def _name(self, name: cst.Name, position: int | None, depth: int) -> set[str]:
        bindings = self.tf.semantic.resolve(name)
        if not bindings:
            return {_OTHER}
        found: set[str] = set()
        for binding in bindings:
            found |= self._given(binding, position, depth)
        return found

    def _given(self, binding: Binding, position: int | None, depth: int) -> set[str]:
        statement = binding.statement
        if binding.kind is BindingKind.PARAMETER:
            passed = self._passed(binding)
            return {_OTHER} if passed is None else self.origins(passed, position, depth)
        if binding.kind is BindingKind.LOOP and isinstance(statement, (cst.For, cst.CompFor)):
            return self._iterated(statement.iter, depth)
        if binding.kind is BindingKind.AUGMENTED and isinstance(statement, cst.AugAssign):
            return self.origins(statement.value, None, depth)  # the earlier bindings reach the use too
        if binding.kind is not BindingKind.ASSIGNMENT:
            return {_OTHER}
        if binding.value is not None:
            found = self.origins(binding.value, position, depth)
            if isinstance(binding.value, cst.List) and not binding.value.elements:
                found |= self._grown(binding, depth)
            return found
        unpacked = self._unpacked(binding)
        return {_OTHER} if unpacked is None else self.origins(unpacked[0], unpacked[1], depth)

    def _iterated(self, iterable: cst.BaseExpression, depth: int) -> set[str]:
        """What the elements of ``iterable`` carry (`zip(a, b)`: what ``a`` and ``b`` carry)."""
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "zip":
            return self._union([arg.value for arg in iterable.args if arg.keyword is None], depth)
        return self.origins(iterable, None, depth)

    def _grown(self, binding: Binding, depth: int) -> set[str]:
        """What `name.append(x)` calls in the binding's scope put into the list bound empty."""
        found: set[str] = set()
        for call in self.tf.index.calls:
            func = call.func
            if not (
                isinstance(func, cst.Attribute)
                and func.attr.value in _GROWERS
                and isinstance(func.value, cst.Name)
                and func.value.value == binding.name
                and call.args
            ):
                continue
            if binding in self.tf.semantic.resolve(func.value):
                found |= self.origins(call.args[-1].value, None, depth)
        return found

    def _unpacked(self, binding: Binding) -> tuple[cst.BaseExpression, int] | None:
        """``(call, i)`` for ``a, b = call(...)`` binding the ``i``-th name."""
        statement = binding.statement
        if not isinstance(statement, cst.Assign) or len(statement.targets) != 1:
            return None
        target = statement.targets[0].target
        if not isinstance(target, (cst.Tuple, cst.List)):
            return None
        for i, element in enumerate(target.elements):
            if isinstance(element, cst.StarredElement):
                return None
            if element.value is binding.node:
                return statement.value, i
            if binding.node in target_names(element.value):
                return None  # nested unpacking: `(a, b), c = ...`
        return None

    def _passed(self, binding: Binding) -> cst.BaseExpression | None:
        """The argument ``site`` passes for a parameter of the function it calls."""
        site = self.site
        func = binding.scope.node
        if site is None or not isinstance(func, cst.FunctionDef):
            return None
        if func not in self.tf.replica.resolve_callable(site.func, site):
            return None
        keyword = next((a.value for a in site.args if a.keyword is not None and a.keyword.value == binding.name), None)
        if keyword is not None:
            return keyword
        bound = isinstance(site.func, cst.Attribute) and takes_receiver(func)
        index = call_position(func, binding.name, skip_first=bound)
        positional = [a for a in site.args if a.keyword is None and not a.star]
        return positional[index].value if index is not None and index < len(positional) else None

    def _call(self, call: cst.Call, position: int | None, depth: int) -> set[str]:
        func = call.func
        if isinstance(func, cst.Attribute) and self.tf.strategies.is_strategy(func.value):
            return {_REDUCED} if func.attr.value == "reduce" else {_OTHER}  # `run` gives per-replica values
        if isinstance(func, cst.Attribute) and func.attr.value == "gradient":
            return {_OTHER}  # a tape's gradient, not reduced by anyone
        targets = self.tf.replica.resolve_callable(func, call)
        if targets:
            if depth >= _MAX_DEPTH:
                return {_OTHER}
            found: set[str] = set()
            for target in targets:
                returns = [r.value for r in self.tf.index.in_function("returns", target) if r.value is not None]
                if isinstance(target, cst.Lambda):
                    returns = [target.body]
                if not returns:
                    return {_OTHER}
                for returned in returns:
                    found |= self.origins(returned, position, depth + 1)
            return found
        # A TensorFlow op (`tf.clip_by_global_norm(grads, 1.0)`) or `list(...)`: its result carries
        # what its arguments carry. Any other call (a model, a method we cannot see) makes data.
        callee = self.tf.names.callee(call) or (func.value if isinstance(func, cst.Name) else "")
        if callee.startswith("tensorflow.") or callee in _PASSING_BUILTINS:
            return self._union([arg.value for arg in call.args], depth)
        return set() if callee == "len" else {_OTHER}


def _constant_index(subscript: cst.Subscript) -> int | None:
    """``0`` for ``pair[0]``; None for a slice, a negative or computed index."""
    if len(subscript.slice) != 1:
        return None
    part = subscript.slice[0].slice
    if isinstance(part, cst.Index) and isinstance(part.value, cst.Integer):
        return int(part.value.evaluated_value)
    return None
