"""What ``distfix validate`` reports: per variant, the checks and the output; the verdict."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fixer.validate import checks

if TYPE_CHECKING:
    from fixer.validate.runner import RunSpec, WorkerDump

OUTPUT_LINES = 20
# TensorFlow's C++ info and warning lines, and its complaint that there is no GPU.
_LOG_NOISE = re.compile(
    r"^([IW]\d{4} [\d:.]+\s+\d+ \S+\]|E\d{4} [\d:.]+\s+\d+ cuda_\w+\.cc:\d+\] failed call to cuInit"
    r"|WARNING: All log messages before absl::InitializeLog)"
)
EXIT_CODES = {"pass": 0, "fail": 1, "inconclusive": 2}


def tail(output: str, lines: int = OUTPUT_LINES) -> str:
    """The last lines the script printed, without TensorFlow's log noise."""
    kept = [line for line in output.rstrip().splitlines() if not _LOG_NOISE.match(line)]
    return "\n".join(kept[-lines:])


@dataclass
class VariantReport:
    """The checks of one variant (original or fixed)."""

    status: str  # passed | failed | inconclusive
    checks: list[checks.CheckResult] = field(default_factory=list)
    error: str | None = None
    output: list[str] = field(default_factory=list)  # the tail of each worker's output
    addresses: dict[str, str] = field(default_factory=dict)  # script address -> 127.0.0.1 port
    ran: str | None = None  # what ran, from the strategy the script made (see topology())
    diagnoses: list[str] = field(default_factory=list)  # the rules that explain the error (see diagnose.py)

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "ran": self.ran,
            "diagnoses": self.diagnoses,
            "checks": [{"name": c.name, "result": c.result, "detail": c.detail} for c in self.checks],
            "error": self.error,
            "output": self.output,
            "addresses": self.addresses,
        }


@dataclass
class ValidationReport:
    """Everything ``distfix validate`` prints."""

    script: str
    spec: RunSpec
    variants: dict[str, VariantReport]
    notes: list[str] = field(default_factory=list)
    temp: str | None = None  # the kept temporary folder (--keep-temp)

    @property
    def validated_name(self) -> str:
        """The variant the verdict is about: the fixed one in compare mode."""
        return "fixed" if "fixed" in self.variants else "original"

    @property
    def verdict(self) -> str:
        """pass, fail, or inconclusive (it ran, but no consistency check could decide)."""
        return {"passed": "pass", "failed": "fail"}.get(self.variants[self.validated_name].status, "inconclusive")

    def as_dict(self) -> dict[str, Any]:
        return {
            "script": self.script,
            "replicas": self.spec.replicas,
            "workers": self.spec.workers,
            "device": self.spec.device,
            "max_steps": self.spec.max_steps,
            "ran": self.header(),
            "variants": {name: v.as_dict() for name, v in self.variants.items()},
            "notes": self.notes,
            "temp": self.temp,
            "verdict": self.verdict,
        }

    def json(self) -> str:
        return json.dumps(self.as_dict(), indent=2)

    def table(self) -> str:
        names = list(self.variants)
        rows = [("check", *names)]
        for check in (c.name for c in self.variants[names[0]].checks):
            rows.append(
                (check, *[next((c.result for c in self.variants[n].checks if c.name == check), "-") for n in names])
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = [
            f"distfix validate {self.script}: {self.header()}",
            "",
            *("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows),
        ]
        lines += _section("evidence:", self._evidence())
        for name in self._distinct_variants():
            for index, text in enumerate(self.variants[name].output):
                worker = f", worker {index}" if len(self.variants[name].output) > 1 else ""
                lines += _section(
                    f"output of {name}{worker} (last lines):", text.splitlines() if text else ["(nothing)"]
                )
        lines += [""] if self.notes or self.temp else []
        lines += [f"note: {note}" for note in self.notes]
        lines += [f"temporary files kept in {self.temp}"] if self.temp else []
        lines += ["", f"verdict: {self.verdict} ({self.validated_name} script)"]
        return "\n".join(lines)

    def header(self) -> str:
        """What ran (the replicas the script's strategy really had), then what was asked for."""
        asked = f"asked --replicas {self.spec.replicas} --workers {self.spec.workers} --device {self.spec.device}"
        ran = self.variants[self.validated_name].ran or self.variants["original"].ran
        return f"{ran}; {asked}" if ran else f"{asked} (no distribution strategy was created)"

    def _distinct_variants(self) -> list[str]:
        names = list(self.variants)
        return names[:1] if len(names) == 2 and self.variants[names[0]] is self.variants[names[1]] else names

    def _evidence(self) -> list[str]:
        shown = [
            f"{name} / {c.name}: {c.detail}"
            for name in self._distinct_variants()
            for c in self.variants[name].checks
            if c.result == "fail"
        ]
        shown += [
            f"{name} / runs: {diagnosis}"
            for name in self._distinct_variants()
            for diagnosis in self.variants[name].diagnoses
        ]
        if self.verdict == "inconclusive":
            validated = self.variants[self.validated_name]
            shown += [
                f"{self.validated_name} / {c.name}: inconclusive: {c.detail}"
                for c in validated.checks
                if c.name in checks.CONSISTENCY
            ]
        return shown


def topology(dumps: list[WorkerDump]) -> str | None:
    """What ran.

    For example "2 replicas on 2 logical CPU devices, 1 worker" or
    "2 workers x 1 replica (CPU) = 2 replicas in sync".
    """
    known = next((d for d in dumps if d.topology), None)
    if known is None or known.topology is None:
        return None
    in_sync, local, devices = known.topology["in_sync"], known.topology["local"], known.devices or "unknown"
    if len(dumps) == 1:
        return f"{in_sync} replica(s) on {local} {devices} device(s), 1 worker"
    return f"{len(dumps)} workers x {local} replica(s) ({devices}) = {in_sync} replicas in sync"


def _section(title: str, lines: list[str]) -> list[str]:
    return ["", title, *(f"  {line}" for line in lines)] if lines else []
