"""Where a program tests objects against an experimental strategy class it may construct.

`tf.distribute.experimental.TPUStrategy` and `tf.distribute.TPUStrategy` are sibling classes, and
the experimental `MultiWorkerMirroredStrategy` subclasses the current one (measured on TensorFlow
2.21, benchmarks/probe_ledger14a_premises.py): an object built from the current class is no
instance of the experimental one. Renaming the construction while `isinstance(s,
tf.distribute.experimental.TPUStrategy)` stays (in the same file, or in a project script that
calls this module) flips that test: the program takes its non-TPU paths (ledger14a, wrong fix 2).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from fixer.cell_lines import line_label
from fixer.tf.compat import is_type_check_argument

if TYPE_CHECKING:
    import libcst as cst

    from fixer.tf.model import TFModel


def type_test_of(tf: TFModel, qualified: str) -> str | None:
    """Where ``qualified`` (an experimental class) is an `isinstance`/`issubclass` argument: "line
    N" in this file, or "`main.py` line N" in a project file that calls one of this module's
    functions or classes (its stamp then keys the cached result); None when nowhere."""
    index = tf.index
    last = qualified.rsplit(".", 1)[-1]
    candidates: list[cst.BaseExpression] = [a for a in index.attributes if a.attr.value == last]
    candidates += index.names.get(last, [])
    for node in sorted(candidates, key=lambda n: tf.range(n).start.line):
        if tf.names.qualified(node) == qualified and is_type_check_argument(index, node):
            return line_label(tf.text, tf.range(node).start.line)
    importers = tf.importers
    if importers is None:
        return None
    for use in importers.uses():
        line = dict(use.type_tests).get(qualified)
        if line is not None:
            return f"`{os.path.relpath(use.importer, importers.root)}` line {line}"
    return None
