"""The checks of ``distfix validate``: each gives pass, fail or inconclusive with its evidence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fixer.validate.runner import TOLERANCE, WorkerDump

# 1 replica against N on the same global batches: the summation order differs, and Adam or RMSprop
# turn a float difference in a near-zero gradient into a whole step of that weight; measured
# differences are listed in docs/validate.md.
REFERENCE_TOLERANCE = 1e-3
GRADIENT_TOLERANCE = 1e-3  # relative, on the global norm of the first update's summed gradients
SCALE_MATCH = 0.05  # a gradient ratio within 5% of N or 1/N is the signature of an unscaled loss

# The checks that compare something; when all of them are inconclusive, so is the verdict.
CONSISTENCY = ("replicas-consistent", "workers-consistent", "inputs-distinct", "replica-count-invariant")


@dataclass(frozen=True)
class CheckResult:
    """One check of one variant."""

    name: str
    result: str  # pass | fail | inconclusive
    detail: str


def _close(a: list[float], b: list[float], tolerance: float = TOLERANCE) -> bool:
    return len(a) == len(b) and all(
        abs(x - y) <= tolerance * max(1.0, abs(x), abs(y)) for x, y in zip(a, b, strict=True)
    )


def _short(values: list[float], size: int) -> str:
    if size > len(values):  # a fingerprint of a large variable (see child/observe.py)
        return f"(mean {values[0]:.5g}, rms {values[2]:.5g} over {size} values)"
    return "[" + ", ".join(f"{v:.5g}" for v in values[:4]) + (", ..." if len(values) > 4 else "") + "]"


def _after(step: str) -> str:
    return "at the end" if step == "end" else f"after step {step}"


def runs(dumps: list[WorkerDump], timeout: float) -> CheckResult:
    """Every worker exits cleanly within the timeout (the first failure is reported)."""

    def who(index: int) -> str:
        return f"worker {index}: " if len(dumps) > 1 else ""

    for index, dump in enumerate(dumps):
        if dump.status == "error":
            error = dump.error or {}
            where = f" (line {error['line']})" if error.get("line") else ""
            return CheckResult("runs", "fail", f"{who(index)}{error.get('type')}: {error.get('message')}{where}")
    for index, dump in enumerate(dumps):
        if dump.status == "timeout":
            return CheckResult(
                "runs",
                "fail",
                f"{who(index)}still running after {timeout:.0f} s (killed): a hang, e.g. waiting for a peer",
            )
    done = f"{max(d.steps for d in dumps)} step(s), {max(len(d.inputs) for d in dumps)} batch(es)"
    if any(d.stopped for d in dumps):
        return CheckResult("runs", "pass", f"{len(dumps)} process(es) stopped cleanly after {done} (--max-steps)")
    return CheckResult("runs", "pass", f"{len(dumps)} process(es) finished after {done}")


def replicas_consistent(dumps: list[WorkerDump]) -> CheckResult:
    """After each step, every copy of every mirrored variable holds the same value."""
    name = "replicas-consistent"
    for dump in dumps:
        if dump.divergence:
            found = dump.divergence
            copies = " vs ".join(_short(c, found["size"]) for c in found["copies"])
            return CheckResult(
                name, "fail", f"`{found['name']}` differs between replicas {_after(found['step'])}: {copies}"
            )
    checked = max(d.mirrored for d in dumps)
    if not checked:
        return CheckResult(name, "inconclusive", "no mirrored variable with several copies was found")
    steps = max(len(d.history) for d in dumps)
    return CheckResult(
        name,
        "pass",
        f"{checked} mirrored variable(s) identical on every replica after each of {steps} step(s) and at the end",
    )


def workers_consistent(dumps: list[WorkerDump]) -> CheckResult:
    """With several workers, every variable is the same on every worker after each step."""
    name = "workers-consistent"
    if len(dumps) < 2:
        return CheckResult(name, "inconclusive", "one worker")
    first = dumps[0]
    if not first.variables:
        return CheckResult(name, "inconclusive", "no distributed variable was found")
    for index, dump in enumerate(dumps[1:], start=1):
        # A worker that stopped early has fewer snapshots: compare the steps both took.
        snapshots = list(zip(first.history, dump.history, strict=False))
        snapshots += [
            ({k: v["values"] for k, v in first.variables.items()}, {k: v["values"] for k, v in dump.variables.items()})
        ]
        for step, (mine, theirs) in enumerate(snapshots, start=1):
            for key, values in mine.items():
                other = theirs.get(key)
                if other is not None and not _close(values, other):
                    when = "at the end" if step == len(snapshots) else f"after step {step}"
                    size = first.variables.get(key, {}).get("size", len(values))
                    return CheckResult(
                        name,
                        "fail",
                        f"`{key}` is {_short(values, size)} on worker 0 and {_short(other, size)} on worker "
                        f"{index} {when}",
                    )
    return CheckResult(
        name, "pass", f"{len(first.variables)} variable(s) identical on {len(dumps)} workers after each step"
    )


def inputs_distinct(dumps: list[WorkerDump]) -> CheckResult:
    """With several workers, no two workers train on the same batch, nor read the same examples.

    Examples are compared twice: those of the batches the steps drew, and those each worker's
    pipeline yields in the data-only pass after the script (``child/data_pass.py``), which reads
    enough batches to see input that is not sharded when each worker shuffles it differently.
    """
    name = "inputs-distinct"
    if len(dumps) < 2:
        return CheckResult(name, "inconclusive", "one worker")
    seen: dict[str, int] = {}
    for index, dump in enumerate(dumps):
        for step, digest in enumerate(dump.inputs, start=1):
            if digest in seen and seen[digest] != index:
                return CheckResult(
                    name, "fail", f"worker {seen[digest]} and worker {index} fed the same batch (batch {step})"
                )
            seen.setdefault(digest, index)
    passes = _pass_examples(dumps)
    if not seen and not passes:
        return CheckResult(name, "inconclusive", "no batch was drawn from a distributed dataset")
    overlap = _shared_examples(dumps, passes)
    if overlap is not None:
        return CheckResult(name, "fail", overlap)
    return CheckResult(
        name, "pass", f"{len(seen)} distinct batches across {len(dumps)} workers{_examples_note(dumps, passes)}"
    )


def _one_epoch(examples: list[str]) -> list[str] | None:
    """A worker's examples up to where its data starts over, or None when that cannot be told.

    All of them when they all differ; the first epoch when what follows only repeats it (a
    ``.repeat()``-ed dataset: each worker's part starts over); None when a row recurs otherwise
    (duplicate rows could be shared by chance) or fewer than two examples precede the repeat
    (constant data).
    """
    first: dict[str, int] = {}
    for example in examples:
        if example in first:
            break
        first[example] = len(first)
    else:
        return examples or None
    if len(first) >= 2 and all(example in first for example in examples[len(first) :]):
        return examples[: len(first)]
    return None


def _pass_examples(dumps: list[WorkerDump]) -> list[list[list[str]]]:
    """Per distributed dataset every worker read in the data-only pass: each worker's examples."""
    if any(d.fit_arrays for d in dumps):
        return []
    count = min(len(d.pass_examples) for d in dumps)
    return [[d.pass_examples[i] for d in dumps] for i in range(count) if all(d.pass_examples[i] for d in dumps)]


def _overlap(lists: list[list[str]]) -> tuple[int, int, int, int, int] | None:
    """The first two workers whose examples (one epoch each) overlap: (first, second, shared, at, of)."""
    epochs = [_one_epoch(examples) for examples in lists]
    if any(epoch is None for epoch in epochs):
        return None
    own = [set(epoch) for epoch in epochs if epoch is not None]
    for first in range(len(own)):
        for second in range(first + 1, len(own)):
            shared = own[first] & own[second]
            if shared:
                at = next(i for i, e in enumerate(lists[second]) if e in shared)
                return first, second, len(shared), at + 1, len(own[first])
    return None


def _shared_examples(dumps: list[WorkerDump], passes: list[list[list[str]]]) -> str | None:
    """Two workers that drew one example (the same row) in different batches: the input is not sharded.

    Not decided when Keras ``fit`` made the input from arrays (it shuffles them on each worker
    before sharding: an overlap the script did not write).
    """
    if any(d.fit_arrays for d in dumps):
        return None
    drawn = _overlap([d.examples for d in dumps]) if all(d.examples for d in dumps) else None
    if drawn is not None:
        first, second, shared, at, _ = drawn
        return (
            f"worker {first} and worker {second} both trained on {shared} of the same examples "
            f"(of {len(set(dumps[first].examples))} and {len(set(dumps[second].examples))} drawn; worker "
            f"{second}'s example {at} is one): "
            "the input is not sharded between workers"
        )
    for number, lists in enumerate(passes, start=1):
        found = _overlap(lists)
        if found is not None:
            first, second, shared, at, of = found
            which = f" of distributed dataset {number}" if len(passes) > 1 else ""
            return (
                f"in a data-only pass over each worker's input pipeline{which}, worker {first} and worker {second} "
                f"both read {shared} of the same examples (of {of} read by worker {first}; worker {second}'s "
                f"example {at} is one): "
                "the input is not sharded between workers"
            )
    return None


def _examples_note(dumps: list[WorkerDump], passes: list[list[list[str]]]) -> str:
    note = ""
    if not any(d.fit_arrays for d in dumps) and all(d.examples and _one_epoch(d.examples) for d in dumps):
        note = f", no example shared ({' + '.join(str(len(set(d.examples))) for d in dumps)} examples)"
    judged = [lists for lists in passes if all(_one_epoch(examples) for examples in lists)]
    if judged:
        read = " + ".join(str(sum(len(_one_epoch(lists[w]) or []) for lists in judged)) for w in range(len(dumps)))
        note += f", none in a data-only pass ({read} examples)"
    return note


def writes_distinct(dumps: list[WorkerDump]) -> CheckResult:
    """With several workers, no two workers write one checkpoint or model path (they would race)."""
    name = "writes-distinct"
    if len(dumps) < 2:
        return CheckResult(name, "inconclusive", "one worker")
    writers: dict[str, dict[int, dict[str, Any]]] = {}
    for index, dump in enumerate(dumps):
        for write in dump.writes:
            writers.setdefault(write["path"], {}).setdefault(index, write)
    if not writers:
        return CheckResult(name, "inconclusive", "no checkpoint or model was saved")
    for path, by_worker in writers.items():
        if len(by_worker) > 1:
            how = "; ".join(
                f"worker {i}: {w['what']}" + (f" (line {w['line']})" if w.get("line") else "")
                for i, w in sorted(by_worker.items())
            )
            return CheckResult(
                name, "fail", f"`{path}` is written by {len(by_worker)} workers ({how}): only the chief may write there"
            )
    return CheckResult(name, "pass", f"{len(writers)} path(s) written, each by one worker")


def _fed(feed: list[list[Any]]) -> str:
    sizes = sorted({rows for rows, _ in feed})
    size = f"{sizes[0]} rows" if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]} rows"
    return f"{len(feed)} global batch(es) of {size} ({sum(rows for rows, _ in feed)} examples)"


