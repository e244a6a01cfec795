"""The fix loop, suppressions and configuration, with small rules defined here."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from fixer.config import ConfigError, load_config
from fixer.context import RuleContext
from fixer.engine import check_source, fix_source
from fixer.registry import Registry, default_registry
from fixer.rule import Rule
from fixer.types import Applicability


class _RenameFoo(Rule):
    """Renames every call of ``foo`` to ``bar`` (safe)."""

    code = "TFD990"
    name = "test-rename"
    message = "foo is old"
    applicability = Applicability.SAFE
    triggers = ("foo",)

    def check(self, ctx: RuleContext) -> None:
        for call in ctx.index.calls:
            if isinstance(call.func, cst.Name) and call.func.value == "foo":
                ctx.report(call.func, edits=[ctx.replace(call.func, "bar")])


class _BreakSyntax(Rule):
    """Produces an edit that does not parse."""

    code = "TFD991"
    name = "test-breaker"
    message = "breaks"
    applicability = Applicability.SAFE
    triggers = ("foo",)
    replacement = "foo(("

    def check(self, ctx: RuleContext) -> None:
        for call in ctx.index.calls:
            if isinstance(call.func, cst.Name) and call.func.value == "foo":
                ctx.report(call, edits=[ctx.replace(call, self.replacement)])


class _BreakAndHide(_BreakSyntax):
    """Replaces the trigger text itself with code that does not parse."""

    code = "TFD993"
    name = "test-hider"
    replacement = "((("


class _WrapInList(Rule):
    """An unsafe fix whose edits overlap the safe rename: it must wait for the next pass."""

    code = "TFD992"
    name = "test-wrap"
    message = "wrap"
    applicability = Applicability.UNSAFE
    triggers = ("(",)

    def check(self, ctx: RuleContext) -> None:
        for call in ctx.index.calls:
            parent = ctx.index.parent.get(call)
            if isinstance(call.func, cst.Name) and not isinstance(parent, cst.Element):
                ctx.report(call, edits=[ctx.replace(call, f"[{ctx.source(call)}]")])


class _NeedsTF(Rule):
    """A fix that needs `tensorflow` imported."""

    code = "TFD994"
    name = "test-import"
    message = "use tf"
    applicability = Applicability.SAFE
    triggers = ("todo",)

    def check(self, ctx: RuleContext) -> None:
        for name in ctx.index.names.get("todo", []):
            alias, edits = ctx.import_module("tensorflow", "tf")
            ctx.report(name, edits=[*edits, ctx.replace(name, f"{alias}.constant(0)")])


class _Crash(_RenameFoo):
    """A rule with a bug: it reports its findings, then raises on every file that calls ``foo``."""

    code = "TFD995"
    name = "test-crash"

    def check(self, ctx: RuleContext) -> None:
        super().check(ctx)  # findings reported before the crash must not survive it
        raise RuntimeError("rule bug")


class _CrashOnBar(Rule):
    """A rule with a bug that only shows on the text another rule's fix produced."""

    code = "TFD996"
    name = "test-crash-later"
    message = "never seen"
    triggers = ("(",)

    def check(self, ctx: RuleContext) -> None:
        if ctx.index.names.get("bar"):
            raise KeyError("bar")


def test_a_crashing_rule_becomes_one_finding_and_the_other_rules_still_report():
    result = check_source("x.py", "foo(1)\n", registry=Registry([_RenameFoo, _Crash]))
    assert [(f.code, f.name) for f in result.findings] == [("TFD990", "test-rename"), ("TFD995", "internal-error")]
    crash = result.findings[1]
    assert crash.message == "internal error in TFD995 (RuntimeError: rule bug); please report it" and crash.fix is None
    assert result.error == crash.message


def test_a_crashing_rule_does_not_stop_the_other_rules_fixes():
    result = fix_source("x.py", "foo(1)\n", registry=Registry([_RenameFoo, _Crash]))
    assert result.fixed_text == "bar(1)\n"
    assert [f.code for f in result.applied] == ["TFD990"] and result.reverted is None


