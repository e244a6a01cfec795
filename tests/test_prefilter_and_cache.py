"""The byte pre-filter never hides a finding; the cache returns stored results and misses on change."""

from __future__ import annotations

import json
import os
import time
from dataclasses import replace
from pathlib import Path

import pytest

import fixer.cache
from fixer.cache import ResultCache, cache_key
from fixer.cache_format import decode_result, dumps, encode_result, loads
from fixer.config import Config
from fixer.engine import check_source, selected_rules
from fixer.registry import default_registry
from invalid_examples import invalid_example_params
from fixer.prefilter import STRATEGY, rule_may_fire
from fixer.runner import Job, filter_stage, may_have_findings, run
from fixer.types import FileResult, Position

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
BAD = "import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\ns.experimental_run_v2(f)\n"


@pytest.mark.parametrize(("rule", "code"), list(invalid_example_params()))
def test_prefilter_keeps_every_invalid_example(rule, code):
    assert may_have_findings(code.encode(), Config(), "example.py")
    assert rule in selected_rules("example.py", code, Config(), default_registry())
    # The rule alone passes both stages too (not just thanks to another rule's trigger).
    assert rule_may_fire(rule, code) and rule_may_fire(rule, code.encode())
    only_this_rule = Config(select=(rule.code,))
    assert filter_stage(code.encode(), only_this_rule, "example.py") == 2


@pytest.mark.parametrize(("rule", "code"), list(invalid_example_params()))
def test_every_invalid_example_reports_with_the_prefilter_as_without(rule, code):
    only_this_rule = Config(select=(rule.code,))
    unfiltered = check_source("example.py", code, only_this_rule, prefilter=False)
    filtered = check_source("example.py", code, only_this_rule)
    assert [(f.code, f.start) for f in filtered.findings] == [(f.code, f.start) for f in unfiltered.findings]
    assert unfiltered.findings


@pytest.mark.parametrize(
    "text",
    [
        "with strategy.scope():\n    pass\n",
        "with strategy . scope ( ) :\n    pass\n",
        "with (strategy.  # the strategy\n      scope()):\n    pass\n",
        "with strategy.\\\n        scope():\n    pass\n",
        "s = tf.distribute.MirroredStrategy()\n",
        "s = tf.distribute.get_strategy()\n",
        "n = s.num_replicas_in_sync\n",
        "s.extended.call_for_each_replica(fn)\n",
        "r = s.cluster_resolver\n",
        "s.run(step, args=(x,))\n",
        "s.run(step,  # one step\n      args=(x,))\n",
        "s.experimental_local_results(v)\n",
    ],
)
def test_strategy_evidence_matches_every_spelling_of_a_strategy_use(text):
    assert STRATEGY.found_in(text) and STRATEGY.found_in(text.encode())


@pytest.mark.parametrize(
    "text",
    [
        "with tf.name_scope('x'):\n    pass\n",
        "with tf.compat.v1.variable_scope('v', reuse=True):\n    pass\n",
        "sess.run(train_op, feed_dict={x: 1})\n",
        "opt.apply_gradients(zip(grads, variables))\n",
        "args = parser.parse_args()\n",
        "# Licensed ... distributed under the License is distributed\n",
    ],
)
def test_strategy_evidence_ignores_ordinary_tensorflow_code(text):
    assert not STRATEGY.found_in(text)


def test_strategy_evidence_scans_long_comment_runs_in_linear_time():
    # A pattern that could split a comment in many ways backtracks exponentially on such lines.
    banner = "x = f(a,  #" + "#" * 5_000 + "\n" + "b)\n"
    assert not STRATEGY.found_in(banner * 50)


def test_name_scope_and_session_run_alone_do_not_pass_the_filter():
    code = b"import tensorflow as tf\nwith tf.name_scope('a'):\n    y = sess.run(op)\nopt.minimize(loss)\n"
    assert filter_stage(code, Config(), "a.py") == 1
    assert not may_have_findings(code, Config(), "a.py")


@pytest.mark.parametrize("script", sorted(CORPUS.rglob("*.py")), ids=lambda p: str(p.relative_to(CORPUS)))
def test_prefilter_keeps_every_corpus_script_with_findings(script):
    text = script.read_text(encoding="utf-8")
    unfiltered = check_source(str(script), text, prefilter=False)
    filtered = check_source(str(script), text)
    assert [(f.code, f.start) for f in filtered.findings] == [(f.code, f.start) for f in unfiltered.findings]
    if unfiltered.findings:
        assert may_have_findings(script.read_bytes(), Config(), str(script))


def test_licence_header_alone_does_not_pass_the_filter():
    header = b"# Licensed under the Apache License... distributed under the License is distributed\n"
    assert not may_have_findings(header + b"import tensorflow as tf\nx = tf.constant(1)\n", Config(), "a.py")