def _same_feed(many: list[list[Any]], one: list[list[Any]], replicas: int, claimed: list[Any]) -> tuple[bool, str]:
    """Whether the N-replica run and the reference trained on the same global batches, and what they fed."""
    if not many and not one:
        if claimed:
            where = ", ".join(f"line {line}" for line in claimed if line) or "its set-up"
            return False, (
                f"the script sizes its input from the replica count ({where}) and feeds no distributed dataset, "
                "so whether both runs saw the same global batches cannot be checked"
            )
        return True, "no distributed dataset; the script reads no replica count, so both runs fed the same tensors"
    steps = min(len(many), len(one))
    for step in range(steps):
        if many[step] != one[step]:
            rows_n, rows_1 = many[step][0], one[step][0]
            what = (
                f"{rows_n} rows with {replicas} replicas, {rows_1} with 1" if rows_n != rows_1 else "different examples"
            )
            return False, f"the runs were fed different global batches (batch {step + 1}: {what})"
    if not steps:
        return False, "only one of the runs drew batches from a distributed dataset"
    return True, f"same data: {_fed(many[:steps])} in both runs"


def _gradient_ratio(many: list[float], one: list[float]) -> float | None:
    if not many or not one or one[0] == 0.0:
        return None
    return many[0] / one[0]


