"""Every corpus case: the bad script has the expected findings, the engine's fix is exactly
after.py, after.py parses and is a fixed point, and the clean script has no finding."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import libcst as cst
import pytest

from fixer.engine import check_source, fix_source

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
CASES = sorted(p.parent for p in CORPUS.glob("*/*/case.toml"))


def _codes(path: Path) -> list[str]:
    result = check_source(str(path), path.read_text(encoding="utf-8"))
    assert result.error is None, result.error
    return sorted({f.code for f in result.findings})


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_case(case: Path):
    spec = tomllib.loads((case / "case.toml").read_text())
    before = case / "before.py"
    assert _codes(before) == sorted(spec["codes"])
    original = before.read_text(encoding="utf-8")
    fixed = fix_source(str(before), original, unsafe=True)
    assert fixed.reverted is None
    expected = (case / "after.py").read_text(encoding="utf-8")
    assert (fixed.fixed_text or original) == expected  # advice-only cases keep the text
    assert fix_source("after.py", expected, unsafe=True).fixed_text is None
    assert _codes(case / "after.py") == sorted(spec.get("after_codes", []))
    assert _codes(case / "clean.py") == []


def test_every_rule_has_a_corpus_case():
    from fixer.registry import default_registry

    covered = {code for case in CASES for code in tomllib.loads((case / "case.toml").read_text())["codes"]}
    missing = [rule.code for rule in default_registry().rules if rule.code not in covered]
    assert not missing, f"rules without a corpus case: {missing}"


def test_fix_write_over_the_corpus_is_idempotent(tmp_path: Path, distfix):
    copy = tmp_path / "corpus"
    shutil.copytree(CORPUS, copy)
    first = distfix("fix", "--write", "--unsafe-fixes", str(copy))
    assert first.returncode in (0, 1), first.stderr
    snapshot = {p: p.read_bytes() for p in copy.rglob("*.py")}
    for path, data in snapshot.items():
        cst.parse_module(data.decode("utf-8"))
    second = distfix("fix", "--write", "--unsafe-fixes", str(copy))
    assert second.stderr.startswith("Nothing to fix")
    assert {p: p.read_bytes() for p in copy.rglob("*.py")} == snapshot


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixed_codes_are_gone_after_fixing(case: Path):
    """`fix --unsafe-fixes` then `check`: no code whose fix was applied is reported again (a fix
    that leaves its own finding behind, or only moves it, is not a fix)."""
    for script in sorted(case.glob("*.py")):
        text = script.read_text(encoding="utf-8")
        fixed = fix_source(str(script), text, unsafe=True)
        if fixed.fixed_text is None:
            continue
        applied = {f.code for f in fixed.applied}
        again = check_source(str(script), fixed.fixed_text)
        left = sorted({f.code for f in again.findings} & applied)
        assert not left, f"{script.name}: fixed {sorted(applied)}, still reported {left}"
