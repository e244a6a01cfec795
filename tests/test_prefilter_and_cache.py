"""The byte pre-filter never hides a finding; the cache returns stored results and misses on change."""

from __future__ import annotations

import json
import pickle
from dataclasses import replace
from pathlib import Path

import pytest

from fixer.cache import ResultCache, cache_key
from fixer.config import Config
from fixer.engine import check_source, selected_rules
from fixer.registry import default_registry
from fixer.rule import Invalid, dedent_example
from fixer.runner import Job, may_have_findings, run
from fixer.types import Position

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
BAD = "import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\ns.experimental_run_v2(f)\n"


def _invalid_examples():
    for rule in default_registry().rules:
        for number, example in enumerate(rule.examples, start=1):
            if isinstance(example, Invalid):
                yield pytest.param(rule, dedent_example(example.code), id=f"{rule.code}-{number}")


@pytest.mark.parametrize(("rule", "code"), list(_invalid_examples()))
def test_prefilter_keeps_every_invalid_example(rule, code):
    assert may_have_findings(code.encode(), Config(), "example.py")
    assert rule in selected_rules("example.py", code, Config(), default_registry())


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
    """Rewrite every stored result so that its findings say ``message``: a run that shows it read the cache."""
    entries = [p for p in cache_dir.rglob("*") if p.is_file() and p.name != ".gitignore"]
    for entry in entries:
        stored = pickle.loads(entry.read_bytes())
        stored.findings = [replace(f, message=message) for f in stored.findings]
        entry.write_bytes(pickle.dumps(stored))
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
    assert second.stdout == first.stdout.replace("`experimental_run_v2` is removed in TensorFlow 2.21 (`AttributeError`); use `run`", "read from the cache")
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
