"""The optimizer a trainer class is given: ``self.optimizer = optimizer`` in its ``__init__``, and
the module's constructions of the class pass a name bound once to a Keras optimizer constructor
(``Trainer(model, optimizer=opt)`` after ``opt = tf.keras.optimizers.Adam(...)``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.calls import argument_value
from fixer.tf.classes import enclosing_class
from fixer.tf.names import dotted_name
from fixer.tf.optimizers import optimizer_creation
from fixer.tf.parameters import named_parameters

if TYPE_CHECKING:
    from fixer.tf.model import TFModel


def passed_optimizer_class(tf: TFModel, receiver: cst.BaseExpression) -> str | None:
    """The optimizer class every construction of the class gives ``receiver`` (``self.<attr>``)
    through an ``__init__`` parameter; None when unknown, several, or not constructed here.
    A construction passing ``None`` is left out: that object cannot apply gradients. When the
    module constructs the class nowhere, the project's other files that do are asked."""
    if not (isinstance(receiver, cst.Attribute) and dotted_name(receiver.value) == "self"):
        return None
    cls = enclosing_class(tf.index, receiver)
    init = next(
        (
            f
            for f in tf.index.functions_by_name.get("__init__", [])
            if isinstance(f, cst.FunctionDef) and tf.index.method_class(f) is cls
        ),
        None,
    )
    if cls is None or init is None:
        return None
    parameter = _parameter_stored_in(tf, init, dotted_name(receiver))
    if parameter is None:
        return None
    params = [p.name.value for p in named_parameters(init)][1:]  # without self
    position = params.index(parameter)
    classes: set[str | None] = set()
    for call in tf.index.calls:
        if dotted_name(call.func) != cls.name.value:
            continue
        value = argument_value(call, position, parameter)
        if isinstance(value, cst.Name) and value.value == "None":
            continue  # a trainer built without an optimizer (to restore or predict) applies no gradients
        creation = optimizer_creation(tf, value) if isinstance(value, cst.Name) else None
        classes.add(creation.class_name if creation is not None else None)
    if not classes:
        classes = _classes_from_importers(tf, cls.name.value, parameter, position, _defaults_to_none(init, parameter))
    return classes.pop() if len(classes) == 1 else None


def _classes_from_importers(
    tf: TFModel, cls: str, parameter: str, position: int, none_by_default: bool
) -> set[str | None]:
    """The optimizer classes the project's other files construct ``cls`` with (a name bound to a
    Keras optimizer constructor there: fixer/tf/importers.py); None for any other value."""
    importers = tf.importers
    classes: set[str | None] = set()
    for use in importers.uses(cls) if importers is not None else ():
        given = dict(use.optimizers)
        kind = given.get(parameter, given.get(str(position)))
        if kind == "None" or (kind is None and none_by_default):
            continue  # constructed without an optimizer: it applies no gradients
        classes.add(kind or None)
    return classes


def _defaults_to_none(init: cst.FunctionDef, parameter: str) -> bool:
    """``parameter`` of ``init`` has the default `None`."""
    return any(
        p.name.value == parameter and isinstance(p.default, cst.Name) and p.default.value == "None"
        for p in named_parameters(init)
    )


def _parameter_stored_in(tf: TFModel, init: cst.FunctionDef, key: str | None) -> str | None:
    """The parameter of ``init`` that ``self.<attr> = <parameter>`` stores, when that is the
    attribute's only assignment in ``init``."""
    params = {p.name.value for p in named_parameters(init)}
    stored = [
        assign.value.value
        for assign in tf.index.in_function("assigns", init)
        if isinstance(assign, cst.Assign)
        and any(dotted_name(t.target) == key for t in assign.targets)
        and isinstance(assign.value, cst.Name)
    ]
    return stored[0] if len(stored) == 1 and stored[0] in params else None
