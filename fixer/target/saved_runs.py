"""The TensorFlow a notebook's saved outputs show it last ran on: a past run, not a pin.

A notebook that installs nothing runs on whatever TensorFlow 2 its kernel has today, so a
recorded TF 2 run does not move the target (docs/target.md, "A notebook's saved output"). It is
still a release the project did run on: a rename to a name that release lacks breaks the notebook
there, so such a rename is offered as unsafe (Target.saved_run_lacks). Four signs are read:

- a printed 2.x, in a cell that prints TensorFlow's version (`print(tf.__version__)`): that release;
- a `tensorflow.python.keras.` repr (`<tensorflow.python.keras.callbacks.History at 0x...>`):
  TensorFlow 2.5 or older (TensorFlow 2.6.0's release notes: `tf.keras` is backed by the `keras`
  package from 2.6 on), unless the notebook imports that module itself (its stale copy stayed in
  later releases, and its own objects and deprecation warnings name it there);
- an `XLA_CPU` / `XLA_GPU` device in a listing (`device:XLA_CPU:0`, a TPU system's "Available
  Device" log): TensorFlow 2.3 or older (TensorFlow 2.4.0's release notes: "XLA:CPU and XLA:GPU
  devices are no longer registered by default"), unless the notebook turns them back on
  (`--tf_xla_enable_xla_devices`). A device under `/job:worker` is not the notebook's: on a Colab
  TPU it is the remote TPU host's, listed when the TPU system starts, whatever the client's release;
- TensorFlow's own warning that `tf.distribute.experimental.TPUStrategy` is deprecated, naming
  `tf.distribute.TPUStrategy` (its `__init__` logs it: benchmarks/probe_ledger18a_premises.py):
  TensorFlow 2.3 or newer, the releases with the stable name. It outranks the bounds above, which
  another process's output (the TPU host's devices) may have put in the same notebook.
"""

from __future__ import annotations

import re

from fixer.target.requirements import Range
from fixer.target.sources import Evidence, exactly

# A version expression of TensorFlow's in a cell (`tf.__version__`, `tensorflow.version.VERSION`),
# and of any module: a cell printing only TensorFlow's tells its output's version numbers apart.
TF_VERSION_EXPRESSION = re.compile(r"\b(?:tf|tensorflow)\s*\.\s*(?:__version__|version\s*\.\s*VERSION|VERSION)\b")
_ANY_VERSION_EXPRESSION = re.compile(r"\.\s*(?:__version__|VERSION|version_info)\b")
_PRINTED = re.compile(r"(?<![\w.])(?P<major>[12])\.(?P<minor>\d+)\.\d+(?:[-\w.]*)?(?![\w.])")
_LABELLED = re.compile(r"(?i)\b(?:tensor\s*flow|tf)\b[^\n\d]{0,40}" + _PRINTED.pattern)
_BUNDLED_KERAS = re.compile(r"\btensorflow\.python\.keras\.[\w.]+")
_BUNDLED_MODULE = "tensorflow.python.keras"
# The device's task prefix, when listed with one: `/job:worker/...` is another process's.
_XLA_DEVICE = re.compile(r"(?:/job:(?P<job>\w+)/replica:\d+/task:\d+/)?\bdevice:XLA_[CG]PU:\d+")
_REMOTE_JOBS = frozenset({"worker"})
_STABLE_TPU_WARNING = re.compile(
    r"`tf\.distribute\.experimental\.TPUStrategy` is deprecated, please use\s+the non experimental symbol"
    r" `tf\.distribute\.TPUStrategy`"
)
_STABLE_TPU_SINCE = (2, 3)
_XLA_DEVICES_ON = "tf_xla_enable_xla_devices"
SAVED_RUN = "saved-run"  # the kind of the evidence: a past run, never a pin


def output_text(cell: dict[str, object]) -> str:
    """The text a code cell's saved outputs show (streams and plain-text results)."""
    parts: list[str] = []
    outputs = cell.get("outputs")
    for output in outputs if isinstance(outputs, list) else []:
        if not isinstance(output, dict):
            continue
        text = output.get("text")
        data = output.get("data")
        if text is None and isinstance(data, dict):
            text = data.get("text/plain")
        if isinstance(text, list):
            text = "".join(part for part in text if isinstance(part, str))
        if isinstance(text, str):
            parts.append(text)
    return "\n".join(parts)


