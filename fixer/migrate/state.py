"""The state file that lets an interrupted migration resume where it stopped."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict
from pathlib import Path

from fixer.types import Applicability, Edit, FileResult, Finding, Fix, Position

DEFAULT_STATE_FILE = ".distfix-migrate-state.json"


def finding_to_dict(finding: Finding) -> dict:
    """A JSON-safe form of a finding."""
    data = asdict(finding)
    data["applicability"] = finding.applicability.label if finding.applicability else None
    if finding.fix is not None:
        data["fix"]["applicability"] = finding.fix.applicability.label
    return data


def finding_from_dict(data: dict) -> Finding:
    """The inverse of :func:`finding_to_dict`."""
    fix = data.get("fix")
    return Finding(
        path=data["path"],
        code=data["code"],
        name=data["name"],
        message=data["message"],
        start=Position(**data["start"]),
        end=Position(**data["end"]),
        fix=Fix(fix["title"], tuple(Edit(**e) for e in fix["edits"]), Applicability.from_label(fix["applicability"])) if fix else None,
        applicability=Applicability.from_label(data["applicability"]) if data.get("applicability") else None,
        cell=data.get("cell"),
    )


def result_to_dict(result: FileResult) -> dict:
    """A JSON-safe form of a file's result (texts included, for diffs in the report)."""
    return {
        "path": result.path,
        "source": result.source,
        "fixed_text": result.fixed_text,
        "error": result.error,
        "reverted": result.reverted,
        "held_back_unsafe": result.held_back_unsafe,
        "findings": [finding_to_dict(f) for f in result.findings],
        "applied": [finding_to_dict(f) for f in result.applied],
    }


def result_from_dict(data: dict) -> FileResult:
    """The inverse of :func:`result_to_dict`."""
    return FileResult(
        path=data["path"],
        source=data["source"],
        fixed_text=data["fixed_text"],
        error=data["error"],
        reverted=data["reverted"],
        held_back_unsafe=data["held_back_unsafe"],
        findings=[finding_from_dict(f) for f in data["findings"]],
        applied=[finding_from_dict(f) for f in data["applied"]],
    )


def save_state(path: Path, options: dict, done: dict[str, FileResult]) -> None:
    """Write the state atomically: the run's options and every finished file's result."""
    payload = {"options": options, "done": {name: result_to_dict(r) for name, r in done.items()}}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".distfix-state-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(payload, handle)
    os.replace(tmp, path)


def load_state(path: Path) -> tuple[dict, dict[str, FileResult]]:
    """The options and finished results of an interrupted run; ValueError if unreadable."""
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
        return payload["options"], {name: result_from_dict(r) for name, r in payload["done"].items()}
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(f"cannot resume from {path}: {exc}") from None
