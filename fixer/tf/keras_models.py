"""Keras `Model` subclasses of a module, and the step overrides Keras runs on every replica.

`Model.fit` and `Model.evaluate` call `train_step` / `test_step` inside `strategy.run` when the
model belongs to a strategy, so an override of either is a replica function as much as a
function given to `strategy.run` by hand (measured on TensorFlow 2.21, Keras 3 and tf-keras:
`strategy.reduce` in `train_step` raises `Method requires being in cross-replica context`, and a
`tf.reduce_mean` loss applied there moves the weights twice as far with 2 replicas).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.classes import bases_in_module, subclasses_in_module
from fixer.tf.strategies import Membership, StrategyModel

if TYPE_CHECKING:
    from fixer.tf.index import ModuleIndex
    from fixer.tf.names import NameResolver

KERAS_MODELS = frozenset({"keras.Model", "keras.models.Model", "keras.Sequential", "keras.models.Sequential"})
# The overrides `fit` and `evaluate` run per replica. `predict_step` is left out: nothing in it
# trains or reports a metric the way the rules look for.
STEP_METHODS = ("train_step", "test_step")


def keras_model_base(index: ModuleIndex, names: NameResolver, cls: cst.ClassDef) -> cst.BaseExpression | None:
    """The Keras model class ``cls`` derives from (directly or through classes of the module), or None."""
    for candidate in [cls, *bases_in_module(index, cls)]:
        for arg in candidate.bases:
            if names.qualified(arg.value) in KERAS_MODELS:
                return arg.value
    return None


def keras_steps(index: ModuleIndex, names: NameResolver, strategies: StrategyModel) -> frozenset[cst.FunctionDef]:
    """`train_step` / `test_step` overrides of Keras models that the module uses under a strategy.

    A model is used under a strategy when an instance of its class (or of a subclass in the
    module) is constructed where a strategy scope is entered (by the scope block around it or by
    the call sites of the function that constructs it), or is bound to a name that code in a
    scope block uses (`model = Net()` before `with strategy.scope(): model.compile(...)`). A class
    the module never instantiates (a library of models) is not followed.
    """
    found: set[cst.FunctionDef] = set()
    for name in STEP_METHODS:
        for func in index.functions_by_name.get(name, []):
            owner = index.method_class(func)
            if owner is None or keras_model_base(index, names, owner) is None:
                continue
            if any(_used_under_strategy(index, strategies, call) for call in _constructions(index, owner)):
                found.add(func)
    return frozenset(found)


def _constructions(index: ModuleIndex, cls: cst.ClassDef) -> list[cst.Call]:
    """Calls of ``cls`` or of one of its subclasses in the module (``Net(...)``)."""
    calls = []
    for klass in [cls, *subclasses_in_module(index, cls)]:
        for name in index.names.get(klass.name.value, []):
            parent = index.parent.get(name)
            if isinstance(parent, cst.Call) and parent.func is name:
                calls.append(parent)
    return calls


def _used_under_strategy(index: ModuleIndex, strategies: StrategyModel, construction: cst.Call) -> bool:
    if strategies.membership(construction) is Membership.INSIDE:
        return True
    assign = index.parent.get(construction)
    if not isinstance(assign, cst.Assign) or assign.value is not construction:
        return False
    scope = index.enclosing_function(assign)
    for target in assign.targets:
        if not isinstance(target.target, cst.Name):
            continue
        for use in index.names.get(target.target.value, []):
            if index.enclosing_function(use) is scope and strategies.lexical_scope_block(use) is not None:
                return True
    return False
