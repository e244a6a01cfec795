"""Where a program tests objects against an experimental strategy class it may construct.

`tf.distribute.experimental.TPUStrategy` and `tf.distribute.TPUStrategy` are sibling classes, and
the experimental `MultiWorkerMirroredStrategy` subclasses the current one (measured on TensorFlow
2.21, benchmarks/probe_ledger14a_premises.py): an object built from the current class is no
instance of the experimental one. Renaming the construction while `isinstance(s,
tf.distribute.experimental.TPUStrategy)` stays (in the same file, or in a project script that
calls this module) flips that test: the program takes its non-TPU paths (ledger14a, wrong fix 2).
A test in a project file the import graph does not link to this module (a package reached through
`sys.path`, a copied `tf2_common/`; ledger16b) may flip too: :func:`project_type_test` finds it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from fixer.cache import file_stamp
from fixer.cell_lines import line_label
from fixer.tf.compat import is_type_check_argument
from fixer.tf.project_type_tests import candidates

if TYPE_CHECKING:
    import libcst as cst

    from fixer.cache import Stamp
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


def project_type_test(tf: TFModel, qualified: str) -> str | None:
    """Where a `.py` file that could import this module tests ``qualified`` with
    `isinstance`/`issubclass`: "`a/b.py` line N", the file nearest this one (the longest shared
    folder, then path order); None when none does or outside a project root.

    "Could import": a file of the project root under :func:`import_scope` of this module, so a
    monorepo of copies (MLPerf submissions) does not withdraw a ResNet's rename for a BERT copy's
    test. Every file there whose text could hold such a test becomes a dependency of the result
    (a test added to it or removed from it is seen at the next check), as do the `__init__.py`
    files that set the scope."""
    importers = tf.importers
    if importers is None:
        return None
    scope = import_scope(importers.path, importers.root, importers.consulted)
    files = importers.project_files()
    inside = {path: stamp for path, stamp in files.items() if path.startswith(scope) and path != importers.path}
    found: list[tuple[int, str, int]] = []
    for path, stamp, tests in candidates(inside):
        importers.consulted[path] = stamp
        line = dict(tests).get(qualified)
        if line is not None:
            shared = len(os.path.commonpath([path, importers.path]))
            found.append((-shared, path, line))
    if not found:
        return None
    _, path, line = min(found)
    return f"`{os.path.relpath(path, importers.root)}` line {line}"


def import_scope(module: str, root: str, consulted: dict[str, Stamp]) -> str:
    """The folder (with a trailing separator) whose files may import ``module``: the parent of the
    folder its outermost regular package (`__init__.py` chain) stands in, which a script importing
    it would be run from (one level up, so a namespace package's users count too); never above
    ``root``. A module outside any package: its folder's parent."""
    folder = os.path.dirname(module)
    while True:
        marker = os.path.join(folder, "__init__.py")
        consulted[marker] = file_stamp(marker)
        if consulted[marker] is None or os.path.dirname(folder) == folder:
            break
        folder = os.path.dirname(folder)
    scope = os.path.dirname(folder)
    if len(scope) < len(root) or not (scope + os.sep).startswith(root.rstrip(os.sep) + os.sep):
        scope = root
    return scope.rstrip(os.sep) + os.sep
