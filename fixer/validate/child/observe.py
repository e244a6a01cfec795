"""What the checks need, observed while the script runs.

- Every distributed variable, wherever the script creates it (``MirroredExtended`` creates them
  for MirroredStrategy and MultiWorkerMirroredStrategy), under TensorFlow's name for it, or the
  script's (``w = tf.Variable(...)``) when it has none: after each step its copies are compared
  (first divergence recorded) and checked for NaN/Inf, and a fingerprint of its value is kept per
  step and at the end.
- What each step returns (losses, ``strategy.reduce`` results, Keras logs) is checked for NaN/Inf.
- A digest of every batch the script draws from a distributed dataset, eagerly or inside a
  ``tf.function`` (a ``numpy_function`` that runs with it)."""

from __future__ import annotations

import hashlib
import linecache
import re
import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from .state import DUMP, SETTINGS, compiled_with_xla

if TYPE_CHECKING:
    from types import FrameType

MAX_VARIABLES = 2000
MAX_HISTORY = 50
MAX_EXAMPLES = 20000  # example digests kept per worker (16 hex digits each)
_VARIABLES: list[tuple[str, object, bool]] = []  # (key, distributed variable, synchronized on read)
_DEFAULT_NAME = re.compile(r"Variable(_\d+)?")
_ASSIGNMENT = re.compile(r"\s*([A-Za-z_][\w.]*)\s*=(?!=)")


def track_variables() -> None:
    """Record every distributed variable the strategies create."""
    from tensorflow.python.distribute import mirrored_strategy, values
    from tensorflow.python.ops import variables

    original = mirrored_strategy.MirroredExtended._create_variable

    def create(self: Any, next_creator: Any, **kwargs: Any) -> Any:
        variable = original(self, next_creator, **kwargs)
        if isinstance(variable, values.DistributedVariable) and len(_VARIABLES) < MAX_VARIABLES:
            on_read = variable.synchronization == variables.VariableSynchronization.ON_READ
            _VARIABLES.append((_key(variable.name), variable, on_read))
        return variable

    mirrored_strategy.MirroredExtended._create_variable = create


def track_strategies() -> None:
    """Record what ran (device kind, replicas in sync) when the script creates its first strategy."""
    from tensorflow.python.distribute import distribute_lib

    original = distribute_lib.StrategyBase.__init__

    def init(self: Any, extended: Any) -> None:
        original(self, extended)
        try:
            record_strategy(self)
        except (RuntimeError, NotImplementedError, AttributeError):  # the default strategy has no worker devices
            return

    distribute_lib.StrategyBase.__init__ = init


def _assigned_name() -> str | None:
    """The name the script assigns the variable being created to (``w = tf.Variable(...)``)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename != SETTINGS["script"]:
        frame = frame.f_back
    if frame is None:
        return None
    match = _ASSIGNMENT.match(linecache.getline(SETTINGS["script"], frame.f_lineno))
    return match.group(1) if match else None


def _key(name: str) -> str:
    base = name.rsplit(":", 1)[0]
    if _DEFAULT_NAME.fullmatch(base.rsplit("/", 1)[-1]):  # unnamed: call it what the script does
        base = _assigned_name() or base
    same = sum(1 for key, _, _ in _VARIABLES if key == base or key.startswith(base + "#"))
    return f"{base}#{same + 1}" if same else base


def fingerprint(array: np.ndarray) -> list[float]:
    """Small values whole; a large one as mean, mean |x|, RMS, min, max, first and last."""
    flat = array.ravel()
    if flat.size <= 16:
        return flat.tolist()
    return [
        float(v)
        for v in (
            flat.mean(),
            np.abs(flat).mean(),
            np.sqrt((flat**2).mean()),
            flat.min(),
            flat.max(),
            flat[0],
            flat[-1],
        )
    ]


def _copies(variable: Any) -> list[np.ndarray] | None:
    try:
        return [np.asarray(component.numpy(), dtype=np.float64) for component in variable.values]
    except Exception:  # not numeric, or not initialized yet: nothing to compare
        return None


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    tolerance = SETTINGS["tolerance"] * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= tolerance))


def _inspect(step: str) -> dict[str, list[np.ndarray]]:
    """Check every variable's copies after ``step``; returns the copies of the mirrored ones."""
    mirrored = {}
    for key, variable, on_read in _VARIABLES:
        copies = _copies(variable)
        if copies is None:
            continue
        DUMP["values_checked"] += 1
        if DUMP["nonfinite"] is None and not all(np.isfinite(c).all() for c in copies):
            DUMP["nonfinite"] = {"step": step, "what": f"`{key}`"}
        if on_read:
            continue  # each replica keeps its own copy of a variable synchronized on read
        if DUMP["divergence"] is None and not all(_close(copies[0], other) for other in copies[1:]):
            DUMP["divergence"] = {
                "step": step,
                "name": key,
                "size": int(copies[0].size),
                "copies": [fingerprint(c) for c in copies],
            }
        mirrored[key] = copies
    return mirrored