def test_no_finding_lost_with_filter_and_cache_versus_without(tmp_path, monkeypatch):
    monkeypatch.setenv("DISTFIX_CACHE_DIR", str(tmp_path / "cache"))
    files = sorted(CORPUS.rglob("*.py"))
    baseline = run(files, Job(prefilter=False, use_cache=False), jobs=1)
    cold = run(files, Job(), jobs=2)
    warm = run(files, Job(), jobs=2)

    def keyed(results):
        return [(r.path, [(f.code, f.start, f.message) for f in r.findings]) for r in results]

    assert keyed(cold) == keyed(baseline)
    assert keyed(warm) == keyed(baseline)


def test_cache_returns_the_stored_result_and_misses_on_any_change(tmp_path):
    cache = ResultCache(tmp_path)
    config = Config()
    result = check_source("a.py", BAD, config)
    key = cache_key(BAD.encode(), config, "check", "a.py")
    marked = replace(result.findings[0], message="from the cache", start=Position(99, 1))
    result.findings = [marked]
    cache.store(key, result)
    loaded = cache.load(key, "b.py")
    assert loaded is not None and loaded.findings[0].message == "from the cache"
    assert loaded.findings[0].path == "b.py"
    assert cache.load(cache_key(BAD.encode() + b"\n", config, "check", "a.py"), "a.py") is None
    assert cache.load(cache_key(BAD.encode(), Config(ignore=("TFD4",)), "check", "a.py"), "a.py") is None
    assert cache.load(cache_key(BAD.encode(), config, "fix", "a.py"), "a.py") is None


def _mark_cache_entries(cache_dir: Path, message: str) -> int:
    """Rewrite every stored result (content-keyed entries and the stat index) so that its findings
    say ``message``: a run that shows it read the cache. Returns the number of content entries."""

    def marked(encoded):
        stored = decode_result(encoded)
        stored.findings = [replace(f, message=message) for f in stored.findings]
        return encode_result(stored)

    entries = [p for p in cache_dir.rglob("*") if p.is_file() and p.name not in (".gitignore", "stat-index.json")]
    for entry in entries:
        entry.write_bytes(dumps("result", marked(loads(entry.read_bytes(), "result"))))
    for index in cache_dir.rglob("stat-index.json"):
        stat_entries = loads(index.read_bytes(), "stat-index")
        for entry in stat_entries.values():
            entry[4] = marked(entry[4])
        index.write_bytes(dumps("stat-index", stat_entries))
    return len(entries)


def test_cli_warm_run_reads_the_cache(tmp_path, distfix):
    script = tmp_path / "train.py"
    script.write_text(BAD)
    cache_dir = tmp_path / "cache"
    env = {"DISTFIX_CACHE_DIR": str(cache_dir)}
    first = distfix("check", "--select", "TFD401", str(script), env=env)
    assert "TFD401 [*] `experimental_run_v2` is removed" in first.stdout
    assert _mark_cache_entries(cache_dir, "read from the cache") == 1
    second = distfix("check", "--select", "TFD401", str(script), env=env)
    assert second.stdout == first.stdout.replace("`experimental_run_v2` is removed in TensorFlow 2.21 (`AttributeError`; 2.21 assumed: no pin found); use `run`", "read from the cache")
    uncached = distfix("check", "--select", "TFD401", "--no-cache", str(script), env={"DISTFIX_CACHE_DIR": str(tmp_path / "other")})
    assert uncached.stdout == first.stdout and not (tmp_path / "other").exists()


