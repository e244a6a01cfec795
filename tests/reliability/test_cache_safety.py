"""The result cache cannot run code: its files are JSON with a schema check, and anything else
found there (a planted pickle, the wrong object, a truncated file) is ignored and rebuilt,
never executed and never a traceback. It lives once at the project root."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fixer import __version__

ROOT = Path(__file__).resolve().parents[2]
BAD = "import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\ns.experimental_run_v2(f)\n"


class _Planted:
    """Unpickling this creates the folder ``marker``: proof that the cache ran a file's code."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (str(self.marker),))


def _check(script: Path, cache: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fixer", "check", *extra, str(script)],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
        env={**os.environ, "DISTFIX_CACHE_DIR": str(cache)},
    )


@pytest.fixture
def primed(tmp_path):
    """A script last modified an hour ago (so the stat index trusts it), its uncached result,
    and a cache primed by one run."""
    script = tmp_path / "train.py"
    script.write_text(BAD)
    hour_ago = time.time_ns() - 3600 * 10**9
    os.utime(script, ns=(hour_ago, hour_ago))
    cache = tmp_path / "cache"
    expected = _check(script, cache, "--no-cache")
    assert expected.returncode == 1 and "TFD401" in expected.stdout
    assert _check(script, cache).stdout == expected.stdout
    stored = [p for p in cache.rglob("*") if p.is_file() and p.name != ".gitignore"]
    assert {p.name for p in stored} >= {"stat-index.json"} and len(stored) == 2, stored
    return script, cache, expected, stored


def _assert_rebuilt(script: Path, cache: Path, expected: subprocess.CompletedProcess) -> None:
    again = _check(script, cache)
    assert "Traceback" not in again.stderr
    assert (again.returncode, again.stdout) == (expected.returncode, expected.stdout)
    index = cache / __version__ / "stat-index.json"
    assert json.loads(index.read_bytes())["schema"] >= 1, "the index was rebuilt as JSON"


def test_a_planted_pickle_is_never_executed(primed, tmp_path):
    script, cache, expected, stored = primed
    marker = tmp_path / "pwned"
    planted = pickle.dumps(_Planted(marker))
    # Every cache file, and the name earlier versions read their stat index from.
    for path in [*stored, cache / __version__ / "stat-index.pickle"]:
        path.write_bytes(planted)
    _assert_rebuilt(script, cache, expected)
    assert not marker.exists(), "a pickle in the cache folder was executed"


@pytest.mark.parametrize(
    "payload",
    [
        {"schema": 1, "kind": "stat-index", "payload": ["not", "a", "mapping"]},
        {"schema": 1, "kind": "stat-index", "payload": {"x": 1}},
        {"schema": 1, "kind": "result", "payload": [1, 2, 3]},
        {"schema": 1, "kind": "result", "payload": ["p", None, [["bad"]], None, None, [], 0, None, []]},
        {"schema": 999, "kind": "result", "payload": None},
        [1, 2, 3],
        "a string",
    ],
    ids=["index-list", "index-wrong-entry", "result-short", "result-bad-finding", "other-schema", "list", "string"],
)
def test_a_cache_file_holding_the_wrong_object_is_ignored(primed, payload):
    script, cache, expected, stored = primed
    for path in stored:
        path.write_text(json.dumps(payload))
    _assert_rebuilt(script, cache, expected)


def test_the_wrong_object_inside_a_valid_index_entry_is_ignored(primed):
    script, cache, expected, stored = primed
    index = cache / __version__ / "stat-index.json"
    document = json.loads(index.read_bytes())
    for entry in document["payload"].values():
        entry[4][2] = [[None, "TFD401", "n", "m", "line?", 1, 1, 1, None, None, None]]  # a string for a line
    index.write_text(json.dumps(document))
    _assert_rebuilt(script, cache, expected)


@pytest.mark.parametrize("keep", [0, 1, 40])
def test_a_truncated_cache_file_is_ignored(primed, keep):
    script, cache, expected, stored = primed
    for path in stored:
        path.write_bytes(path.read_bytes()[:keep])
    _assert_rebuilt(script, cache, expected)


def test_the_cache_lives_once_at_the_project_root(tmp_path):
    project = tmp_path / "project"
    (project / "pkg" / "sub").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (project / "pkg" / "sub" / "train.py").write_text(BAD)
    env = {key: value for key, value in os.environ.items() if key != "DISTFIX_CACHE_DIR"}
    env["PYTHONPATH"] = str(ROOT)
    for cwd, target in [(project / "pkg" / "sub", "train.py"), (project / "pkg", "sub"), (project, "pkg")]:
        result = subprocess.run(
            [sys.executable, "-m", "fixer", "check", target], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
        )
        assert result.returncode == 1, result.stderr
    caches = sorted(str(p.relative_to(project)) for p in project.rglob(".distfix_cache"))
    assert caches == [".distfix_cache"]