def printed_version(cell: dict[str, object], source: str) -> tuple[int, int] | None:
    """The TensorFlow version a cell's saved output shows, when the cell prints TensorFlow's
    version (`print(tf.__version__)`): the release the notebook last ran on. A number counts when
    the output labels it TensorFlow's, or when TensorFlow's is the only version the cell prints."""
    if not TF_VERSION_EXPRESSION.search(source):
        return None
    text = output_text(cell)
    match = _LABELLED.search(text)
    only_tensorflow = len(_ANY_VERSION_EXPRESSION.findall(source)) == len(TF_VERSION_EXPRESSION.findall(source))
    if match is None and only_tensorflow:
        match = _PRINTED.search(text)
    return (int(match.group("major")), int(match.group("minor"))) if match is not None else None


def oldest_release(run: Evidence) -> tuple[int, int]:
    """The oldest TensorFlow 2 release ``run`` admits (2.0 for a bound with no lower end)."""
    low = run.allowed.low
    return max((2, 0), (low[0], low[1] if len(low) > 1 else 0))


def saved_run(cells: list[tuple[int, str, dict[str, object]]], path: str) -> Evidence | None:
    """The TF 2 run a notebook's saved outputs show (``cells``: `code_cells` of its JSON), the most
    specific sign when there are several (a printed release over a bound); None without a sign.
    A printed 1.x is not a past run but the notebook's own statement (fixer/target/notebook.py)."""
    xla_reenabled = any(_XLA_DEVICES_ON in source for _, source, _ in cells)
    bundled_imported = any(_BUNDLED_MODULE in source for _, source, _ in cells)
    signs: list[Evidence] = []
    for number, source, saved in cells:
        version = printed_version(saved, source)
        if version is not None and version[0] == 2:
            signs.append(Evidence(SAVED_RUN, exactly(version), path, 1, f"TF {version[0]}.{version[1]}", cell=number))
            continue
        text = output_text(saved)
        if _STABLE_TPU_WARNING.search(text) is not None:
            since = Range()
            since.at_least(_STABLE_TPU_SINCE)
            signs.append(
                Evidence(
                    SAVED_RUN, since, path, 1, "a deprecation warning naming `tf.distribute.TPUStrategy`", cell=number
                )
            )
            continue
        if not bundled_imported and (bundled := _BUNDLED_KERAS.search(text)) is not None:
            signs.append(Evidence(SAVED_RUN, _before((2, 6)), path, 1, bundled.group(0), cell=number))
        elif not xla_reenabled and (device := _local_xla_device(text)) is not None:
            signs.append(Evidence(SAVED_RUN, _before((2, 4)), path, 1, device, cell=number))
    return max(signs, key=oldest_release, default=None)


def _local_xla_device(text: str) -> str | None:
    """The first XLA device listed in ``text`` that is the notebook's own process's
    (`device:XLA_CPU:0`, `/job:localhost/.../device:XLA_CPU:0`), as `device:XLA_CPU:0`."""
    for match in _XLA_DEVICE.finditer(text):
        if match.group("job") not in _REMOTE_JOBS:
            return match.group(0)[match.group(0).index("device:") :]
    return None


def _before(version: tuple[int, int]) -> Range:
    allowed = Range()
    allowed.below(version)
    return allowed


def describe(run: Evidence) -> str:
    """`TF 2.2` for a printed release, `TF 2.5 or older (tensorflow.python.keras.callbacks.History)`
    for an upper bound, `TF 2.3 or newer (a deprecation warning naming ...)` for a lower one, for
    messages."""
    if run.allowed.open_above:
        low = oldest_release(run)
        return f"TF {low[0]}.{low[1]} or newer ({run.text})"
    if run.allowed.low != (0,):
        return run.text
    high = run.allowed.high
    return f"TF {high[0]}.{high[1] - 1} or older (`{run.text}`)"
