"""The runtime suite: tutorial-shaped programs validate ``pass``; each seed mistake fails the check
that shows it, and its distfix-fixed version passes (``corpus/runtime/suite.toml``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from fixer.engine import check_source
from fixer.validate.runner import RunSpec
from fixer.validate.session import validate

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

RUNTIME = Path(__file__).resolve().parents[2] / "corpus" / "runtime"
SUITE = tomllib.loads((RUNTIME / "suite.toml").read_text())
MAX_STEPS = 5


def _spec(workers: int) -> RunSpec:
    # Generous timeouts: the machines running the suite are shared; a healthy run takes seconds.
    return RunSpec(replicas=2, workers=workers, device="cpu", max_steps=MAX_STEPS, timeout=150)


def _ids(entry: dict) -> str:
    return entry["script"].removesuffix(".py").replace("/", ":")


def test_every_script_of_the_suite_is_listed():
    listed = {entry["script"] for entry in SUITE["program"] + SUITE["mistake"]}
    assert listed == {str(p.relative_to(RUNTIME)) for p in RUNTIME.rglob("*.py")}


@pytest.mark.parametrize("program", SUITE["program"], ids=_ids)
def test_programs_have_no_finding(program: dict):
    path = RUNTIME / program["script"]
    assert check_source(str(path), path.read_text()).findings == []


@pytest.mark.parametrize("mistake", SUITE["mistake"], ids=_ids)
def test_each_mistake_is_found(mistake: dict):
    path = RUNTIME / mistake["script"]
    assert [f.code for f in check_source(str(path), path.read_text()).findings] == [mistake["code"]]


@pytest.mark.tensorflow
@pytest.mark.parametrize("program", SUITE["program"], ids=_ids)
def test_program_validates_pass(program: dict):
    workers = program["workers"]
    report = validate(RUNTIME / program["script"], _spec(workers), compare=False)
    checks = {c.name: c for c in report.variants["original"].checks}
    assert report.verdict == "pass", report.table()
    assert all(c.result != "fail" for c in checks.values()), report.table()
    if workers == 1:
        # Compared with a reference on the same global batches, not skipped as inconclusive.
        assert checks["replica-count-invariant"].result == "pass", report.table()
        assert checks["replicas-consistent"].result == "pass", report.table()
        assert report.header().startswith("2 replica(s) on 2 logical CPU device(s), 1 worker")
    else:
        assert checks["workers-consistent"].result == "pass", report.table()
        assert checks["inputs-distinct"].result == "pass", report.table()
        assert report.header().startswith("2 workers x 1 replica(s) (CPU) = 2 replicas in sync")


@pytest.mark.tensorflow
@pytest.mark.parametrize("mistake", SUITE["mistake"], ids=_ids)
def test_mistake_fails_its_check_and_the_fixed_version_passes(mistake: dict):
    report = validate(RUNTIME / mistake["script"], _spec(mistake["workers"]))
    original = {c.name: c for c in report.variants["original"].checks}
    fixed = {c.name: c for c in report.variants["fixed"].checks}
    check = mistake["check"]
    assert original[check].result == "fail", report.table()
    assert fixed[check].result == "pass", report.table()
    assert report.verdict == "pass", report.table()
