"""Gradient tapes wrapped by Horovod's ``DistributedGradientTape``.

``tape = hvd.DistributedGradientTape(tape)`` makes ``tape.gradient(...)`` return gradients already
all-reduced across the Horovod workers: they are not one replica's own, whatever is done with them
next (TFD301, ledger16b: the Habana ResNet trainers wrap the tape when Horovod is initialised and
pass it to the step helpers). The wrap is read on the flow model of fixer/semantic: one path that
wraps the tape before the ``gradient`` call is enough, in the call's function or, for a tape
received as a parameter, at a call site of that function in the module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic import BindingKind
from fixer.tf.names import dotted_name
from fixer.tf.parameters import positional_parameters

if TYPE_CHECKING:
    from fixer.tf.model import TFModel

_WRAPPER = "DistributedGradientTape"
_MAX_CALLERS = 2  # helper levels a tape is followed through, parameter to argument


def horovod_reduced(tf: TFModel, gradient: cst.Call) -> bool:
    """``<tape>.gradient(...)`` where some path gives ``<tape>`` a Horovod ``DistributedGradientTape``."""
    receiver = gradient.func.value if isinstance(gradient.func, cst.Attribute) else None
    return isinstance(receiver, cst.Name) and _wrapped(tf, receiver, _MAX_CALLERS)


def _wrapped(tf: TFModel, use: cst.Name, depth: int) -> bool:
    """A value that can reach ``use`` is a ``DistributedGradientTape(...)``, directly or through the
    argument a caller of the enclosing function passes for it."""
    for candidate in tf.semantic.resolve(use):
        value = candidate.value
        if isinstance(value, cst.Call) and (dotted_name(value.func) or "").rsplit(".", 1)[-1] == _WRAPPER:
            return True
        if candidate.kind is BindingKind.PARAMETER and depth > 0 and isinstance(candidate.node, cst.Param):
            func = candidate.scope.node
            if isinstance(func, cst.FunctionDef) and _passed_wrapped(tf, func, candidate.node, depth - 1):
                return True
    return False


def _passed_wrapped(tf: TFModel, func: cst.FunctionDef, param: cst.Param, depth: int) -> bool:
    """A call of ``func`` in the module passes a wrapped tape for ``param``."""
    positional = positional_parameters(func)
    position = positional.index(param) if param in positional else None
    for site in tf.strategies.call_sites(func):
        passed = [a for a in site.args if a.keyword is not None and a.keyword.value == param.name.value]
        if not passed and position is not None:
            given = [a for a in site.args if a.keyword is None and not a.star]
            passed = given[position : position + 1]
        if any(isinstance(a.value, cst.Name) and _wrapped(tf, a.value, depth) for a in passed):
            return True
    return False
