"""Environment fingerprints of workers, and the mismatches that break collectives."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from fixer.doctor.report import Problem

CHILD = Path(__file__).with_name("fingerprint_child.py")


class FingerprintError(Exception):
    """The fingerprint could not be taken or read; one line for the user."""


def take_fingerprint(timeout: float = 120.0) -> dict[str, Any]:
    """This machine's fingerprint, from a child process (TensorFlow is imported only there)."""
    try:
        out = subprocess.run([sys.executable, str(CHILD)], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise FingerprintError(f"importing TensorFlow took longer than {timeout:.0f} s") from None
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode != 0 or not lines:
        reason = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise FingerprintError(f"the fingerprint process failed: {reason}")
    fingerprint: dict[str, Any] = json.loads(lines[-1])
    return fingerprint


def load_fingerprint(path: Path) -> dict[str, Any]:
    """Read a fingerprint file written by ``distfix doctor --fingerprint -o FILE``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise FingerprintError(f"{path}: not a fingerprint file ({exc})") from None
    if not isinstance(data, dict) or "python" not in data:
        raise FingerprintError(f"{path}: not a fingerprint file (no `python` key)")
    return data


def _minor(version: str | None) -> str | None:
    return ".".join(version.split(".")[:2]) if version else version


# (key, severity, normaliser, why a mismatch matters and what to do)
_FIELDS = (
    (
        "tensorflow",
        "error",
        lambda v: v,
        "collective ops and their wire format differ between versions; install one TensorFlow version everywhere",
    ),
    (
        "python",
        "error",
        _minor,
        "TensorFlow wheels and pickled state differ between Python minor versions; use one Python minor version",
    ),
    (
        "cuda",
        "error",
        lambda v: v,
        "TensorFlow builds for different CUDA versions do not mix in one NCCL all-reduce; "
        "install the same TensorFlow build",
    ),
    (
        "cudnn",
        "error",
        lambda v: v,
        "kernels differ between cuDNN versions, so replicas drift apart; install the same TensorFlow build",
    ),
    (
        "keras",
        "error",
        lambda v: (v or "").split(".")[0] or None,
        "Keras 2 (tf-keras) and Keras 3 distribute differently; set TF_USE_LEGACY_KERAS the same way everywhere",
    ),
    (
        "nccl",
        "warning",
        lambda v: v,
        "a worker without NCCL makes the GPU all-reduce fall back or fail; install nvidia-nccl on every GPU worker",
    ),
    (
        "gpus",
        "warning",
        lambda v: len(v or []),
        "a different number of GPUs gives a different number of replicas per worker",
    ),
    ("platform", "warning", lambda v: v, "different operating systems or architectures can behave differently"),
    ("hostname", "info", lambda v: v, "two fingerprints with the same hostname may be the same machine twice"),
)


def _shown(key: str, value: Any) -> object:
    return f"{len(value or [])} GPU(s)" if key == "gpus" else value


def compare(fingerprints: dict[str, dict[str, Any]]) -> list[Problem]:
    """Every field whose value differs between workers, with its severity and why it matters."""
    problems: list[Problem] = []
    names = list(fingerprints)
    for name in names:
        if fingerprints[name].get("error"):
            problems.append(Problem("error", "fingerprint", f"{name}: {fingerprints[name]['error']}"))
    for key, severity, normalise, why in _FIELDS:
        values = {name: normalise(fingerprints[name].get(key)) for name in names}
        if key == "hostname":
            duplicates = {v for v in values.values() if list(values.values()).count(v) > 1}
            if duplicates:
                problems.append(
                    Problem(
                        "info",
                        "fingerprint",
                        f"hostname {sorted(duplicates, key=str)[0]!r} appears more than once: {why}",
                    )
                )
            continue
        if len(set(map(str, values.values()))) > 1:
            detail = ", ".join(f"{name}: {_shown(key, fingerprints[name].get(key))}" for name in names)
            problems.append(Problem(severity, "fingerprint", f"{key} differs ({detail}): {why}"))
    return problems
