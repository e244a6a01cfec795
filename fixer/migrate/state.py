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


# The FileResult fields a state file keeps: the plain ones as they are, the finding lists through
# finding_to_dict. One list for both directions, so saving and loading cannot drift apart.
_PLAIN_RESULT_FIELDS = ("path", "source", "fixed_text", "error", "reverted", "held_back_unsafe")
_FINDING_RESULT_FIELDS = ("findings", "applied")


def result_to_dict(result: FileResult) -> dict:
    """A JSON-safe form of a file's result (texts included, for diffs in the report)."""
    data = {name: getattr(result, name) for name in _PLAIN_RESULT_FIELDS}
    data.update({name: [finding_to_dict(f) for f in getattr(result, name)] for name in _FINDING_RESULT_FIELDS})
    return data


def result_from_dict(data: dict) -> FileResult:
    """The inverse of :func:`result_to_dict`."""
    plain = {name: data[name] for name in _PLAIN_RESULT_FIELDS}
    findings = {name: [finding_from_dict(f) for f in data[name]] for name in _FINDING_RESULT_FIELDS}
    return FileResult(**plain, **findings)


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
