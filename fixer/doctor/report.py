"""What the doctor found: one line per problem, with its severity and how to fix it."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Problem:
    """One finding of the doctor."""

    severity: str  # error | warning | info
    check: str  # e.g. "TFD603 missing-port", resolve, port, own-address, fingerprint, probe
    message: str
    path: str = ""  # where in the TF_CONFIG, as a JSON path (cluster.worker[1], task.index)


@dataclass
class DoctorReport:
    """The outcome of one doctor run."""

    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was checked and passed
    failed_to_run: str | None = None

    @property
    def exit_code(self) -> int:
        """0 all good, 1 problems found (errors or warnings), 2 could not run."""
        if self.failed_to_run is not None:
            return 2
        return 1 if any(p.severity in ("error", "warning") for p in self.problems) else 0

    def text(self) -> str:
        """One line per problem, then what passed, then a verdict."""
        lines = [f"{p.severity}: [{p.check}] {p.message}" for p in self.problems]
        lines += [f"ok: {note}" for note in self.notes]
        if self.failed_to_run:
            lines.append(f"error: could not run: {self.failed_to_run}")
        elif self.exit_code == 0:
            lines.append("All checks passed.")
        else:
            errors = sum(1 for p in self.problems if p.severity == "error")
            warnings = sum(1 for p in self.problems if p.severity == "warning")
            lines.append(f"{errors} error(s), {warnings} warning(s).")
        return "\n".join(lines)

    def json(self) -> str:
        """The machine-readable form."""
        return json.dumps(
            {
                "ok": self.exit_code == 0,
                "problems": [asdict(p) for p in self.problems],
                "passed": self.notes,
                "error": self.failed_to_run,
            },
            indent=2,
        )
