"""Which `if` arm a command-line flag selects when the command line leaves it out.

`if args.distribute == "multi": strategy = MultiWorkerMirroredStrategy()` under
`parser.add_argument("--distribute", default="single")` runs only when something passes
`--distribute multi`. When no launcher of the project does (fixer/tf/script_launchers.py), the
flag holds its default and that arm does not run: what it builds is not the program's strategy.
Only plain string tests are read (`flag == "value"`, `"value" == flag`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

from fixer.sources import SourceError, open_regular
from fixer.tf.flags import Flag, flag_read

if TYPE_CHECKING:
    from fixer.semantic.bindings import Branch
    from fixer.tf.model import TFModel


def _string(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
        return node.evaluated_value
    return None


def _flag_test(tf: TFModel, test: cst.BaseExpression) -> tuple[Flag, str] | None:
    """``(flag, value)`` for a test ``flag == "value"`` (either side), else None."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    if not isinstance(target.operator, cst.Equal):
        return None
    for read, literal in ((test.left, target.comparator), (target.comparator, test.left)):
        flag = flag_read(tf, read)
        value = _string(literal)
        if flag is not None and value is not None:
            return flag, value
    return None


def _passed(tf: TFModel, flag: Flag, value: str | None) -> bool:
    """A launcher of the project starts the script with ``--flag value`` (or ``--flag=value``, or
    the two as list items; any value when ``value`` is None). Unknown launchers (no project root)
    count as passing it."""
    launchers = tf.launchers
    if launchers is None:
        return True
    options = "|".join(re.escape(option) for option in flag.options)
    wanted = re.escape(value) + r"\b" if value is not None else ""
    given = re.compile(rf"""(?:{options})["']?\s*(?:=|,|\s)\s*["']?{wanted}""")
    for launcher in launchers.launchers():
        try:
            with open_regular(launcher.path) as handle:
                text = handle.read().decode("utf-8", errors="replace")
        except (OSError, SourceError):
            return True
        if given.search(text):
            return True
    return False


def off_by_default(tf: TFModel, branch: tuple[Branch, ...]) -> bool:
    """True when one `if` arm in ``branch`` runs only for a flag value other than the flag's
    string default, and no launcher of the project passes that value: the body of
    ``if flag == "multi":`` with default ``"single"``, or the else of ``if flag == "single":``."""
    for arm in branch:
        if not isinstance(arm.node, cst.If) or arm.arm not in ("body", "else"):
            continue
        tested = _flag_test(tf, arm.node.test)
        if tested is None:
            continue
        flag, value = tested
        default = _string(flag.default) if flag.default is not None else None
        if default is None:
            continue
        if arm.arm == "body" and default != value and not _passed(tf, flag, value):
            return True
        if arm.arm == "else" and default == value and not _passed(tf, flag, None):
            return True  # the default takes the body; another value would have to be passed
    return False
