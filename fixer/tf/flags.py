"""Command-line flags a script defines and their defaults (argparse and absl).

A value read from a flag that nothing passes is the flag's default: `args.model_dir` with
`parser.add_argument("--model_dir", default=os.environ["SM_MODEL_DIR"])`, `FLAGS.distribute` with
`flags.DEFINE_string("distribute", "single", ...)`. Rules ask what such a read holds when the
command line does not say (TFD502: a per-container save folder, a single-device strategy).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.calls import argument_value

if TYPE_CHECKING:
    from fixer.tf.model import TFModel

_ABSL_DEFINE = "DEFINE_"


@dataclass(frozen=True)
class Flag:
    """One flag: its name as the program reads it (``args.<name>``), its option spelling on a
    command line (``--model-dir``, or the absl name) and its default (None when it has none)."""

    name: str
    options: tuple[str, ...]
    default: cst.BaseExpression | None


def _string(node: cst.BaseExpression | None) -> str | None:
    if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
        return node.evaluated_value
    return None


def _argparse_flag(call: cst.Call) -> Flag | None:
    options = [s for arg in call.args if arg.keyword is None and (s := _string(arg.value)) is not None]
    longs = [o for o in options if o.startswith("--")]
    if not longs:
        return None
    dest = _string(argument_value(call, None, "dest")) or longs[0][2:].replace("-", "_")
    return Flag(dest, tuple(longs), argument_value(call, None, "default"))


def _absl_flag(call: cst.Call) -> Flag | None:
    name = _string(argument_value(call, 0, "name"))
    if name is None:
        return None
    return Flag(name, (f"--{name}",), argument_value(call, 1, "default"))


def defined_flags(tf: TFModel) -> dict[str, Flag]:
    """Every flag the module defines, by the name the program reads it under."""
    found: dict[str, Flag] = {}
    for call in tf.index.calls:
        func = call.func
        if not isinstance(func, cst.Attribute):
            continue
        attr = func.attr.value
        flag = None
        if attr == "add_argument":
            flag = _argparse_flag(call)
        elif attr.startswith(_ABSL_DEFINE):
            flag = _absl_flag(call)
        if flag is not None:
            found.setdefault(flag.name, flag)
    return found


def flag_read(tf: TFModel, node: cst.BaseExpression) -> Flag | None:
    """The flag ``node`` reads (``args.distribute``, ``FLAGS.distribute``), or None."""
    if not isinstance(node, cst.Attribute) or not isinstance(node.value, cst.Name):
        return None
    return defined_flags(tf).get(node.attr.value)
