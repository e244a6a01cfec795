"""The state file that lets an interrupted migration resume where it stopped.

It is a journal, written as the run goes: a first line with the run's options, then one line per
finished file, flushed at once. A run stopped in any way (Ctrl-C, SIGTERM, SIGKILL, a crash) leaves
every file it finished recorded; a line cut short by a kill is ignored (that file is done again,
which is harmless: fixes are idempotent). A lock keeps two runs from sharing one state file.
"""

from __future__ import annotations

import fcntl
import json
import os
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from fixer.types import Applicability, Edit, FileResult, Finding, Fix, Position

if TYPE_CHECKING:
    from pathlib import Path

DEFAULT_STATE_FILE = ".distfix-migrate-state.json"


def finding_to_dict(finding: Finding) -> dict[str, Any]:
    """A JSON-safe form of a finding."""
    data = asdict(finding)
    data["applicability"] = finding.applicability.label if finding.applicability else None
    if finding.fix is not None:
        data["fix"]["applicability"] = finding.fix.applicability.label
    return data


def finding_from_dict(data: dict[str, Any]) -> Finding:
    """The inverse of :func:`finding_to_dict`."""
    fix = data.get("fix")
    return Finding(
        path=data["path"],
        code=data["code"],
        name=data["name"],
        message=data["message"],
        start=Position(**data["start"]),
        end=Position(**data["end"]),
        fix=Fix(fix["title"], tuple(Edit(**e) for e in fix["edits"]), Applicability.from_label(fix["applicability"]))
        if fix
        else None,
        applicability=Applicability.from_label(data["applicability"]) if data.get("applicability") else None,
        cell=data.get("cell"),
    )


# The FileResult fields a state file keeps: the plain ones as they are, the finding lists through
# finding_to_dict. One list for both directions, so saving and loading cannot drift apart.
_PLAIN_RESULT_FIELDS = ("path", "source", "fixed_text", "error", "reverted", "held_back_unsafe")
_FINDING_RESULT_FIELDS = ("findings", "applied")


def result_to_dict(result: FileResult) -> dict[str, Any]:
    """A JSON-safe form of a file's result (texts included, for diffs in the report)."""
    data = {name: getattr(result, name) for name in _PLAIN_RESULT_FIELDS}
    data.update({name: [finding_to_dict(f) for f in getattr(result, name)] for name in _FINDING_RESULT_FIELDS})
    return data


def result_from_dict(data: dict[str, Any]) -> FileResult:
    """The inverse of :func:`result_to_dict`."""
    fields: dict[str, Any] = {name: data[name] for name in _PLAIN_RESULT_FIELDS}
    fields.update({name: [finding_from_dict(f) for f in data[name]] for name in _FINDING_RESULT_FIELDS})
    return FileResult(**fields)


class StateJournal:
    """The state file of a running migration, open for appending and locked."""

    def __init__(self, path: Path, options: dict[str, Any], resume: bool) -> None:
        """Start a new journal (or continue the one ``resume`` loaded) at ``path``; ValueError
        when it cannot be written or another run holds it."""
        try:
            self._handle = open(path, "a", encoding="utf-8")
        except OSError as exc:
            raise ValueError(
                f"cannot write the state file {path}: {exc.strerror} (choose another with --state-file)"
            ) from None
        try:
            fcntl.flock(self._handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._handle.close()
            raise ValueError(
                f"another migration is using the state file {path}: wait for it, or pass another --state-file"
            ) from None
        self.path = path
        if resume:
            if not _ends_a_line(path):  # a line cut short by a kill: end it
                self._handle.write("\n")
        else:
            self._handle.truncate(0)
            self._write({"options": options})

    def _write(self, record: dict[str, Any]) -> None:
        self._handle.write(json.dumps(record) + "\n")
        self._handle.flush()

    def record(self, name: str, result: FileResult) -> None:
        """Note that the file ``name`` is finished, with its result."""
        self._write({"name": name, "result": result_to_dict(result)})

    def close(self, finished: bool) -> None:
        """Release the journal; a finished run deletes it, an interrupted one keeps it to resume."""
        if finished:
            self.path.unlink(missing_ok=True)
        self._handle.close()


def _ends_a_line(path: Path) -> bool:
    with open(path, "rb") as raw:
        if raw.seek(0, os.SEEK_END) == 0:
            return True
        raw.seek(-1, os.SEEK_END)
        return raw.read(1) == b"\n"


def load_state(path: Path) -> tuple[dict[str, Any], dict[str, FileResult]]:
    """The options and finished results of an interrupted run; ValueError if unreadable."""
    try:
        with open(path, encoding="utf-8") as handle:
            options = json.loads(handle.readline())["options"]
            done = {}
            for line in handle:
                try:
                    record = json.loads(line)
                    done[record["name"]] = result_from_dict(record["result"])
                except (json.JSONDecodeError, KeyError, TypeError):  # cut short by a kill
                    continue
    except FileNotFoundError:
        raise ValueError(
            f"cannot resume: no state file {path} "
            "(the run finished, or ran in another folder or with another --state-file)"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(f"cannot resume from {path}: {exc}") from None
    return options, done
