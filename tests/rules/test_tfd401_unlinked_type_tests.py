"""TFD401 offers no rename of an experimental strategy class when any file of the project tests
objects against that class (issue 28, fix17a; ledger16b's MLPerf v0.7 copies of `tf2_common`).

The experimental and current `TPUStrategy` are sibling classes (benchmarks/probe_ledger14a_premises.py):
renaming the construction flips `isinstance(s, tf.distribute.experimental.TPUStrategy)` elsewhere.
Here the test sits in a module the import graph cannot link to the constructing one (the package
is put on `sys.path` and imported under another name), so only a project-wide look finds it; the
finding names it and has no edit, as for a linked test. A project with no such test keeps the
safe rename (the control), and the result cache drops the answer when the testing file changes.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from fixer.runner import Job, run
from fixer.types import Applicability

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from fixer.types import Finding

_BUILDS = """
import tensorflow as tf


def tpu_strategy(address):
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu=address)
    return tf.distribute.experimental.TPUStrategy(resolver)
"""

_LOOP = """
import tensorflow as tf


def steps_per_call(strategy, wanted):
    if isinstance(strategy, {tested}):
        return wanted
    return 1
"""


def _tfd401(root: Path, tested: str | None, *, cache: bool = False, project: Path | None = None) -> Finding:
    (root / "common" / "utils").mkdir(parents=True, exist_ok=True)
    (root / "common" / "__init__.py").write_text("")
    (root / "common" / "utils" / "__init__.py").write_text("")
    (root / "common" / "utils" / "strategies.py").write_text(textwrap.dedent(_BUILDS))
    (root / "training").mkdir(exist_ok=True)
    if tested is not None:
        (root / "training" / "loop.py").write_text(textwrap.dedent(_LOOP.format(tested=tested)))
    job = Job(use_cache=cache, project_roots=(str(project or root),))
    (result,) = list(run([root / "common" / "utils" / "strategies.py"], job, jobs=1))
    (finding,) = [f for f in result.findings if f.code == "TFD401"]
    return finding


def _applicability(finding: Finding) -> Applicability | None:
    return finding.fix.applicability if finding.fix is not None else None


def test_a_test_of_the_experimental_class_anywhere_in_the_project_withdraws_the_rename(tmp_path: Path) -> None:
    finding = _tfd401(tmp_path, "tf.distribute.experimental.TPUStrategy")
    assert _applicability(finding) is None
    assert "`training/loop.py` line 6" in finding.message


def test_a_test_in_a_tuple_counts_too(tmp_path: Path) -> None:
    finding = _tfd401(tmp_path, "(tf.distribute.TPUStrategy, tf.distribute.experimental.TPUStrategy)")
    assert _applicability(finding) is None


def test_the_compat_v2_spelling_names_the_same_class(tmp_path: Path) -> None:
    (tmp_path / "training").mkdir()
    (tmp_path / "training" / "loop.py").write_text(
        textwrap.dedent(_LOOP.format(tested="tf.distribute.experimental.TPUStrategy")).replace(
            "import tensorflow as tf", "import tensorflow.compat.v2 as tf"
        )
    )
    assert _applicability(_tfd401(tmp_path, None)) is None


def test_the_nearest_testing_file_is_named(tmp_path: Path) -> None:
    far = tmp_path / "other_model" / "loop.py"
    far.parent.mkdir()
    far.write_text(textwrap.dedent(_LOOP.format(tested="tf.distribute.experimental.TPUStrategy")))
    (tmp_path / "common" / "utils").mkdir(parents=True)
    near = tmp_path / "common" / "utils" / "loop.py"
    near.write_text(textwrap.dedent(_LOOP.format(tested="tf.distribute.experimental.TPUStrategy")))
    assert "`common/utils/loop.py` line 6" in _tfd401(tmp_path, None).message


def test_control_a_test_in_another_copy_that_cannot_import_the_module_keeps_the_safe_rename(tmp_path: Path) -> None:
    # A monorepo of submissions: the constructing package is resnet's, the test is bert's copy.
    # Scripts importing `common.utils` run from resnet/impl/, so resnet/ is where its users are.
    resnet, bert = tmp_path / "resnet" / "impl", tmp_path / "bert" / "impl"
    bert.mkdir(parents=True)
    (bert / "loop.py").write_text(textwrap.dedent(_LOOP.format(tested="tf.distribute.experimental.TPUStrategy")))
    resnet.mkdir(parents=True)
    assert _applicability(_tfd401(resnet, None, project=tmp_path)) is Applicability.SAFE


def test_control_a_project_with_no_such_test_keeps_the_safe_rename(tmp_path: Path) -> None:
    assert _applicability(_tfd401(tmp_path, None)) is Applicability.SAFE


def test_control_a_test_of_the_current_class_keeps_the_safe_rename(tmp_path: Path) -> None:
    assert _applicability(_tfd401(tmp_path, "tf.distribute.TPUStrategy")) is Applicability.SAFE


def test_the_cached_result_follows_an_edit_of_the_testing_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISTFIX_CACHE_DIR", str(tmp_path / "cache"))
    tested = "tf.distribute.experimental.TPUStrategy"
    assert _applicability(_tfd401(tmp_path, tested, cache=True)) is None
    loop = tmp_path / "training" / "loop.py"
    loop.write_text(textwrap.dedent(_LOOP.format(tested="tf.distribute.TPUStrategy")) + "\n# edited\n")
    assert _applicability(_tfd401(tmp_path, None, cache=True)) is Applicability.SAFE
