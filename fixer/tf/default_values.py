"""The value an expression holds when nothing overrides a default: a flag the project's
launchers pass one value (or none, leaving the default), a parameter no call of the module gives.

`model.save_weights("/tmp/" + args.weights)` with `parser.add_argument("--weights",
default="w.h5")`, or `def main(path="w.h5")` called as `main()`: the path ends in `.h5` unless
the command line (or another module) says otherwise; a TFJob whose `args:` give
`--weights=final.h5` says the flag is `final.h5`. Rules that read a file's suffix ask here
(TFD503's HDF5 exemption). Module constants need nothing more than the semantic model's
``value_of``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic.bindings import BindingKind
from fixer.sources import SourceError, open_regular
from fixer.tf.flags import flag_read
from fixer.tf.parameters import call_position

if TYPE_CHECKING:
    from fixer.tf.flags import Flag
    from fixer.tf.model import TFModel


def flag_text(tf: TFModel, node: cst.BaseExpression) -> str | None:
    """The one string the flag ``node`` reads (``args.out``, ``FLAGS.out``) holds: the value every
    launcher of the project that passes it gives (``--out=w.h5``, ``--out w.h5``, list items), or
    its string default when none passes it. None when it is no flag, the launchers are unknown
    (no project root), they pass different values, or there is no string default to fall back on."""
    flag = flag_read(tf, node) if isinstance(node, cst.Attribute) else None
    if flag is None or tf.launchers is None:
        return None
    passed = _launched_values(tf, flag)
    if passed is None or len(passed) > 1:
        return None
    if passed:
        return passed.pop()
    default = flag.default
    if isinstance(default, cst.SimpleString) and isinstance(default.evaluated_value, str):
        return default.evaluated_value
    return None


def _launched_values(tf: TFModel, flag: Flag) -> set[str] | None:
    """The values the project's launchers of this script give ``flag``; None when one cannot be read."""
    assert tf.launchers is not None
    options = "|".join(re.escape(option) for option in flag.options)
    named = re.compile(rf"(?:{options})(?![\w-])")
    # `--out=v`, `--out v`, `"--out", "v"`; a value never starts with a dash (that is the next flag).
    given = re.compile(rf"""(?:{options})["']?(?:=|\s+|,\s*["']?)["']?([^\s"',\]-][^\s"',\]]*)""")
    found: set[str] = set()
    for launcher in tf.launchers.launchers():
        try:
            with open_regular(launcher.path) as handle:
                text = handle.read().decode("utf-8", errors="replace")
        except (OSError, SourceError):
            return None
        values = [match.group(1) for match in given.finditer(text)]
        if len(values) < len(named.findall(text)):
            return None  # passed in a way not read here (a YAML item per line, a variable)
        found.update(values)
    return found


def default_value(tf: TFModel, node: cst.BaseExpression) -> cst.BaseExpression | None:
    """The default ``node`` holds: a parameter's default when every call of its function in the
    module leaves it out (and there is one); None when there is no such default or something may
    pass another value. (A flag's value: :func:`flag_text`.)"""
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
