"""Which files are tests: their literal clusters and TF_CONFIGs are fixtures, not deployments."""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

import libcst as cst

from fixer.tf.index import ModuleIndex, subtree

if TYPE_CHECKING:
    from collections.abc import Iterator


def is_test_path(path: str) -> bool:
    """True for ``test_*.py``, ``*_test.py``/``*_tests.py`` and ``conftest.py``: the names pytest
    and unittest discovery (and TensorFlow's own suites) use. Folders are not looked at: a
    checkout may sit under any folder, and a helper module in ``tests/`` may be a real script."""
    stem = PurePath(path.replace("\\", "/")).stem
    return stem.startswith("test_") or stem.endswith(("_test", "_tests")) or stem == "conftest"


def is_test_file(path: str, module: cst.Module) -> bool:
    """:func:`is_test_path`, or a module whose name has a ``_test_`` segment
    (``cluster_test_with_visible_devices.py``) and that defines tests: a ``TestCase`` subclass
    (unittest, ``tf.test``, absl) or a top-level ``test*`` function. A ``_test_`` name alone is no
    proof (``run_test_job.py`` may launch a real cluster), nor is a TestCase alone (a script may
    keep one next to its training code), so both must hold. The rules call this; the prefilter
    (path only, :data:`fixer.facts.NOT_A_TEST`) may keep such a file and leave it to the rule."""
    if is_test_path(path):
        return True
    stem = PurePath(path.replace("\\", "/")).stem
    return "_test_" in f"_{stem}_" and _defines_tests(module)


def _defines_tests(module: cst.Module) -> bool:
    """A top-level class deriving from a ``*TestCase`` base, or a top-level ``test*`` function."""
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value.startswith("test"):
            return True
        if isinstance(statement, cst.ClassDef) and any(_test_case_base(base.value) for base in statement.bases):
            return True
    return False


def _test_case_base(base: cst.BaseExpression) -> bool:
    """``TestCase``, ``unittest.TestCase``, ``tf.test.TestCase``, ``parameterized.TestCase``..."""
    name = base.attr.value if isinstance(base, cst.Attribute) else base.value if isinstance(base, cst.Name) else ""
    return name.endswith("TestCase")


# Folders that hold what a test reads or runs rather than the tests themselves.
_FIXTURE_FOLDERS = frozenset({"testdata", "test_data", "test-data", "fixtures"})
_TEST_FOLDERS = frozenset({"test", "tests", "testing"})
_TEST_SUPPORT_FOLDERS = frozenset({"data", "resources", "resource", "fixtures", "assets", "scripts"})


def is_fixture_script(path: str) -> bool:
    """True for a script kept among a test suite's data: under a ``testdata``/``test_data``/``fixtures``
    folder, or under a ``data``/``resources``/``scripts`` folder directly inside ``test``/``tests``
    (``tests/testdata/train.py``, ``test/resources/job/train_dummy.py``, also a folder named for
    tests, ``analysis.test/data/model.py``). A test runs it to exercise something else (a launcher,
    a container, a cloud job, a static analyser reading it) and checks that the job starts and ends
    or what the tool says of it, not what the model learns. A ``data`` folder elsewhere (a
    collection of scripts) is not one."""
    folders = [part.lower() for part in PurePath(path.replace("\\", "/")).parts[:-1]]
    if any(folder in _FIXTURE_FOLDERS for folder in folders):
        return True
    return any(
        _is_test_folder(parent) and folder in _TEST_SUPPORT_FOLDERS
        for parent, folder in zip(folders, folders[1:], strict=False)
    )


def _is_test_folder(folder: str) -> bool:
    """``test``/``tests``/``testing``, or a project folder named for its tests: an Eclipse/OSGi test
    bundle (``com.example.analysis.test``), ``integration_tests``, ``unit-test``."""
    if folder in _TEST_FOLDERS:
        return True
    return any(folder.endswith(separator + word) for separator in "._-" for word in ("test", "tests"))


def assertion_free_test(index: ModuleIndex, node: cst.CSTNode) -> bool:
    """True when ``node`` sits in a test function (``test*``) that asserts nothing, directly or
    through a function or method of the module it calls: a smoke test that only checks the code
    runs, whose outcome no scaling or numeric detail of the code can change. The caller decides
    that the file is a test file (:func:`is_test_path`)."""
    test = enclosing_test(index, node)
    if test is None or _asserts_in(index, test):
        return False
    return not _helpers_assert(index, test)


