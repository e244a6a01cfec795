"""The replica-count comparison on recorded runs (no TensorFlow): it compares like with like.

A dump records what a run fed (rows and a digest of each global batch), the first updates'
gradient norms and the variables at the end; these tests build such dumps by hand.
"""

from __future__ import annotations

from fixer.validate.checks import replica_count_invariant
from fixer.validate.runner import WorkerDump

FEED = [[32, "a"], [32, "b"], [32, "c"]]
WEIGHTS = {"dense/kernel": {"size": 3, "values": [0.5, -0.25, 1.0]}}


def _dump(feed=FEED, gradients=(1.0,), weights=WEIGHTS, claimed=(), status="ok", error=None) -> list[WorkerDump]:
    return [WorkerDump(status, error=error, feed=list(feed), gradients=list(gradients), variables=dict(weights), claimed=list(claimed))]


def _moved(scale: float) -> dict:
    return {"dense/kernel": {"size": 3, "values": [v * scale for v in WEIGHTS["dense/kernel"]["values"]]}}


def test_same_batches_same_gradient_same_weights_pass():
    result = replica_count_invariant(_dump(), _dump(), _dump(), 2)
    assert result.result == "pass"
    assert result.detail == (
        "same data: 3 global batch(es) of 32 rows (96 examples) in both runs; "
        "first update's gradient equal (norm 1); 1 variable(s) equal between 1 and 2 replicas"
    )


def test_different_global_batches_are_inconclusive_not_fail():
    half = [[16, "x"], [16, "y"], [16, "z"]]
    result = replica_count_invariant(_dump(), _dump(feed=half, weights=_moved(1.1)), _dump(feed=half, weights=_moved(1.1)), 2)
    assert (result.result, result.detail) == (
        "inconclusive",
        "the runs were fed different global batches (batch 1: 32 rows with 2 replicas, 16 with 1)",
    )


def test_same_sizes_but_other_examples_are_inconclusive():
    other = [[32, "a"], [32, "other"], [32, "c"]]
    result = replica_count_invariant(_dump(), _dump(feed=other), _dump(feed=other), 2)
    assert (result.result, result.detail) == ("inconclusive", "the runs were fed different global batches (batch 2: different examples)")


def test_a_gradient_n_times_too_large_fails_even_when_the_weights_agree():
    # Adam: twice the gradient moves the weights the same way; the gradient shows it.
    result = replica_count_invariant(_dump(gradients=(2.0,)), _dump(), _dump(), 2)
    assert result.result == "fail"
    assert "the first update's gradient is 2x as large with 2 replicas as with 1 (norm 2 vs 1)" in result.detail


def test_a_gradient_that_differs_by_another_factor_is_inconclusive():
    result = replica_count_invariant(_dump(gradients=(1.13,)), _dump(), _dump(), 2)
    assert result.result == "inconclusive"
    assert "differs by a factor 1.13" in result.detail and "dropout" in result.detail


def test_weights_apart_beyond_the_tolerance_fail():
    result = replica_count_invariant(_dump(gradients=(), weights=_moved(1.01)), _dump(gradients=()), _dump(gradients=()), 2)
    assert result.result == "fail" and "`dense/kernel`" in result.detail


def test_weights_within_the_tolerance_pass():
    result = replica_count_invariant(_dump(weights=_moved(1 + 1e-6)), _dump(), _dump(), 2)
    assert result.result == "pass"


def test_sizes_from_the_replica_count_without_a_distributed_dataset_are_inconclusive():
    result = replica_count_invariant(_dump(feed=()), _dump(feed=(), claimed=(12,)), _dump(feed=(), claimed=(12,)), 2)
    assert result.result == "inconclusive"
    assert result.detail.startswith("the script sizes its input from the replica count (line 12)")


def test_plain_tensors_and_no_replica_count_are_compared():
    result = replica_count_invariant(_dump(feed=(), gradients=(), weights=_moved(2.0)), _dump(feed=(), gradients=()), _dump(feed=(), gradients=()), 2)
    assert result.result == "fail"


def test_a_reference_that_crashed_says_why():
    error = {"type": "ValueError", "message": "boom", "line": 3}
    result = replica_count_invariant(_dump(), _dump(status="error", error=error), _dump(), 2)
    assert (result.result, result.detail) == ("inconclusive", "a run of the 1-replica reference did not finish: ValueError: boom")


def test_two_references_fed_differently_are_inconclusive():
    result = replica_count_invariant(_dump(), _dump(), _dump(feed=[[32, "q"]]), 2)
    assert result.result == "inconclusive" and "not deterministic" in result.detail
