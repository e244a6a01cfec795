"""Methods that run in graph mode because of the class they belong to, not because of how they
are written: the methods of an Estimator `SessionRunHook` (the Estimator calls `begin` while it
builds its graph, `before_run`/`after_run` around `Session.run`), and a step a base class wraps
with `tf.function` at run time (`self.train_fn = tf.function(self.train_step)`), possibly in
another module of the project.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.classes import bases_in_module, enclosing_class
from fixer.tf.project_imports import Lineage

if TYPE_CHECKING:
    from fixer.tf.model import TFModel

_HOOK = "SessionRunHook"
_HOOK_ROOTS = frozenset({"tensorflow", "tensorflow_estimator"})


def runs_in_graph(tf: TFModel, node: cst.CSTNode) -> bool:
    """True when ``node`` sits in a method of a `SessionRunHook` subclass (also in a function
    nested in one), or in a method some class of its hierarchy compiles with ``tf.function(self.m)``."""
    cls = enclosing_class(tf.index, node)
    if cls is None:
        return False
    lineage = _lineage(tf, cls)
    if any(name.rpartition(".")[2] == _HOOK and name.split(".")[0] in _HOOK_ROOTS for name in lineage.libraries):
        return True
    method = _method_of(tf, node, cls)
    return method is not None and method.name.value in lineage.compiled


def _lineage(tf: TFModel, cls: cst.ClassDef) -> Lineage:
    """The library bases and run-time-compiled methods of ``cls``, through the module's own bases
    and the project modules its bases come from."""
    found = Lineage()
    for owner in (cls, *bases_in_module(tf.index, cls)):
        for base in owner.bases:
            qualified = tf.names.qualified(base.value)
            if qualified is not None:
                found |= Lineage(libraries=frozenset({qualified}))
            found |= tf.project.lineage(base.value)
    return found


def _method_of(tf: TFModel, node: cst.CSTNode, cls: cst.ClassDef) -> cst.FunctionDef | None:
    """The method of ``cls`` that holds ``node``."""
    func = tf.index.enclosing_function(node)
    while func is not None:
        if isinstance(func, cst.FunctionDef) and tf.index.method_class(func) is cls:
            return func
        func = tf.index.enclosing_function(func)
    return None