def _check_returned(value: Any, step: str) -> None:
    import tensorflow as tf

    for leaf in tf.nest.flatten(value, expand_composites=True):
        try:
            array = np.asarray(leaf)
        except Exception:  # a resource handle or another non-numeric value
            continue
        if array.dtype.kind not in "fc":
            continue
        DUMP["values_checked"] += 1
        if DUMP["nonfinite"] is None and not np.isfinite(array).all():
            DUMP["nonfinite"] = {"step": step, "what": "the value the step returned"}


def after_step(returned: Any = None) -> None:
    """Observe the variables, and what the step returned, after one step."""
    DUMP["observed"] += 1
    step = str(DUMP["observed"])
    _check_returned(returned, step)
    mirrored = _inspect(step)
    if len(DUMP["history"]) < MAX_HISTORY:
        DUMP["history"].append({key: fingerprint(copies[0]) for key, copies in mirrored.items()})


def finish() -> None:
    """The variables at the end of the run."""
    for key, copies in _inspect("end").items():
        DUMP["variables"][key] = {"size": int(copies[0].size), "values": fingerprint(copies[0])}
        DUMP["mirrored"] += len(copies) > 1


def _digest(arrays: Any) -> str:
    parts = []
    for array in arrays:
        array = np.asarray(array)
        parts.append(b"\0".join(array.ravel().tolist()) if array.dtype == object else array.tobytes())
    return hashlib.sha1(b"|".join(parts)).hexdigest()


def row_digests(locals_: list[list[np.ndarray]]) -> list[str] | None:
    """A digest of each example (row) of the global batch (every replica's part).

    None without a common batch dimension.
    """
    leaves = [
        np.concatenate([np.asarray(part[i]) for part in locals_]) if np.ndim(locals_[0][i]) else None
        for i in range(len(locals_[0]))
    ]
    sizes = {len(leaf) for leaf in leaves if leaf is not None}
    if len(sizes) != 1:
        return None
    return [_digest([leaf[r] for leaf in leaves if leaf is not None]) for r in range(sizes.pop())]


def _global_rows(row_digests: list[str] | None, locals_: list[list[np.ndarray]]) -> tuple[int, str]:
    """The global batch as [rows, digest of its rows in any order].

    The N-replica run sees a global batch as N parts, the 1-replica reference as one; the
    digest of the sorted row digests is the same for both when they hold the same examples.
    """
    if row_digests is None:  # no common batch dimension: the whole structure, in order
        return 0, _digest([a for part in locals_ for a in part])
    return len(row_digests), hashlib.sha1("".join(sorted(row_digests)).encode()).hexdigest()


def _record(locals_: list[list[np.ndarray]]) -> None:
    DUMP["inputs"].append(_digest([a for part in locals_ for a in part]))
    if not (locals_ and locals_[0]):
        return
    rows = row_digests(locals_)
    if rows is not None and len(DUMP["examples"]) < MAX_EXAMPLES:
        DUMP["examples"].extend(r[:16] for r in rows[: MAX_EXAMPLES - len(DUMP["examples"])])
    if len(DUMP["feed"]) < MAX_HISTORY:
        DUMP["feed"].append(list(_global_rows(rows, locals_)))


def _local_parts(strategy: Any, element: Any) -> list[list[Any]]:
    import tensorflow as tf

    return [tf.nest.flatten(local, expand_composites=True) for local in strategy.experimental_local_results(element)]


def record_batch(strategy: Any, element: Any) -> None:
    """Record a batch drawn eagerly: its digest (inputs-distinct) and its global rows (the feed)."""
    _record([[np.asarray(t) for t in part] for part in _local_parts(strategy, element)])


def record_batch_in_graph(strategy: Any, element: Any) -> None:
    """Record a batch drawn inside a ``tf.function``, each time the function runs."""
    import tensorflow as tf

    if compiled_with_xla():  # a numpy_function cannot run in an XLA cluster: the batch is not recorded
        return
    parts = _local_parts(strategy, element)
    width = len(parts[0]) if parts else 0

    def record(*arrays: Any) -> None:
        _record([list(arrays[i : i + width]) for i in range(0, len(arrays), width)] if width else [])

    tf.numpy_function(record, [t for part in parts for t in part], Tout=[], stateful=True)


def record_strategy(strategy: Any) -> None:
    """What ran: the replicas in sync and the local devices of the first strategy the script makes."""
    if DUMP["topology"] is None:
        devices = list(strategy.extended.worker_devices)
        DUMP["topology"] = {"in_sync": int(strategy.extended._num_replicas_in_sync), "local": len(devices)}