def replica_count_invariant(
    many: list[WorkerDump], one: list[WorkerDump], again: list[WorkerDump], replicas: int
) -> CheckResult:
    """On the same global batches, N replicas compute the update 1 replica computes, and end where it ends.

    The references are 1-replica runs told the replica count is N (``child/claim.py``), so a
    script that sizes its global batch from the replica count feeds them the same global batches;
    the batches both runs drew are compared before anything else. The first update's gradient
    (Keras 3 optimizers) must match to GRADIENT_TOLERANCE; a ratio of N or 1/N is a loss not
    scaled to the global batch even when an adaptive optimizer hides it in the weights. Then every
    variable must match to REFERENCE_TOLERANCE.
    """
    name = "replica-count-invariant"
    for label, dumps in (("with several replicas", many), ("of the 1-replica reference", one + again)):
        failed = next((d for d in dumps if d.status != "ok"), None)
        if failed is not None:
            error = failed.error or {}
            why = f": {error.get('type')}: {error.get('message')}" if error else f" ({failed.status})"
            return CheckResult(name, "inconclusive", f"a run {label} did not finish{why}")
    if one[0].feed != again[0].feed:
        return CheckResult(
            name, "inconclusive", "two 1-replica runs were fed different batches: the input is not deterministic"
        )
    comparable, fed = _same_feed(many[0].feed, one[0].feed, replicas, one[0].claimed)
    if not comparable:
        return CheckResult(name, "inconclusive", fed)
    single, repeat, multi = one[0].variables, again[0].variables, many[0].variables
    if not single or not multi:
        return CheckResult(name, "inconclusive", "no distributed variable was found")
    if any(k not in repeat or not _close(v["values"], repeat[k]["values"]) for k, v in single.items()):
        return CheckResult(name, "inconclusive", "two 1-replica runs differ: the script is not deterministic")
    ratio = _gradient_ratio(many[0].gradients, one[0].gradients)
    gradient = ""
    if ratio is not None:
        if abs(ratio - 1.0) > GRADIENT_TOLERANCE:
            scaled = next((f for f in (replicas, 1.0 / replicas) if abs(ratio / f - 1.0) <= SCALE_MATCH), None)
            if scaled is None:
                return CheckResult(
                    name,
                    "inconclusive",
                    f"{fed}, but the first update's gradient differs by a factor {ratio:.4g} between {replicas} "
                    f"replicas and 1: "
                    "the model computes differently per replica (dropout, batch normalization, random augmentation)",
                )
            return CheckResult(
                name,
                "fail",
                f"{fed}, but the first update's gradient is {ratio:.4g}x as large with {replicas} replicas as with 1 "
                f"(norm {many[0].gradients[0]:.5g} vs {one[0].gradients[0]:.5g}): the loss is not scaled to the "
                f"global batch",
            )
        gradient = f"first update's gradient equal (norm {one[0].gradients[0]:.5g}); "
    for key, entry in single.items():
        if key in multi and not _close(entry["values"], multi[key]["values"], REFERENCE_TOLERANCE):
            return CheckResult(
                name,
                "fail",
                f"{fed}, but `{key}` is {_short(multi[key]['values'], entry['size'])} with {replicas} replicas and "
                f"{_short(entry['values'], entry['size'])} with 1 (loss not scaled to the global batch, or "
                f"every replica reads the whole batch)",
            )
    return CheckResult(
        name, "pass", f"{fed}; {gradient}{len(single)} variable(s) equal between 1 and {replicas} replicas"
    )


def finite(dumps: list[WorkerDump]) -> CheckResult:
    """Variables, and the values the steps return, stay finite."""
    for dump in dumps:
        if dump.nonfinite:
            return CheckResult(
                "finite", "fail", f"{dump.nonfinite['what']} is not finite {_after(dump.nonfinite['step'])}"
            )
    checked = sum(d.values_checked for d in dumps)
    if not checked:
        return CheckResult("finite", "inconclusive", "no variable and no step result was found")
    return CheckResult("finite", "pass", f"{checked} variable reads and step results finite")
