"""Runtime evidence for TFD104, TFD106, TFD107, TFD108, TFD110 and TFD114: with two replicas the corpus script that
the rule flags fails with the error the rule names, and the clean (TFD107: the fixed) script runs.

Only the ``runs`` check is asserted. TFD107's scripts use tf-keras, whose `fit` under
MirroredStrategy the consistency checks of `validate` report as inconsistent (the optimizer's
`iteration` counter) even for a plain `Sequential` model, so its corpus case has no
``[runtime]`` table for ``test_validate.py``."""

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
    "tfd107_tf_function_train_step": "RuntimeError: `merge_call` called while defining a new graph or a tf.function",
    "tfd110_accumulation_under_condition": "RuntimeError: `merge_call` called while defining a new graph or a tf.function",
    "tfd114_metric_updated_cross_replica": "ValueError: SyncOnReadVariable does not support `assign_add` in cross-replica context",
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
    for good in ("clean.py", "after.py") if case.startswith("tfd107") else ("clean.py",):
        runs = _runs(PLACEMENT / case / good)
        assert runs.result == "pass", (good, runs.detail)


@pytest.mark.tensorflow
def test_train_on_batch_in_replica_fn_needs_cross_replica_context():
    runs = _runs(PLACEMENT / "tfd106_fit_in_replica_fn" / "before.py")
    assert "Method requires being in cross-replica context" in runs.detail, runs.detail


@pytest.mark.tensorflow
def test_accumulation_under_a_tensor_condition_is_named_tfd110():
    report = validate(
        PLACEMENT / "tfd110_accumulation_under_condition" / "before.py",
        RunSpec(replicas=2, device="cpu", max_steps=10, timeout=240),
        compare=False,
    )
    named = [line.split(" ", 1)[0] for line in report.variants["original"].diagnoses]
    assert named == ["TFD110"], report.table()
