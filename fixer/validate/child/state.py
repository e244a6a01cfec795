"""What the child's modules share: the run's settings, the dump it writes, the stop signal."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import FrameType

SETTINGS: dict[str, Any] = {}
DUMP: dict[str, Any] = {
    "status": "ok",
    "error": None,
    "steps": 0,
    "observed": 0,
    "stopped": False,
    "inputs": [],
    "variables": {},
    "history": [],
    "mirrored": 0,
    "divergence": None,
    "nonfinite": None,
    "values_checked": 0,
    "addresses": {},
    "feed": [],  # per batch drawn: [rows in the global batch, digest of its rows in any order]
    "gradients": [],  # per optimizer update: global norm of the all-reduced gradients
    "claimed": [],  # lines where the script read the claimed replica count (see claim.py)
    "topology": None,  # what ran: the first strategy's replicas in sync and local devices
    "devices": None,  # the devices the replicas were given: GPU, logical GPU, logical CPU or CPU
    "examples": [],  # a short digest of every example (row of a global batch) drawn, in order (see observe.py)
    # per distributed dataset: a short digest of each example of the data-only pass (see data_pass.py)
    "pass_examples": [],
    "fit_arrays": False,  # Keras fit was given arrays, not a tf.data dataset: Keras shuffles them per worker
    "writes": [],  # every checkpoint or model save: {"path", "what", "line"} (see writes.py)
}


class StopRun(BaseException):
    """Raised at the step after ``--max-steps``: the bootstrap reports the run as complete.

    A ``BaseException``, so the script's own ``except Exception`` handlers let it through.
    """


def load(path: str) -> None:
    """Read the settings the parent wrote for this run."""
    with open(path, encoding="utf-8") as handle:
        SETTINGS.update(json.load(handle))


def _package_dirs() -> tuple[str, ...]:
    dirs = []
    for name in ("tensorflow", "keras", "tf_keras"):
        spec = importlib.util.find_spec(name)
        for location in (spec.submodule_search_locations or []) if spec else []:
            dirs.append(os.path.join(location, ""))
    return tuple(dirs)


_LIBRARIES = _package_dirs()
_KERAS = tuple(d for d in _LIBRARIES if os.path.basename(os.path.dirname(d)) in ("keras", "tf_keras"))


def called_by_library(depth: int, keras_only: bool = False) -> bool:
    """Whether the frame ``depth`` levels above the caller is TensorFlow's or Keras' own code."""
    return sys._getframe(depth + 1).f_code.co_filename.startswith(_KERAS if keras_only else _LIBRARIES)


def keras_on_stack() -> bool:
    """Whether Keras (``fit``, ``evaluate``, ...) drives the current call."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.startswith(_KERAS):
            return True
        frame = frame.f_back
    return False


def compiled_with_xla() -> bool:
    """Whether the function being traced is compiled with XLA, where a ``numpy_function`` cannot run."""
    from tensorflow.python.framework import ops
    from tensorflow.python.ops import control_flow_util

    return bool(control_flow_util.GraphOrParentsInXlaContext(ops.get_default_graph()))
