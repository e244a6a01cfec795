"""Runtime evidence for the display-only rules TFD104, TFD106 and TFD108: with two replicas the
corpus script that the rule flags fails with the error the rule names, and the clean script runs.

(TFD107 has a fix, so its corpus case carries a ``[runtime]`` table and is covered by
``test_validate.py``'s original-fails-and-fixed-passes test.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from fixer.validate.runner import RunSpec
from fixer.validate.session import validate

PLACEMENT = Path(__file__).resolve().parents[2] / "corpus" / "placement"
EXPECTED = {
    "tfd104_model_crosses_strategies": "RuntimeError: Mixing different tf.distribute.Strategy objects",
    "tfd106_fit_in_replica_fn": "RuntimeError: ",
    "tfd108_run_result_as_float": "TypeError: float() argument must be a string or a real number, not 'PerReplica'",
}


def _runs(script: Path):
    report = validate(script, RunSpec(replicas=2, device="cpu", max_steps=10, timeout=240), compare=False)
    return report.variants["original"].checks[0]


@pytest.mark.tensorflow
@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_flagged_script_fails_and_clean_script_runs(case: str):
    runs = _runs(PLACEMENT / case / "before.py")
    assert runs.name == "runs" and runs.result == "fail", runs
    assert EXPECTED[case] in runs.detail, runs.detail
    clean = _runs(PLACEMENT / case / "clean.py")
    assert clean.result == "pass", clean.detail


@pytest.mark.tensorflow
def test_train_on_batch_in_replica_fn_needs_cross_replica_context():
    runs = _runs(PLACEMENT / "tfd106_fit_in_replica_fn" / "before.py")
    assert "Method requires being in cross-replica context" in runs.detail, runs.detail
