"""What the project-target model decided, as text or JSON, for `distfix target`."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from fixer.target.model import LISTING, Target
from fixer.target.saved_runs import describe
from fixer.target.versions import KERAS3_FROM

if TYPE_CHECKING:
    from pathlib import Path

    from fixer.target.sources import Evidence


def _relative(path: str, base: Path) -> str:
    try:
        return os.path.relpath(path, base)
    except ValueError:  # another drive (Windows)
        return path


def _keras_reason(target: Target) -> str:
    if target.version < KERAS3_FROM:
        return "tf.keras is Keras 2 before TensorFlow 2.16"
    if target.keras == 2 and target.legacy_env is not None:
        return f"TF_USE_LEGACY_KERAS=1 at {target.legacy_env.where}"
    if target.recorded_keras2 and target.recorded_keras_from is not None:
        return f"the notebook's saved output shows a Keras 2 run at {target.recorded_keras_from.where}"
    return "tf.keras is Keras 3 from TensorFlow 2.16 on; a script's own TF_USE_LEGACY_KERAS=1 still selects tf-keras"


def _at(evidence: Evidence, base: Path) -> str:
    """``requirements.txt:3`` or ``train.ipynb:cell 2:1``, the file relative to ``base``."""
    cell = f"cell {evidence.cell}:" if evidence.cell is not None else ""
    return f"{_relative(evidence.path, base)}:{cell}{evidence.line}"


def as_dict(target: Target, base: Path, requested_from: str | None) -> dict[str, Any]:
    """The decision and its sources, paths relative to ``base``."""
    version = f"{target.version[0]}.{target.version[1]}"
    return {
        "tensorflow": version,
        "pinned": f"{target.pinned[0]}.{target.pinned[1]}" if target.pinned else None,
        "assumed": target.assumed,
        "upgrade": target.upgrade,
        "requested_from": requested_from,
        "keras": target.keras,
        "keras_reason": _keras_reason(target),
        "tf_keras_declared": _relative(target.tf_keras_from.path, base) if target.tf_keras_from else None,
        "decided_by": (
            {
                "file": _relative(target.tensorflow_from.path, base),
                "line": target.tensorflow_from.line,
                "cell": target.tensorflow_from.cell,
                "text": target.tensorflow_from.text,
            }
            if target.tensorflow_from
            else None
        ),
        "older_release": (
            {"file": _relative(target.older_from.path, base), "line": target.older_from.line}
            if target.older_from
            else None
        ),
        "saved_run": (
            {"file": _relative(target.past_run.path, base), "cell": target.past_run.cell, "text": target.past_run.text}
            if target.past_run
            else None
        ),
        "statements": [
            {"file": _relative(e.path, base), "cell": e.cell, "line": e.line, "kind": e.kind, "text": e.text}
            for e in target.evidence
        ],
        "files_read": [
            _relative(path, base)
            for path, stamp in target.consulted
            # Folders (a `docker/` or docs folder, a root's `.git`) are watched for new files, not read.
            if not path.endswith(LISTING) and stamp is not None and not os.path.isdir(path)
        ],
    }


def as_text(target: Target, base: Path, requested_from: str | None) -> str:
    """A short human report: the decision first, then every statement found and every file read."""
    data = as_dict(target, base, requested_from)
    lines = []
    if target.assumed:
        lines.append(f"TensorFlow {data['tensorflow']} (assumed: no file of the project names TensorFlow)")
    elif target.tensorflow_from is not None and target.requested is None:
        source = target.tensorflow_from
        lines.append(f"TensorFlow {data['tensorflow']} (from {_at(source, base)}: {source.text})")
    elif target.requested is None:
        lines.append(f"TensorFlow {data['tensorflow']} ({target.provenance()})")
    else:
        pinned = f"; the project pins {data['pinned']}" if data["pinned"] else ""
        upgrade = ": findings are about upgrading" if target.upgrade else ""
        lines.append(f"TensorFlow {data['tensorflow']} (target-version from {requested_from}{pinned}{upgrade})")
    lines.append(f"Keras {target.keras} ({data['keras_reason']})")
    lines.append(
        f"tf-keras: {'declared in ' + data['tf_keras_declared'] if data['tf_keras_declared'] else 'not declared'}"
    )
    if target.older_from is not None:
        older = target.older_from
        lines.append(f"Older release stated farther up: {_at(older, base)}: {older.text} (renames must run on both)")
    if target.past_run is not None:
        run = target.past_run
        lines.append(f"Saved output: {_at(run, base)} shows {describe(run)} (a past run: renames it lacks are unsafe)")
    if data["statements"]:
        lines.append("Statements found:")
        lines += [f"  {_at(e, base)}: {e.text}" for e in target.evidence]
    lines.append("Files read:" if data["files_read"] else "Files read: none")
    lines += [f"  {path}" for path in data["files_read"]]
    return "\n".join(lines)
