"""Which files of a project test objects against a `tf.distribute.experimental` class.

`isinstance(s, tf.distribute.experimental.TPUStrategy)` anywhere in a project is a reason not to
rename the construction of that class to its current (sibling) name behind the user's back: the
object built would stop matching the test (benchmarks/probe_ledger14a_premises.py). The module
holding the construction is often not linked to the test by an import the project view can
follow (a package reached through `sys.path`, a copied `tf2_common/`; ledger16b), so every `.py`
file of the project root is asked, cheaply: a word test on its bytes first (`experimental` and
`isinstance`/`issubclass`), CPython's `ast` only for the few that pass, and each file's answer kept
by its stamp for the process (the project view re-lists and re-stats the files once per analysis
in the language server, so an edited file is read again).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from fixer.sources import SourceError, open_regular
from fixer.syntax import parse_module
from fixer.tf.module_summary import dotted, module_imports
from fixer.tf.names import canonical

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from fixer.cache import Stamp
    from fixer.tf.module_summary import ImportRef

EXPERIMENTAL_DISTRIBUTE = "tensorflow.distribute.experimental."
_TESTS = ("isinstance", "issubclass")
_MAX_BYTES = 2_000_000  # a generated file this large holds no hand-written type test
# Per process: each file's tested classes (qualified name, first line), by path, with its stamp.
_READ: dict[str, tuple[Stamp, tuple[tuple[str, int], ...] | None]] = {}


def experimental_type_tests(calls: Iterable[ast.Call], imports: Mapping[str, ImportRef]) -> dict[str, int]:
    """Each `tf.distribute.experimental` class the ``calls`` test with `isinstance`/`issubclass`
    (alone or in a tuple), with its first line."""
    found: dict[str, int] = {}
    for call in calls:
        if not (isinstance(call.func, ast.Name) and call.func.id in _TESTS and len(call.args) == 2):
            continue
        tested = call.args[1]
        for node in tested.elts if isinstance(tested, ast.Tuple) else [tested]:
            name = dotted(node) or ""
            head, _, rest = name.partition(".")
            ref = imports.get(head)
            if ref is None or ref.level:
                continue
            # `import tensorflow.compat.v2 as tf` (the Model Garden's habit) names the same class.
            qualified = canonical(".".join(part for part in (ref.module, ref.name, rest) if part))
            if qualified.startswith(EXPERIMENTAL_DISTRIBUTE):
                found.setdefault(qualified, call.lineno)
    return found


def candidates(files: Mapping[str, Stamp]) -> Iterable[tuple[str, Stamp, tuple[tuple[str, int], ...]]]:
    """The files that may hold such a test (their text passes the word test), with their stamp and
    the tests found in them."""
    for path, stamp in files.items():
        cached = _READ.get(path)
        if cached is None or cached[0] != stamp:
            cached = _READ[path] = (stamp, _read(path, stamp))
        if cached[1] is not None:
            yield path, stamp, cached[1]


def _read(path: str, stamp: Stamp) -> tuple[tuple[str, int], ...] | None:
    """The tests in ``path``; None when its text cannot hold one (not read with `ast` then)."""
    if stamp is None or stamp[0] > _MAX_BYTES:
        return None
    try:
        with open_regular(path) as handle:
            data = handle.read()
    except (OSError, SourceError):
        return None
    if b"experimental" not in data or not any(word.encode() in data for word in _TESTS):
        return None
    try:
        tree = parse_module(data.decode("utf-8", errors="replace"))
    except (SyntaxError, ValueError, RecursionError):
        return None
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    return tuple(sorted(experimental_type_tests(calls, module_imports(tree)).items()))
