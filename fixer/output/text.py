"""Human-readable findings: ``path:line:col: TFD101 [*] message`` plus a summary."""

from __future__ import annotations

from collections import Counter

from fixer.codes import ERROR, INFO, WARNING, severity
from fixer.types import Applicability, FileResult, Finding

SAFE_MARK = "[*]"
UNSAFE_MARK = "[~]"


def location(finding: Finding) -> str:
    """``path:line:col`` or, for notebooks, ``path:cell N:line:col``."""
    cell = f"cell {finding.cell}:" if finding.cell is not None else ""
    return f"{finding.path}:{cell}{finding.start.line}:{finding.start.column}"


def marker(finding: Finding) -> str:
    """``[*]`` for a safe fix, ``[~]`` for an unsafe one, nothing for advice."""
    if finding.fix is None or finding.fix.applicability is Applicability.DISPLAY_ONLY:
        return ""
    return SAFE_MARK + " " if finding.fix.applicability is Applicability.SAFE else UNSAFE_MARK + " "


def finding_line(finding: Finding) -> str:
    """One line for one finding."""
    return f"{location(finding)}: {finding.code} {marker(finding)}{finding.message}"


def summary(results: list[FileResult], unusable_paths: int = 0) -> str:
    """Totals for the end of a text report; ``unusable_paths`` were named but could not be read."""
    findings = [f for r in results for f in r.findings if f.code != "TFD000"]
    errors = sum(1 for r in results if r.error is not None) + unusable_paths
    safe = sum(1 for f in findings if f.fix and f.fix.applicability is Applicability.SAFE)
    unsafe = sum(1 for f in findings if f.fix and f.fix.applicability is Applicability.UNSAFE)
    files = len(results) + unusable_paths
    if not findings and not errors:
        text = f"All checks passed: {files} file{'s' * (files != 1)} checked."
    elif not findings:
        text = f"No findings in the files that could be checked ({files - errors} of {files})."
    else:
        flagged = len({r.path for r in results for f in r.findings if f.code != "TFD000"})
        where = f"{flagged} file{'s' * (flagged != 1)}" if flagged == files else f"{flagged} of {files} files"
        text = f"Found {len(findings)} finding{'s' * (len(findings) != 1)} in {where}: {_by_severity(findings)}."
        if safe:
            text += f"\n[*] {safe} fixable with `distfix fix --write`."
        if unsafe:
            text += f"\n[~] {unsafe} more fixable with `distfix fix --write --unsafe-fixes`."
    if errors:
        text += f"\n{errors} path{'s' * (errors != 1)} could not be checked."
    return text


def _by_severity(findings: list[Finding]) -> str:
    """``2 errors, 1 warning, 1 info``: how many findings of each severity, the empty ones left out."""
    counts = Counter(severity(f.code) for f in findings)
    parts = [(ERROR, "error", "errors"), (WARNING, "warning", "warnings"), (INFO, "info", "info")]
    return ", ".join(f"{counts[key]} {one if counts[key] == 1 else many}" for key, one, many in parts if counts[key])


def statistics(results: list[FileResult]) -> str:
    """A count per rule code, most frequent first (``--statistics``)."""
    counts = Counter((f.code, f.name) for r in results for f in r.findings)
    width = max((len(str(n)) for n in counts.values()), default=1)
    return "\n".join(f"{n:>{width}}  {code}  {name}" for (code, name), n in counts.most_common())
