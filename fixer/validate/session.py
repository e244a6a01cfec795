"""One validation: run the original and the fixed script, apply the checks, decide the verdict."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from fixer.engine import check_source, fix_source
from fixer.sources import SourceError, read_source
from fixer.validate import checks
from fixer.validate.runner import RunSpec, run_script


class CannotValidate(Exception):
    """The script cannot be validated (missing, unparsable, needs network data); one line."""


@dataclass
class VariantReport:
    """The checks of one variant (original or fixed)."""

    status: str  # passed | failed | error
    checks: list[checks.CheckResult] = field(default_factory=list)
    error: str | None = None

    def as_dict(self) -> dict:
        return {
            "status": self.status,
            "checks": [{"name": c.name, "result": c.result, "detail": c.detail} for c in self.checks],
            "error": self.error,
        }


@dataclass
class ValidationReport:
    """Everything ``distfix validate`` prints."""

    script: str
    spec: RunSpec
    variants: dict[str, VariantReport]
    notes: list[str] = field(default_factory=list)

    @property
    def validated(self) -> VariantReport:
        """The variant the verdict is about: the fixed one in compare mode."""
        return self.variants.get("fixed") or self.variants["original"]

    @property
    def verdict(self) -> str:
        return "pass" if self.validated.status == "passed" else "fail"

    def as_dict(self) -> dict:
        return {
            "script": self.script,
            "replicas": self.spec.replicas,
            "workers": self.spec.workers,
            "device": self.spec.device,
            "variants": {name: v.as_dict() for name, v in self.variants.items()},
            "notes": self.notes,
            "verdict": self.verdict,
        }

    def json(self) -> str:
        return json.dumps(self.as_dict(), indent=2)

    def table(self) -> str:
        names = list(self.variants)
        rows = [("check", *names)]
        check_names = [c.name for c in self.variants[names[0]].checks]
        for check in check_names:
            rows.append((check, *[next((c.result for c in self.variants[n].checks if c.name == check), "-") for n in names]))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = [
            f"distfix validate {self.script}: {self.spec.replicas} replica(s) x {self.spec.workers} worker(s), device {self.spec.device}",
            "",
        ]
        lines += ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
        evidence = [
            f"  {name} / {c.name}: {c.detail}" for name in names for c in self.variants[name].checks if c.result == "fail"
        ]
        if evidence:
            lines += ["", "evidence:", *evidence]
        lines += [f"note: {note}" for note in self.notes]
        lines += ["", f"verdict: {self.verdict} ({'fixed' if 'fixed' in self.variants else 'original'} script)"]
        return "\n".join(lines)


def _evaluate(script: Path, text: str, spec: RunSpec) -> VariantReport:
    main = run_script(script, text, spec)
    runs = checks.runs(main, spec.timeout)
    results = [runs]
    error = next((d.error for d in main if d.error), None)
    if error and error.get("network") and not spec.synthetic_data:
        raise CannotValidate("the script needs network data (a download failed); rerun with --synthetic-data")
    if runs.result != "pass":
        skipped = ["replicas-consistent", "workers-consistent", "inputs-distinct", "replica-count-invariant", "finite"]
        results += [checks.CheckResult(name, "inconclusive", "the run did not finish") for name in skipped]
        return VariantReport("failed", results, runs.detail)
    results.append(checks.replicas_consistent(main))
    results.append(checks.workers_consistent(main))
    results.append(checks.inputs_distinct(main))
    if spec.workers == 1 and spec.replicas > 1:
        with ThreadPoolExecutor(max_workers=2) as pool:
            one, again = pool.map(lambda _: run_script(script, text, spec, replicas=1), range(2))
        results.append(checks.replica_count_invariant(main, one, again, spec.replicas))
    else:
        results.append(checks.CheckResult("replica-count-invariant", "inconclusive", "needs one worker and several replicas"))
    results.append(checks.finite(main))
    failed = any(r.result == "fail" for r in results)
    return VariantReport("failed" if failed else "passed", results)


def validate(path: Path, spec: RunSpec, compare: bool = True) -> ValidationReport:
    """Validate ``path``: the original and (in compare mode) the engine's fix with unsafe fixes."""
    try:
        original = read_source(path).text
    except SourceError as exc:
        raise CannotValidate(f"{path}: {exc}") from None
    parsed = check_source(str(path), original)
    if parsed.error is not None and any(f.code == "TFD000" for f in parsed.findings):
        raise CannotValidate(f"{path}: {parsed.error}")
    notes = []
    if spec.workers > 1 and spec.replicas > 1 and spec.device != "gpu":
        notes.append(f"on CPU each MultiWorkerMirroredStrategy worker has one replica: {spec.workers} workers give {spec.workers} replicas")
    variants = {"original": _evaluate(path, original, spec)}
    if compare:
        fixed = fix_source(str(path), original, unsafe=True)
        if fixed.fixed_text is None:
            notes.append("distfix has no fix for this script: the fixed variant is the original")
            variants["fixed"] = variants["original"]
        else:
            variants["fixed"] = _evaluate(path, fixed.fixed_text, spec)
    return ValidationReport(str(path), spec, variants, notes)
