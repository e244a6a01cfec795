"""A few hundred generated programs (hypothesmith: from Python's grammar and from its AST) behind
a strategy prelude: no traceback, exit codes only 0/1/2, valid JSON, every fixed file still
compiles, and a second `fix --write` changes nothing. Generation is derandomized: CI sees the
same programs every run."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings

# hypothesmith compiles what it generates; generated code draws SyntaxWarnings ("'int' is not callable").
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")

PRELUDE = "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\n"
# Appended to every third program so that fixes are applied, not only findings reported.
FIXABLE = "d = strategy.experimental_distribute_datasets_from_function(f)\n"
EXAMPLES = 250


def _programs(count: int) -> list[str]:
    found: list[str] = []

    @settings(max_examples=count, database=None, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
    @given(hypothesmith.from_grammar() | hypothesmith.from_node())
    def collect(source: str) -> None:
        found.append(source)

    collect()
    return list(dict.fromkeys(found))


def _compiles(text: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # generated code draws SyntaxWarnings ("'int' is not callable")
        try:
            compile(text, "generated", "exec")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> dict[Path, str]:
    folder = tmp_path_factory.mktemp("fuzz")
    written = {}
    for number, program in enumerate(_programs(EXAMPLES)):
        text = PRELUDE + program + ("\n" if not program.endswith("\n") else "") + (FIXABLE if number % 3 == 0 else "")
        path = folder / f"p{number:03}.py"
        path.write_text(text, encoding="utf-8")
        written[path] = text
    assert len(written) > 200
    return written


def _sane(result) -> None:
    assert result.returncode in (0, 1, 2), result.stderr[-2000:]
    assert "Traceback" not in result.stdout + result.stderr


def test_check_reports_json_without_a_crash(tree, distfix):
    folder = next(iter(tree)).parent
    result = distfix("check", "--no-cache", "--jobs", "2", "--format", "json", str(folder), timeout=600)
    _sane(result)
    findings = json.loads(result.stdout)
    assert any(f["code"] == "TFD401" for f in findings)


def test_fix_write_keeps_code_compiling_and_is_idempotent(tree, distfix):
    folder = next(iter(tree)).parent
    first = distfix("fix", "--write", "--unsafe-fixes", "--jobs", "2", str(folder), timeout=600)
    _sane(first)
    after = {path: path.read_text(encoding="utf-8") for path in tree}
    assert any(after[path] != text for path, text in tree.items()), "some fixes were applied"
    broken = [path.name for path, text in tree.items() if _compiles(text) and not _compiles(after[path])]
    assert broken == []
    second = distfix("fix", "--write", "--unsafe-fixes", "--jobs", "2", str(folder), timeout=600)
    _sane(second)
    changed = [path.name for path in tree if path.read_text(encoding="utf-8") != after[path]]
    assert changed == [], "a second fix --write changed these files"
