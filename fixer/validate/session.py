"""One validation: run the original and the fixed script, apply the checks, decide the verdict."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from fixer.config import Config
from fixer.engine import check_source, fix_source
from fixer.sources import SourceError, read_source
from fixer.tf.script_launchers import caller_launches_with_tf_config
from fixer.validate import checks, diagnose
from fixer.validate.project import Entry, ProjectError, resolve_entry
from fixer.validate.report import ValidationReport, VariantReport, tail, topology
from fixer.validate.runner import RunSpec, WorkerDump, run_script

if TYPE_CHECKING:
    from collections.abc import Iterator

    from fixer.types import FileResult

# The fixes that bring a script to today's TensorFlow and Keras without touching its distribution:
# renamed APIs (TFD401), building the optimizer before a compiled step (TFD109), the tf-keras
# switch for Keras `fit` under MultiWorkerMirroredStrategy (TFD504).
VERSION_CODES = ("TFD401", "TFD109", "TFD504")
_ENDINGS = {"stopped": "(killed: another worker had failed)", "timeout": "(killed at the timeout)"}


class CannotValidate(Exception):
    """The script cannot be validated (missing, unparsable, needs a module, a file or network data); one line."""


_LINE = re.compile(r" \(line \d+\)")
_WORKER = re.compile(r"^worker \d+: ")  # which worker failed first is a race, not part of the error
_USAGE_ERROR = re.compile(r"^\S+: error: (.+)$")


def _usage_message(output: str) -> str:
    """argparse's complaint (``prog: error: ...``) from a worker's output."""
    found = [m.group(1) for m in map(_USAGE_ERROR.match, output.splitlines()) if m]
    return found[-1] if found else "the arguments were rejected"


def _refuse_missing_inputs(dumps: list[WorkerDump], spec: RunSpec, name: str, entry: Entry) -> None:
    """A module, file, download or argument the script needs is not there: no check can say anything.

    This holds for either variant: the fix is never blamed for what the original would hit too.
    """
    reproduce = f"; to reproduce: {entry.command()}"
    for dump in dumps:
        error = dump.error
        if not error:
            continue
        where = f" (line {error['line']})" if error.get("line") else ""
        missing = error.get("missing") or {}
        if error.get("usage"):
            raise CannotValidate(
                f"the {name} script exited with an argparse usage error: {_usage_message(dump.output)} "
                f"(give its arguments after `--`, or in [tool.distfix.validate] args){reproduce}"
            )
        if missing.get("kind") == "module":
            raise CannotValidate(
                f"the {name} script needs the module `{missing['name']}`{where}, which is not installed here{reproduce}"
            )
        if missing.get("kind") == "file":
            what = f"the file `{missing['name']}`" if missing.get("name") else f"a file ({error.get('message')})"
            raise CannotValidate(
                f"the {name} script needs {what}{where}, which is not there "
                f"(the script runs in a copy of its project: keep its data inside it or give an absolute "
                f"path){reproduce}"
            )
        if error.get("network"):
            hint = (
                "--synthetic-data does not replace this download"
                if spec.synthetic_data
                else "rerun with --synthetic-data"
            )
            raise CannotValidate(
                f"the {name} script needs network data{where}: {error.get('message')} ({hint}){reproduce}"
            )


def _evaluate(script: Path, text: str, spec: RunSpec, folder: Path, name: str) -> VariantReport:
    assert spec.entry is not None
    main = run_script(script, text, spec, folder)
    _refuse_missing_inputs(main, spec, name, spec.entry)
    runs = checks.runs(main, spec.timeout)
    output = ["\n".join(filter(None, (tail(d.output), _ENDINGS.get(d.status)))) for d in main]
    addresses = {k: v for d in main for k, v in d.addresses.items()}
    results = [runs]
    if runs.result != "pass":
        results += [
            checks.CheckResult(name, "inconclusive", "the run did not finish")
            for name in (*checks.CONSISTENCY, "finite", "writes-distinct")
        ]
        error = next((d.error for d in main if d.error), None)
        diagnoses = diagnose.explain(error, check_source(str(script), text).findings) if error else []
        return VariantReport("failed", results, runs.detail, output, addresses, topology(main), diagnoses)
    results += [checks.replicas_consistent(main), checks.workers_consistent(main), checks.inputs_distinct(main)]
    if spec.workers == 1 and spec.replicas > 1:
        with ThreadPoolExecutor(max_workers=2) as pool:
            one, again = pool.map(
                lambda name: run_script(
                    script,
                    text,
                    spec,
                    folder.with_name(f"{folder.name}-1replica-{name}"),
                    replicas=1,
                    claim_replicas=spec.replicas,
                ),
                "ab",
            )
        results.append(checks.replica_count_invariant(main, one, again, spec.replicas))
    else:
        results.append(
            checks.CheckResult("replica-count-invariant", "inconclusive", "needs one worker and several replicas")
        )
    results.append(checks.finite(main))
    results.append(checks.writes_distinct(main))
    if any(r.result == "fail" for r in results):
        status = "failed"
    elif all(r.result == "inconclusive" for r in results if r.name in checks.CONSISTENCY):
        status = "inconclusive"
    else:
        status = "passed"
    return VariantReport(status, results, None, output, addresses, topology(main))


def validate(path: Path, spec: RunSpec, compare: bool = True) -> ValidationReport:
    """Validate ``path``: the original and (in compare mode) the engine's fix with unsafe fixes.

    ``spec.entry`` says how the project runs it; without one, the project's
    ``[tool.distfix.validate]`` (or ``python path`` in the folder the project needs) is used.
    """
    if spec.entry is None:
        try:
            spec = replace(spec, entry=resolve_entry(path))
        except ProjectError as exc:
            raise CannotValidate(str(exc)) from None
    try:
        original = read_source(path).text
    except SourceError as exc:
        raise CannotValidate(f"{path}: {exc}") from None
    parsed = check_source(str(path), original)
    if parsed.error is not None and any(f.code == "TFD000" for f in parsed.findings):
        raise CannotValidate(f"{path}: {parsed.error}")
    notes = []
    if spec.workers > 1 and spec.replicas > 1 and spec.device != "gpu":
        notes.append(
            f"on CPU each MultiWorkerMirroredStrategy worker has one replica: {spec.workers} workers give "
            f"{spec.workers} replicas"
        )
    root = Path(tempfile.mkdtemp(prefix="distfix-validate-"))
    try:
        with _backend_session(spec):
            variants = _variants(path, original, spec, root, compare, notes)
    finally:
        if not spec.keep_temp:
            shutil.rmtree(root, ignore_errors=True)
    ports = "local ports" if spec.backend == "local" else "ports on the Ray workers' nodes"
    for name, variant in variants.items():
        if variant.addresses and (name == "original" or variant is not variants["original"]):
            mapped = ", ".join(f"{a} -> {b}" for a, b in variant.addresses.items())
            notes.append(f"{name}: the addresses the script names were mapped to {ports}: {mapped}")
    return ValidationReport(str(path), spec, variants, notes, str(root) if spec.keep_temp else None)


@contextmanager
def _backend_session(spec: RunSpec) -> Iterator[None]:
    """A Ray session around every run of the validation (ray backend); nothing for local runs."""
    if spec.backend != "ray":
        yield
        return
    from fixer.ray_session import RaySessionError, ray_session
    from fixer.validate.ray_backend import RayRunError

    # A local Ray only counts CPUs: enough for every worker, and for the two 1-replica reference runs.
    try:
        with ray_session(spec.address, num_cpus=max(os.cpu_count() or 1, 2 * spec.workers)):
            yield
    except (RaySessionError, RayRunError) as exc:
        raise CannotValidate(str(exc)) from None


def _variants(
    path: Path, original: str, spec: RunSpec, root: Path, compare: bool, notes: list[str]
) -> dict[str, VariantReport]:
    """The original's report and, in compare mode, the fixed script's (``notes`` gets what the user should know).

    In compare mode the original runs with the version fixes the fixed script also has (renamed
    APIs, optimizer build, the tf-keras switch), so a script written for an older TensorFlow
    fails, if it does, for the mistake the fix is about rather than for the version.
    """
    if not compare:
        return {"original": _evaluate(path, original, spec, root / "original", "original")}
    with caller_launches_with_tf_config():  # validate starts each worker with its own TF_CONFIG
        fixed = fix_source(str(path), original, unsafe=True)
    if fixed.fixed_text is None:
        notes.append("distfix has no fix for this script: the fixed variant is the original")
        report = _evaluate(path, original, spec, root / "original", "original")
        _refuse_unexplained_crash(report, spec.entry)
        return {"original": report, "fixed": report}
    baseline = _modernised(path, original, fixed, notes)
    variants = {"original": _evaluate(path, baseline, spec, root / "original", "original")}
    variants["fixed"] = _evaluate(path, fixed.fixed_text, spec, root / "fixed", "fixed")
    _refuse_shared_failure(variants, spec.entry)
    return variants


def _modernised(path: Path, original: str, fixed: FileResult, notes: list[str]) -> str:
    """The original with only the version fixes that ``fixed`` also applied (the original itself when none)."""
    codes = tuple(sorted({f.code for f in fixed.applied} & set(VERSION_CODES)))
    if not codes:
        return original
    modern = fix_source(str(path), original, Config(select=codes), unsafe=True).fixed_text
    if modern is None or modern == fixed.fixed_text:
        notes.append(f"the fix only brings the script up to date ({', '.join(codes)}): the original ran as written")
        return original
    notes.append(
        f"the original ran with the version fixes the fixed script also has ({', '.join(codes)}), to isolate "
        f"the distribution fix"
    )
    return modern


def _refuse_unexplained_crash(report: VariantReport, entry: Entry | None) -> None:
    """A script distfix has no fix for crashed with an error no rule explains: nothing here says it is the distribution.

    Measured on public scripts that crash on this TensorFlow for its version (a name removed
    from ``tensorflow.distribute``, Keras 3's save path): "fail (fixed script)" blamed a fix
    that does not exist. A hang (``checks.runs``: "still running after") is still a failure.
    """
    if report.status != "failed" or report.error is None or report.diagnoses or "still running after" in report.error:
        return
    reproduce = f"; to reproduce: {entry.command()}" if entry else ""
    raise CannotValidate(
        f"the script fails here with an error none of distfix's rules explains, and distfix has no fix for it: "
        f"{report.error}{reproduce}"
    )


def _same_error(first: str, second: str) -> bool:
    """The same error, whichever worker reported it first and whichever line the fix moved it to."""
    return _LINE.sub("", _WORKER.sub("", first)) == _LINE.sub("", _WORKER.sub("", second))


def _refuse_shared_failure(variants: dict[str, VariantReport], entry: Entry | None) -> None:
    """Both variants crashed with the same error no rule explains: the script cannot run here, fix or not."""
    original, fixed = variants["original"], variants["fixed"]
    if original.status != "failed" or fixed.status != "failed" or original.diagnoses:
        return
    if original.error is None or fixed.error is None:
        return
    if _same_error(original.error, fixed.error):
        reproduce = f"; to reproduce: {entry.command()}" if entry else ""
        raise CannotValidate(
            f"the original and the fixed script fail the same way here, so the fix is not to blame: "
            f"{original.error}{reproduce}"
        )
