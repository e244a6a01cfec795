"""Fixed scripts run: every runnable corpus `after.py`, the seed articles' scripts once fixed, and
the tutorial-shaped TFD109 script (real TensorFlow, 2 logical CPU replicas or 2 local workers).

Cases with a `[runtime]` table are validated by `test_validate.py` (original fails, fixed
passes); the others say in `[validate]` how many workers their `after.py` needs, or why it cannot
run here (`skip`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from fixer.engine import check_source, fix_source
from fixer.validate.runner import RunSpec
from fixer.validate.session import validate

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"
SEEDS = ROOT / "tests" / "data" / "seeds"
CASES = sorted(p.parent for p in CORPUS.glob("*/*/case.toml"))


def _spec(case: Path) -> dict:
    return tomllib.loads((case / "case.toml").read_text(encoding="utf-8"))


def test_every_corpus_case_says_how_its_fixed_script_runs():
    undecided = [case.name for case in CASES if "runtime" not in _spec(case) and "validate" not in _spec(case)]
    assert not undecided, f"corpus cases without [runtime] or [validate]: {undecided}"


AFTER_CASES = [case for case in CASES if "runtime" not in _spec(case) and "skip" not in _spec(case).get("validate", {})]


@pytest.mark.tensorflow
@pytest.mark.parametrize("case", AFTER_CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_after_passes_validate(case: Path):
    workers = _spec(case)["validate"].get("workers", 1)
    spec = RunSpec(replicas=2, workers=workers, device="cpu", max_steps=2, timeout=120, synthetic_data=True)
    report = validate(case / "after.py", spec, compare=False)
    checks = {c.name: c for c in report.variants["original"].checks}
    assert checks["runs"].result == "pass", report.table()
    assert report.verdict != "fail", report.table()


TUTORIAL = CORPUS / "placement" / "tfd109_unbuilt_adam" / "before.py"


def test_tutorial_shaped_script_is_a_tfd109_finding_with_a_fix():
    text = TUTORIAL.read_text(encoding="utf-8")
    findings = [f for f in check_source(str(TUTORIAL), text).findings if f.code == "TFD109"]
    assert len(findings) == 1 and findings[0].fix is not None, findings
    fixed = fix_source(str(TUTORIAL), text, unsafe=True).fixed_text
    assert "    model.build((None, 28, 28))\n    optimizer.build(model.trainable_variables)\n" in fixed


@pytest.mark.tensorflow
def test_tutorial_shaped_script_fails_with_two_replicas_and_its_fix_runs():
    report = validate(TUTORIAL, RunSpec(replicas=2, device="cpu", max_steps=3))
    original = {c.name: c for c in report.variants["original"].checks}
    assert original["runs"].result == "fail"
    assert "You must feed a value for placeholder tensor" in original["runs"].detail
    assert report.variants["fixed"].status == "passed", report.table()


@pytest.mark.tensorflow
@pytest.mark.parametrize("seed", sorted(SEEDS.glob("seed_*.py")), ids=lambda p: p.stem)
def test_seed_script_fixed_with_unsafe_fixes_runs(seed: Path):
    report = validate(seed, RunSpec(replicas=2, device="cpu", max_steps=3, synthetic_data=True))
    fixed = {c.name: c for c in report.variants["fixed"].checks}
    assert fixed["runs"].result == "pass", report.table()
    assert report.verdict == "pass", report.table()
