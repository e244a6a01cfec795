"""Replica functions compiled at run time, and ones that are eager on purpose (TFD402).

Three shapes the call site alone does not show:

- orbit's options: `StandardTrainerOptions(use_tf_function=...)` defaults to true, so only a
  literal false turns the compiled loop off; a config field or flag whose value the module does not
  state counts as the default, as a missing argument does.
- the attribute form of run-time wrapping: `self.train_step = tf.function(self.train_step)` in the
  loop method (under a flag or not) before that method reaches `strategy.run(self.train_step, ...)`.
- orbit's trainer reached through a project class of another module (`trainer_lib._AsyncTrainer`).
- a replica function that calls `.numpy()`: that needs eager tensors, so `tf.function` cannot
  compile it as written and running it eagerly is its design.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.classes import enclosing_class
from fixer.tf.names import dotted_name

if TYPE_CHECKING:
    from fixer.tf.model import TFModel
    from fixer.tf.replica import RunCall

_ORBIT_OPTIONS = frozenset({"StandardTrainerOptions", "StandardEvaluatorOptions"})
# What compiles its argument: `tf.function`, and TF-Agents' `common.function` (a `tf.function` with
# autograph settings of its own).
_COMPILING_WRAPPERS = frozenset({"tensorflow.function", "tf_agents.utils.common.function"})


def orbit_compiling_turned_off(tf: TFModel) -> bool:
    """The module passes a literal false (`False`, `0`) as `use_tf_function` to orbit's options."""
    for call in tf.index.calls:
        name = (tf.names.callee(call) or dotted_name(call.func) or "").rsplit(".", 1)[-1]
        if name not in _ORBIT_OPTIONS:
            continue
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "use_tf_function" and _literal_false(arg.value):
                return True
    return False


def _literal_false(value: cst.BaseExpression) -> bool:
    if isinstance(value, cst.Name):
        return value.value == "False"
    return isinstance(value, cst.Integer) and value.value == "0"


def attribute_compiled_in_class(tf: TFModel, run: RunCall) -> bool:
    """``run`` runs ``self.<attr>`` and a method of the same class assigns ``self.<attr> =
    tf.function(...)`` (the loop method, under a flag or not, before it calls the step that holds
    the run: a flag that turns compiling off is the user's choice to debug eagerly)."""
    key = dotted_name(run.fn) if isinstance(run.fn, cst.Attribute) else None
    cls = enclosing_class(tf.index, run.call)
    if key is None or cls is None:
        return False
    for assign in tf.index.assigns:
        if not isinstance(assign, cst.Assign) or enclosing_class(tf.index, assign) is not cls:
            continue
        if _compiles(tf, assign.value) and any(dotted_name(target.target) == key for target in assign.targets):
            return True
    return False


def _compiles(tf: TFModel, value: cst.BaseExpression) -> bool:
    """``value`` is a `tf.function(...)` call; spelled `tf.function` also where the module's
    `tf` comes from somewhere the resolver does not follow (a project module re-exporting it);
    or TF-Agents' ``common.function(...)``, which returns ``tf.function(...)`` of its argument."""
    if not isinstance(value, cst.Call):
        return False
    return tf.names.callee(value) in _COMPILING_WRAPPERS or dotted_name(value.func) == "tf.function"


def orbit_base_in_project(tf: TFModel, base: cst.BaseExpression, orbit_class: str) -> bool:
    """``base`` is a class of another project module (`trainer_lib._AsyncTrainer`) that derives,
    there, from orbit's ``orbit_class``."""
    return any(
        parts[-1] == orbit_class and "orbit" in parts[:-1]
        for parts in (name.split(".") for name in tf.project.lineage(base).libraries)
    )


def eager_by_design(tf: TFModel, run: RunCall) -> bool:
    """A function ``run`` runs calls `.numpy()` (on a decoded token, a step's value): it needs
    eager tensors, so compiling it would fail; it is eager on purpose."""
    return any(
        isinstance(call.func, cst.Attribute) and call.func.attr.value == "numpy" and not call.args
        for target in run.targets
        for call in tf.replica.calls_in(target)
    )