def test_a_rule_crashing_on_the_fixed_text_does_not_revert_a_valid_fix():
    result = fix_source("x.py", "foo(1)\n", registry=Registry([_RenameFoo, _CrashOnBar]))
    assert result.fixed_text == "bar(1)\n" and result.reverted is None
    assert [(f.code, f.name) for f in result.findings] == [("TFD996", "internal-error")]
    assert result.error == "internal error in TFD996 (KeyError: 'bar'); please report it"


def test_safe_fix_applies_and_unsafe_is_held_back():
    registry = Registry([_RenameFoo, _WrapInList])
    result = fix_source("x.py", "foo(1)\n", registry=registry)
    assert result.fixed_text == "bar(1)\n"
    assert result.held_back_unsafe == 1


def test_overlapping_fixes_converge_over_passes():
    registry = Registry([_RenameFoo, _WrapInList])
    result = fix_source("x.py", "foo(1)\n", registry=registry, unsafe=True)
    assert result.fixed_text == "[bar(1)]\n"
    assert sorted(f.code for f in result.applied) == ["TFD990", "TFD992"]
    assert fix_source("x.py", result.fixed_text, registry=registry, unsafe=True).fixed_text is None


def test_a_pass_that_breaks_syntax_is_reverted_and_reported():
    registry = Registry([_BreakSyntax])
    result = fix_source("x.py", "foo(1)\n", registry=registry)
    assert result.fixed_text is None
    assert result.reverted is not None and "TFD991" in result.reverted


def test_a_fix_that_removes_every_trigger_is_still_parsed():
    result = fix_source("x.py", "foo(1)\n", registry=Registry([_BreakAndHide]))
    assert result.fixed_text is None
    assert result.reverted is not None and "TFD993" in result.reverted


def test_import_is_added_once_after_docstring_and_imports():
    registry = Registry([_NeedsTF])
    source = '"""Doc."""\nimport os\nimport keras\n\na = todo\nb = todo\n'
    result = fix_source("x.py", source, registry=registry)
    assert result.fixed_text == (
        '"""Doc."""\nimport os\nimport keras\nimport tensorflow as tf\n\na = tf.constant(0)\nb = tf.constant(0)\n'
    )


def test_a_fix_never_brings_tensorflow_into_a_file_without_it():
    result = fix_source("x.py", "import os\na = todo\n", registry=Registry([_NeedsTF]))
    assert result.fixed_text is None
    assert [f.fix for f in result.findings] == [None]
    assert "no automatic fix: the file does not import TensorFlow" in result.findings[0].message


def test_existing_alias_is_reused():
    registry = Registry([_NeedsTF])
    result = fix_source("x.py", "import tensorflow.compat.v2 as tf2\na = todo\n", registry=registry)
    assert result.fixed_text == "import tensorflow.compat.v2 as tf2\na = tf2.constant(0)\n"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("foo(1)  # distfix: ignore[TFD990]\n", 0),
        ("# distfix: ignore[TFD990]\nfoo(1)\n", 0),
        ("foo(1)  # distfix: ignore\n", 0),
        ("foo(1)  # distfix: ignore[TFD9]\n", 0),
        ("foo(1)  # distfix: ignore[TFD101]\n", 1),
        ("# distfix: ignore-file\nfoo(1)\n", 0),
        ("# distfix: ignore[TFD990]\n\nfoo(1)\n", 1),
        ('NOTE = "# distfix: ignore-file"\nfoo(1)\n', 1),
        ('foo("# distfix: ignore")\n', 1),
    ],
)
def test_suppression_comments(source, expected):
    result = check_source("x.py", source, registry=Registry([_RenameFoo]))
    assert len(result.findings) == expected


