"""The migration report: totals, per-rule counts, per-file findings and diffs, what needs a
person, errors and time; rendered as self-contained HTML, Markdown or JSON."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from fixer import __version__
from fixer.migrate.validation import STATUSES, FileValidation
from fixer.notebook import cell_diff
from fixer.output.diff import unified_diff
from fixer.output.text import location
from fixer.report import render
from fixer.types import Applicability, FileResult, Finding

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path


@dataclass
class RepoOutcome:
    """What happened to one command-line PATH (branch and commit when asked for)."""

    path: str
    repo: str | None
    files: int
    branch: str | None = None
    commit: str | None = None
    error: str | None = None
    skipped: list[str] = field(default_factory=list)  # not committed, so not on the branch
    root: str = ""  # the repository, else the folder: what the PR body's paths are relative to
    notes: list[str] = field(default_factory=list)  # what the user should know that is no error


@dataclass
class MigrationReport:
    """Everything the report templates show."""

    results: list[FileResult]
    repos: list[RepoOutcome]
    seconds: float
    wrote: bool
    unsafe: bool
    baseline_hidden: int = 0
    interrupted: bool = False
    resumable: bool = True  # False for --branch runs: an interrupted one leaves no branch
    per_rule: dict[str, dict[str, int]] = field(default_factory=dict)
    validations: dict[str, FileValidation] | None = None  # by file name, with --validate
    validation_backend: str | None = None
    validation_seconds: float = 0.0  # wall time of all the validations
    command: str = ""  # the command line that made the report
    date: str = field(default_factory=lambda: datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))

    def __post_init__(self) -> None:
        found: Counter[str] = Counter()
        fixed: Counter[str] = Counter()
        remaining: Counter[str] = Counter()
        for result in self.results:
            for finding in result.applied:
                fixed[finding.code] += 1
                found[finding.code] += 1
            for finding in result.findings:
                if finding.code != "TFD000":
                    remaining[finding.code] += 1
                    found[finding.code] += 1
        self.per_rule = {
            code: {"found": found[code], "fixed": fixed[code], "remaining": remaining[code]} for code in sorted(found)
        }

    @property
    def errors(self) -> list[FileResult]:
        """Files that could not be read, parsed or written."""
        return [r for r in self.results if r.error is not None]

    @property
    def needs_a_person(self) -> list[Finding]:
        """Findings left for a reviewer: advice without an edit, and unsafe fixes held back."""
        return [
            f
            for r in self.results
            for f in r.findings
            if f.code != "TFD000"
            and (
                f.fix is None
                or f.fix.applicability is Applicability.DISPLAY_ONLY
                or f.fix.applicability is Applicability.UNSAFE
            )
        ]

    @property
    def totals(self) -> dict[str, int]:
        """Headline numbers."""
        return {
            "files": len(self.results),
            "files_changed": sum(1 for r in self.results if r.changed),
            "found": sum(v["found"] for v in self.per_rule.values()),
            "fixed": sum(v["fixed"] for v in self.per_rule.values()),
            "remaining": sum(v["remaining"] for v in self.per_rule.values()),
            "needs_a_person": len(self.needs_a_person),
            "errors": len(self.errors) + sum(1 for r in self.repos if r.error),
            "baseline_hidden": self.baseline_hidden,
            "skipped": sum(len(r.skipped) for r in self.repos),
        }

    @property
    def verdict(self) -> str:
        """One honest sentence: never "no issues" while files failed or risky code remains."""
        totals = self.totals
        if self.interrupted:
            then = "resume with --resume" if self.resumable else "no branch was made; run the migration again"
            return f"Interrupted after {totals['files']} files: this report is partial; {then}."
        # The counts are in the totals next to the verdict: it says what they mean, not them again.
        if totals["errors"]:
            verdict = "Some files or repositories could not be processed: their state is unknown."
        elif totals["remaining"]:
            verdict = "Some findings remain for a person to review."
        elif totals["fixed"]:
            verdict = "Every finding was fixed." if self.wrote else "Every finding can be fixed."
        else:
            verdict = "No findings."
        if not self.wrote:
            verdict += " Dry run: nothing was written" + (
                "; run with --write to apply the fixes." if totals["fixed"] else "."
            )
        if totals["skipped"]:
            verdict += f" {totals['skipped']} uncommitted file(s) were left out of the branch and not checked."
        counts = self.validation_totals
        if counts is not None:
            shown = ", ".join(f"{n} {status}" for status, n in counts.items() if n) or "none changed"
            verdict += f" Validation of the changed scripts: {shown}."
        return verdict

    @property
    def validation_totals(self) -> dict[str, int] | None:
        """How many changed scripts got each validation status; None without --validate."""
        if self.validations is None:
            return None
        return {status: sum(1 for v in self.validations.values() if v.status == status) for status in STATUSES}

    def file_rows(self) -> list[dict[str, Any]]:
        """Per-file findings and diffs, files with something to show only."""
        rows = []
        for result in self.results:
            if not (result.findings or result.applied or result.error):
                continue
            diff = ""
            if result.changed:
                show = cell_diff if result.path.endswith(".ipynb") else unified_diff
                diff = show(result.path, result.source or "", result.fixed_text or "")
            rows.append(
                {
                    "path": result.path,
                    "error": result.error,
                    "fixed": [_finding_row(f) for f in result.applied],
                    "remaining": [_finding_row(f) for f in result.findings if f.code != "TFD000"],
                    "diff": diff,
                    "validation": self.validations[result.path].as_dict()
                    if self.validations and result.path in self.validations
                    else None,
                }
            )
        return rows

    def as_dict(self) -> dict[str, Any]:
        """The JSON report."""
        return {
            "verdict": self.verdict,
            "distfix": {"version": __version__, "date": self.date, "command": self.command},
            "seconds": round(self.seconds, 3),
            "wrote": self.wrote,
            "unsafe_fixes": self.unsafe,
            "interrupted": self.interrupted,
            "totals": self.totals,
            "per_rule": self.per_rule,
            "rules": rule_docs(self.per_rule),
            "repositories": [vars(r) for r in self.repos],
            "needs_a_person": [_finding_row(f) for f in self.needs_a_person],
            "errors": [{"path": r.path, "error": r.error} for r in self.errors],
            "validation": None
            if self.validations is None
            else {
                "backend": self.validation_backend,
                "seconds": round(self.validation_seconds, 3),
                "totals": self.validation_totals,
            },
            "files": self.file_rows(),
        }


# How the reports name what a remaining finding offers (``fix`` is the JSON's machine label).
FIX_LABELS = {
    "none": "advice",
    "display-only": "suggested edit, not applied",
    "unsafe": "unsafe fix, applied only with --unsafe-fixes",
    "safe": "safe fix",
}


def _finding_row(finding: Finding) -> dict[str, Any]:
    fix = finding.fix.applicability.label if finding.fix else "none"
    return {
        "location": location(finding),
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "fix": fix,
        "fix_label": FIX_LABELS[fix],
    }


def rule_docs(codes: Mapping[str, object]) -> dict[str, dict[str, str]]:
    """Each rule's name and ``distfix explain`` text, for the reports to name and link."""
    from fixer.explain import render_explanation
    from fixer.registry import default_registry

    registry = default_registry()
    docs = {}
    for code in codes:
        rule = registry.get(code)
        if rule is not None:
            # The report holds the documentation itself: no "Docs:" address to follow.
            text = "\n".join(line for line in render_explanation(rule).splitlines() if not line.startswith("Docs: "))
            docs[code] = {"name": rule.name, "explanation": text.strip() + "\n"}
    return docs


_TEMPLATES = {
    ".html": "migrate/report.html.j2",
    ".htm": "migrate/report.html.j2",
    ".md": "migrate/report.md.j2",
    ".markdown": "migrate/report.md.j2",
    ".json": None,
}


def check_report_path(destination: Path) -> None:
    """Raise ValueError unless a report can be written there (known suffix, existing folder)."""
    if destination.suffix.lower() not in _TEMPLATES:
        raise ValueError(
            f"--report {destination}: unknown report format {destination.suffix!r}: use .html, .md or .json"
        )
    if destination.is_dir():
        raise ValueError(f"--report {destination}: is a directory")
    if not destination.parent.is_dir():
        raise ValueError(f"--report {destination}: folder {destination.parent} does not exist")


def write_report(report: MigrationReport, destination: Path) -> None:
    """Render by the file's suffix: .html, .md or .json."""
    check_report_path(destination)
    template = _TEMPLATES[destination.suffix.lower()]
    data = report.as_dict()
    text = json.dumps(data, indent=2) if template is None else render(template, report=report, data=data)
    destination.write_text(text, encoding="utf-8")