def enclosing_test(index: ModuleIndex, node: cst.CSTNode) -> cst.FunctionDef | None:
    """The outermost test function (``test*``) ``node`` sits in, or None."""
    test = None
    func = index.enclosing_function(node)
    while func is not None:
        if isinstance(func, cst.FunctionDef) and func.name.value.startswith("test"):
            test = func
        func = index.enclosing_function(func)
    return test


def compares_only(index: ModuleIndex, test: cst.FunctionDef) -> bool:
    """True when every assertion of ``test`` compares two values the test computes (as
    ``self.assertAllClose(model_v.numpy(), model2_v.numpy())``: neither side a literal), at least
    one does, and no function of the module it calls asserts: whatever scales both sides alike
    cannot change its outcome."""
    assertions = [n for n in subtree(test) if _is_assertion(n)]
    if not assertions or not all(_relative(n) for n in assertions):
        return False
    return not _helpers_assert(index, test)


def _relative(assertion: cst.CSTNode) -> bool:
    """An assertion call whose first two arguments are both computed (no literal expected value)."""
    if type(assertion) is not cst.Call or len(assertion.args) < 2:
        return False
    return not any(_literal(arg.value) for arg in assertion.args[:2])


def _literal(node: cst.BaseExpression) -> bool:
    """A number, string, `None`/`True`/`False`, a list/tuple of them (also negated), or a call
    given only such values (`np.array([[1.0]])`, `np.ones((2, 3))`): an expected value."""
    if isinstance(node, cst.UnaryOperation):
        return _literal(node.expression)
    if isinstance(node, cst.Call):
        return bool(node.args) and all(_literal(arg.value) for arg in node.args)
    if isinstance(node, cst.List | cst.Tuple):
        return all(_literal(element.value) for element in node.elements)
    if isinstance(node, cst.Name):
        return node.value in {"None", "True", "False"}
    return isinstance(node, cst.BaseNumber | cst.BaseString)


def _is_assertion(node: cst.CSTNode) -> bool:
    """`assert ...`, `self.assertEqual(...)`, `np.testing.assert_allclose(...)`, `self.fail(...)`."""
    # Exact classes (libcst's are never subclassed): isinstance on its abstract bases is slow, and
    # this runs for every node of the test functions a finding sits in and of those they call.
    if type(node) is cst.Assert:
        return True
    if type(node) is not cst.Call:
        return False
    func = node.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return name.lower().startswith("assert") or name == "fail"


def asserts_within(node: cst.CSTNode) -> bool:
    """An assertion (``assert``, ``self.assert*(...)``, ``self.fail(...)``) sits in ``node``."""
    return any(_is_assertion(n) for n in subtree(node))


# Per module, whether each function asserts and whether what each test calls does: every finding
# in a test file asks again (TFD201, TFD303), and each answer walks whole function bodies.
_ASSERTS: WeakKeyDictionary[ModuleIndex, dict[cst.FunctionDef, bool]] = WeakKeyDictionary()
_HELPERS_ASSERT: WeakKeyDictionary[ModuleIndex, dict[cst.FunctionDef, bool]] = WeakKeyDictionary()


def asserts_itself_or_in_a_helper(index: ModuleIndex, func: cst.FunctionDef) -> bool:
    """``func`` asserts in its own body or in a function or method of the module it calls (one
    level): a replica function of a test that checks per-step Python state."""
    return _asserts_in(index, func) or _helpers_assert(index, func)


def _asserts_in(index: ModuleIndex, func: cst.FunctionDef) -> bool:
    """:func:`asserts_within` ``func``, answered once per function of the module ``index`` indexes."""
    known = _ASSERTS.setdefault(index, {})
    if func not in known:
        known[func] = asserts_within(func)
    return known[func]


def _helpers_assert(index: ModuleIndex, test: cst.FunctionDef) -> bool:
    """A function or method of the module that ``test`` calls (by name) asserts; once per test."""
    known = _HELPERS_ASSERT.setdefault(index, {})
    if test not in known:
        called = set(_called_names(test))
        known[test] = any(_asserts_in(index, f) for name in called for f in index.functions_by_name.get(name, []))
    return known[test]


def _called_names(func: cst.FunctionDef) -> Iterator[str]:
    """The names of the functions and methods ``func`` calls (`helper(...)`, `self._check(...)`)."""
    for n in subtree(func):
        if isinstance(n, cst.Call):
            if isinstance(n.func, cst.Name):
                yield n.func.value
            elif isinstance(n.func, cst.Attribute):
                yield n.func.attr.value