def test_pyproject_configuration(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.distfix]\n"
        'select = ["TFD4"]\n'
        'ignore = ["TFD402"]\n'
        'per-file-ignores = { "tests/*" = ["TFD401"] }\n'
        'exclude = ["vendored/"]\n'
        "unsafe-fixes = true\n"
    )
    (tmp_path / "sub").mkdir()
    config = load_config(tmp_path / "sub")
    assert config.select == ("TFD4",) and config.unsafe_fixes and config.exclude == ("vendored/",)
    assert config.is_enabled("TFD401", str(tmp_path / "train.py"))
    assert not config.is_enabled("TFD402", str(tmp_path / "train.py"))
    assert not config.is_enabled("TFD101", str(tmp_path / "train.py"))
    assert not config.is_enabled("TFD401", str(tmp_path / "tests" / "test_x.py"))


def test_unknown_configuration_key_is_rejected(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[tool.distfix]\nselct = ['TFD']\n")
    with pytest.raises(ConfigError, match="unknown \\[tool.distfix\\] key 'selct' \\(did you mean select\\?\\)"):
        load_config(tmp_path)


def test_config_exclude_skips_a_folder(tmp_path: Path, distfix):
    (tmp_path / "pyproject.toml").write_text('[tool.distfix]\nexclude = ["vendored/"]\n')
    (tmp_path / "vendored").mkdir()
    source = "import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\ns.experimental_run_v2(f)\n"
    (tmp_path / "vendored" / "lib.py").write_text(source)
    (tmp_path / "train.py").write_text(source)
    result = distfix("check", ".", cwd=tmp_path)
    assert "train.py" in result.stdout and "vendored" not in result.stdout


def test_a_committed_bazel_output_base_is_not_walked(tmp_path: Path, distfix):
    # A project that commits its Bazel cache carries the source of its external repositories
    # (TensorFlow's own among them) below a folder Bazel marks with DO_NOT_BUILD_HERE.
    source = "import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\ns.experimental_run_v2(f)\n"
    cache = tmp_path / "bazel-cache" / "5f0c"
    (cache / "external" / "org_tensorflow").mkdir(parents=True)
    (cache / "DO_NOT_BUILD_HERE").write_text("/home/user/project\n")
    (cache / "external" / "org_tensorflow" / "strategy_test.py").write_text(source)
    (tmp_path / "train.py").write_text(source)
    result = distfix("check", ".", cwd=tmp_path)
    assert "train.py" in result.stdout and "org_tensorflow" not in result.stdout
    (cache / "DO_NOT_BUILD_HERE").unlink()  # without the marker the folder is an ordinary one
    assert "org_tensorflow" in distfix("check", ".", cwd=tmp_path).stdout


def test_registry_discovers_rules_and_rejects_duplicates():
    codes = [rule.code for rule in default_registry().rules]
    assert "TFD401" in codes and len(codes) == len(set(codes))
    with pytest.raises(ValueError, match="duplicate rule codes: TFD990"):
        Registry([_RenameFoo, _RenameFoo])


@pytest.mark.parametrize("where", ["outside", "inside"])
def test_exclude_is_relative_to_the_project_root_wherever_distfix_runs(tmp_path: Path, distfix, where):
    project = tmp_path / "proj"
    (project / "sub" / "gen").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.distfix]\nexclude = ["sub/gen/"]\n')
    bad = "import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\ns.experimental_run_v2(f)\n"
    (project / "sub" / "gen" / "g.py").write_text(bad)
    (project / "sub" / "kept.py").write_text(bad)
    cwd, target = (tmp_path, "proj") if where == "outside" else (project, "sub")
    result = distfix("check", "--no-cache", target, cwd=cwd)
    assert "kept.py" in result.stdout
    assert "g.py" not in result.stdout


