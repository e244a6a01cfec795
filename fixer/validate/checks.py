"""The checks of ``distfix validate``: each gives pass, fail or inconclusive with its evidence."""

from __future__ import annotations

import math
from dataclasses import dataclass

from fixer.validate.runner import WorkerDump

TOLERANCE = 1e-4


@dataclass(frozen=True)
class CheckResult:
    """One check of one variant."""

    name: str
    result: str  # pass | fail | inconclusive
    detail: str


def _close(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= TOLERANCE * max(1.0, abs(x), abs(y)) for x, y in zip(a, b))


def _short(values: list[float]) -> str:
    return "[" + ", ".join(f"{v:.5g}" for v in values[:4]) + (", ..." if len(values) > 4 else "") + "]"


def runs(dumps: list[WorkerDump], timeout: float) -> CheckResult:
    """Every worker exits cleanly within the timeout."""
    for index, dump in enumerate(dumps):
        who = f"worker {index}: " if len(dumps) > 1 else ""
        if dump.status == "timeout":
            return CheckResult("runs", "fail", f"{who}still running after {timeout:.0f} s (killed): a hang, e.g. waiting for a peer")
        if dump.status == "error":
            error = dump.error or {}
            where = f" (line {error['line']})" if error.get("line") else ""
            return CheckResult("runs", "fail", f"{who}{error.get('type')}: {error.get('message')}{where}")
    return CheckResult("runs", "pass", f"{len(dumps)} process(es) finished")


def replicas_consistent(dumps: list[WorkerDump]) -> CheckResult:
    """Every copy of every mirrored variable holds the same value."""
    checked = 0
    for dump in dumps:
        for name, copies in dump.variables.items():
            if len(copies) < 2:
                continue
            checked += 1
            if not all(_close(copies[0], other) for other in copies[1:]):
                return CheckResult("replicas-consistent", "fail", f"`{name}` differs between replicas: " + " vs ".join(_short(c) for c in copies))
    if not checked:
        return CheckResult("replicas-consistent", "inconclusive", "no mirrored variable with several copies was found")
    return CheckResult("replicas-consistent", "pass", f"{checked} mirrored variable(s) identical on every replica")


def workers_consistent(dumps: list[WorkerDump]) -> CheckResult:
    """With several workers, every variable is the same on every worker."""
    if len(dumps) < 2:
        return CheckResult("workers-consistent", "inconclusive", "one worker")
    first = dumps[0].variables
    if not first:
        return CheckResult("workers-consistent", "inconclusive", "no variable was found")
    for index, dump in enumerate(dumps[1:], start=1):
        for name, copies in first.items():
            other = dump.variables.get(name)
            if other is not None and not _close(copies[0], other[0]):
                return CheckResult("workers-consistent", "fail", f"`{name}` is {_short(copies[0])} on worker 0 and {_short(other[0])} on worker {index}")
    return CheckResult("workers-consistent", "pass", f"{len(first)} variable(s) identical on {len(dumps)} workers")


def inputs_distinct(dumps: list[WorkerDump]) -> CheckResult:
    """With several workers, no two workers train on the same batch."""
    if len(dumps) < 2:
        return CheckResult("inputs-distinct", "inconclusive", "one worker")
    seen: dict[str, int] = {}
    for index, dump in enumerate(dumps):
        for step, digest in enumerate(dump.inputs):
            if digest in seen and seen[digest] != index:
                return CheckResult("inputs-distinct", "fail", f"worker {seen[digest]} and worker {index} fed the same batch (step {step})")
            seen.setdefault(digest, index)
    if not seen:
        return CheckResult("inputs-distinct", "inconclusive", "no distributed dataset was iterated")
    return CheckResult("inputs-distinct", "pass", f"{len(seen)} distinct batches across {len(dumps)} workers")


def replica_count_invariant(many: list[WorkerDump], one: list[WorkerDump], again: list[WorkerDump], replicas: int) -> CheckResult:
    """With the same global batch and data, N replicas end where 1 replica ends."""
    name = "replica-count-invariant"
    if any(d.status != "ok" for d in many + one + again):
        return CheckResult(name, "inconclusive", "a run did not finish")
    single, repeat, multi = one[0].variables, again[0].variables, many[0].variables
    if not single or not multi:
        return CheckResult(name, "inconclusive", "no variable was found")
    if any(not _close(single[k][0], repeat.get(k, [[]])[0]) for k in single):
        return CheckResult(name, "inconclusive", "two 1-replica runs differ: the script is not deterministic")
    for key, copies in single.items():
        if key in multi and not _close(copies[0], multi[key][0]):
            return CheckResult(
                name,
                "fail",
                f"`{key}` is {_short(multi[key][0])} with {replicas} replicas but {_short(copies[0])} with 1 "
                "(loss not scaled to the global batch, or every replica reads the whole batch)",
            )
    return CheckResult(name, "pass", f"{len(single)} variable(s) match between 1 and {replicas} replicas")


def finite(dumps: list[WorkerDump]) -> CheckResult:
    """Variables stay finite."""
    values = [v for d in dumps for copies in d.variables.values() for c in copies for v in c]
    if not values:
        return CheckResult("finite", "inconclusive", "no variable was found")
    bad = sum(1 for v in values if not math.isfinite(v))
    return CheckResult("finite", "fail" if bad else "pass", f"{bad} non-finite value(s)" if bad else f"{len(values)} values finite")
