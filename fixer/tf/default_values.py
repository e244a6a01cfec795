"""The value an expression holds when nothing overrides a default: a flag nobody passes, a
parameter no call of the module gives.

`model.save_weights("/tmp/" + args.weights)` with `parser.add_argument("--weights",
default="w.h5")`, or `def main(path="w.h5")` called as `main()`: the path ends in `.h5` unless the
command line (or another module) says otherwise. Rules that read a file's suffix ask here (TFD503's
HDF5 exemption). Module constants need nothing more than the semantic model's ``value_of``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic.bindings import BindingKind
from fixer.tf.flags import flag_read
from fixer.tf.parameters import call_position

if TYPE_CHECKING:
    from fixer.tf.model import TFModel


def default_value(tf: TFModel, node: cst.BaseExpression) -> cst.BaseExpression | None:
    """The default ``node`` holds: a flag's `default=` for ``args.<flag>`` / ``FLAGS.<flag>``,
    a parameter's default when every call of its function in the module leaves it out (and
    there is one); None when there is no such default or something may pass another value."""
    if isinstance(node, cst.Attribute):
        flag = flag_read(tf, node)
        return flag.default if flag is not None else None
    if not isinstance(node, cst.Name):
        return None
    found = tf.semantic.only_binding(node)
    if found is None or found.kind is not BindingKind.PARAMETER or not isinstance(found.node, cst.Param):
        return None
    param = found.node
    function = found.scope.node
    if param.default is None or not isinstance(function, cst.FunctionDef):
        return None
    calls = [c for c in tf.index.calls if isinstance(c.func, cst.Name) and c.func.value == function.name.value]
    return param.default if calls and all(_leaves_out(function, param, call) for call in calls) else None


def _leaves_out(function: cst.FunctionDef, param: cst.Param, call: cst.Call) -> bool:
    """``call`` passes nothing for ``param``: no such keyword, too few positional arguments, no
    ``*``/``**`` unpacking."""
    if any(arg.star for arg in call.args):
        return False
    if any(arg.keyword is not None and arg.keyword.value == param.name.value for arg in call.args):
        return False
    position = call_position(function, param.name.value, skip_first=False)
    positional = sum(1 for arg in call.args if arg.keyword is None)
    return position is None or positional <= position