def test_command_line_unsafe_fixes_beats_pyproject_both_ways(tmp_path: Path, distfix):
    bad = "import tensorflow as tf\nv = tf.Variable(0.0)\ns = tf.distribute.MirroredStrategy()\nwith s.scope():\n    m = tf.keras.Sequential()\n"
    (tmp_path / "train.py").write_text(bad)
    (tmp_path / "pyproject.toml").write_text("[tool.distfix]\nunsafe-fixes = true\n")
    assert "with s.scope():\n+    v = tf.Variable(0.0)" in distfix("fix", "train.py", cwd=tmp_path).stdout
    held = distfix("fix", "--no-unsafe-fixes", "train.py", cwd=tmp_path)
    assert held.stdout == "" and "1 unsafe fix held back" in held.stderr
    (tmp_path / "pyproject.toml").write_text("[tool.distfix]\nunsafe-fixes = false\n")
    assert "+    v = tf.Variable(0.0)" in distfix("fix", "--unsafe-fixes", "train.py", cwd=tmp_path).stdout


class _ReachedTwice(Rule):
    """Reports every call of ``foo`` once per path that reaches it (two here), and its name too."""

    code = "TFD997"
    name = "test-reached-twice"
    message = "foo reached"
    triggers = ("foo",)

    def check(self, ctx: RuleContext) -> None:
        for call in ctx.index.calls:
            if isinstance(call.func, cst.Name) and call.func.value == "foo":
                ctx.report(call, "reached")  # by the first path
                ctx.report(call, "reached")  # by the second path
                ctx.report(call, "another defect at the same place")
                ctx.report(call.func, "the name")


def test_one_place_gets_one_finding_of_a_rule_however_often_it_is_reached():
    # issue 28 (prec16 5(c), prec19): a dataset_fn handed over twice was reported twice on one line.
    result = check_source("x.py", "foo(1)\nfoo(2)\n", registry=Registry([_ReachedTwice]))
    found = [(f.start.line, f.start.column, f.end.column, f.message) for f in result.findings]
    assert sorted(found) == [
        (1, 1, 4, "the name"),
        (1, 1, 7, "another defect at the same place"),
        (1, 1, 7, "reached"),
        (2, 1, 4, "the name"),
        (2, 1, 7, "another defect at the same place"),
        (2, 1, 7, "reached"),
    ]


class _AsksShown(_RenameFoo):
    """Records whether each `foo` call's finding would be shown, then reports it with its fix."""

    code = "TFD997"
    name = "test-shown"
    answers: dict[int, bool] = {}

    def check(self, ctx: RuleContext) -> None:
        for call in ctx.index.calls:
            if isinstance(call.func, cst.Name) and call.func.value == "foo":
                type(self).answers[ctx.range(call).start.line] = ctx.shown(call)
        super().check(ctx)


def test_a_rule_knows_which_findings_the_engine_leaves_out():
    # A suppressed finding and one inside code a test expects to raise are dropped by the engine:
    # `shown` says so before the rule builds their fixes (lsp7: TFD101's fix check on such a
    # finding was a tenth of an edit of tf-keras' distribute_strategy_test.py).
    source = (
        "import unittest\n"
        "foo(1)\n"
        "foo(2)  # distfix: ignore[TFD997]\n"
        "class T(unittest.TestCase):\n"
        "    def test_it(self):\n"
        "        with self.assertRaises(ValueError):\n"
        "            foo(3)\n"
        "        foo(4)\n"
    )
    _AsksShown.answers = {}
    result = check_source("x_test.py", source, registry=Registry([_AsksShown]))
    assert _AsksShown.answers == {2: True, 3: False, 7: False, 8: True}
    assert [f.start.line for f in result.findings] == [2, 8]
    assert all(f.fix is not None for f in result.findings)


def test_outside_the_engine_every_finding_is_shown():
    from fixer.engine import build_context

    source = "foo(1)  # distfix: ignore[TFD997]\n"
    ctx = build_context("x.py", source, cst.parse_module(source))
    ctx.rule = _AsksShown()
    _AsksShown.answers = {}
    ctx.rule.check(ctx)
    assert _AsksShown.answers == {1: True}
    assert len(ctx.findings) == 1