def test_notebooks_use_the_cache_and_the_prefilter(tmp_path, distfix):
    source = BAD.splitlines(keepends=True)
    cells = [{"cell_type": "code", "execution_count": None, "id": "c1", "metadata": {}, "outputs": [], "source": source}]
    (tmp_path / "train.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1))
    # Malformed, but holds no rule's trigger text: skipped unparsed, like such a .py file.
    (tmp_path / "notes.ipynb").write_text('{"cells": [')
    cache_dir = tmp_path / "cache"
    env = {"DISTFIX_CACHE_DIR": str(cache_dir)}
    first = distfix("check", str(tmp_path), env=env)
    assert first.returncode == 1, first.stderr
    assert "train.ipynb:cell 1:3:3: TFD401 [*] `experimental_run_v2` is removed" in first.stdout
    assert "notes.ipynb" not in first.stdout + first.stderr
    assert _mark_cache_entries(cache_dir, "read from the cache") == 1
    assert "train.ipynb:cell 1:3:3: TFD401 [*] read from the cache" in distfix("check", str(tmp_path), env=env).stdout


def test_cache_respects_per_file_ignores(tmp_path, distfix):
    (tmp_path / "pyproject.toml").write_text('[tool.distfix.per-file-ignores]\n"tests/*" = ["TFD4"]\n')
    (tmp_path / "tests").mkdir()
    for name in ("a.py", "tests/t.py"):
        (tmp_path / name).write_text(BAD)
    env = {"DISTFIX_CACHE_DIR": str(tmp_path / "cache")}
    assert distfix("check", "a.py", cwd=tmp_path, env=env).returncode == 1
    ignored = distfix("check", "--format", "json", "tests/t.py", cwd=tmp_path, env=env)
    assert [f["code"] for f in json.loads(ignored.stdout) if f["code"].startswith("TFD4")] == []


# The stat index ------------------------------------------------------------------------------
# Same length as BAD, no finding: swapping one for the other keeps the file's size.
CLEAN = "import tensorflow as tf\n" + "x = 1  #".ljust(len(BAD) - len("import tensorflow as tf\n") - 1, "-") + "\n"


def _codes(path: Path, job: Job | None = None) -> list[str]:
    [result] = run([path], job or Job(), jobs=1)
    return [f.code for f in result.findings]


def _rewrite_in_place(path: Path, text: str, mtime_ns: int) -> None:
    """New content, same inode, and the modification time we choose."""
    with open(path, "r+", encoding="utf-8") as handle:
        handle.write(text)
        handle.truncate()
    os.utime(path, ns=(mtime_ns, mtime_ns))


@pytest.fixture
def old_script(tmp_path, monkeypatch):
    """A script with findings, last modified an hour ago, and an empty cache."""
    monkeypatch.setenv("DISTFIX_CACHE_DIR", str(tmp_path / "cache"))
    assert len(CLEAN) == len(BAD)
    script = tmp_path / "train.py"
    script.write_text(BAD)
    hour_ago = time.time_ns() - 3600 * 10**9
    os.utime(script, ns=(hour_ago, hour_ago))
    return script, hour_ago


def test_stat_index_answers_for_a_file_whose_signature_is_unchanged(old_script, tmp_path):
    script, hour_ago = old_script
    assert _codes(script)
    # Same size, same inode, same mtime: the index (like make or ruff) takes the file as unchanged.
    # This is what spares a warm run from reading files; the tests below show what breaks the match.
    _rewrite_in_place(script, CLEAN, hour_ago)
    assert _codes(script)
    assert not _codes(script, Job(use_cache=False))


@pytest.mark.parametrize("change", ["mtime", "size"])
def test_a_changed_file_is_checked_again(old_script, change):
    script, hour_ago = old_script
    assert _codes(script)
    if change == "mtime":  # same size: only the modification time tells
        _rewrite_in_place(script, CLEAN, hour_ago + 1)
    else:  # the same modification time, another size
        _rewrite_in_place(script, CLEAN + "\n", hour_ago)
    assert _codes(script) == []


def test_a_file_modified_just_before_the_run_is_not_trusted_to_its_signature(old_script, monkeypatch):
    script, _ = old_script
    # "Just before" is a window of RACY_SECONDS; widen it so that a slow machine stays inside it.
    monkeypatch.setattr(fixer.cache, "RACY_SECONDS", 3600.0)
    minute_ago = time.time_ns() - 60 * 10**9
    _rewrite_in_place(script, BAD, minute_ago)
    assert _codes(script)
    # Modified again within the same mtime tick (same size, same inode): a racily clean file.
    _rewrite_in_place(script, CLEAN, minute_ago)
    assert _codes(script) == []


def test_another_configuration_is_checked_again(old_script):
    script, _ = old_script
    assert _codes(script)
    assert _codes(script, Job(overrides=(("ignore", ("TFD4",)),))) == [
        code for code in _codes(script, Job(use_cache=False)) if not code.startswith("TFD4")
    ]


def test_warm_run_over_a_tree_matches_a_cold_one(tmp_path, monkeypatch):
    monkeypatch.setenv("DISTFIX_CACHE_DIR", str(tmp_path / "cache"))
    files = sorted(CORPUS.rglob("*.py"))
    baseline = run(files, Job(use_cache=False), jobs=2)
    first = run(files, Job(), jobs=2)
    assert len(list((tmp_path / "cache").rglob("stat-index.json"))) == 1
    second = run(files, Job(), jobs=2)

    def keyed(results):
        return [(r.path, r.error, [(f.code, f.start, f.message) for f in r.findings]) for r in results]

    assert keyed(first) == keyed(baseline) == keyed(second)


def test_a_dependency_stamp_is_taken_once_per_run_and_still_sees_a_change(tmp_path):
    module = tmp_path / "helpers.py"
    module.write_text("x = 1\n")
    result = FileResult(path="train.py", dependencies=((str(module), fixer.cache.file_stamp(str(module))),))
    stamps: dict = {}
    assert fixer.cache.dependencies_unchanged(result, stamps)
    assert stamps == {str(module): fixer.cache.file_stamp(str(module))}
    module.write_text("x = 22\n")
    assert not fixer.cache.dependencies_unchanged(result)
    # Within the run that took it, the remembered stamp answers (the run's view of the file).
    assert fixer.cache.dependencies_unchanged(result, stamps)
    assert not fixer.cache.dependencies_unchanged(result, {})
