"""Regression tests for issue 28 (prec35), in our own words, each with its control.

- A notebook's saved output shows the release it last ran on (a printed 2.x, a
  `tensorflow.python.keras` repr: TF <= 2.5, an `XLA_CPU` device: TF <= 2.3). That is a past run,
  not a pin: the TFD401 finding stays, but a rename to a name that release lacks is unsafe, in the
  notebook and in the scripts of its folder, and the message says why.
- TFD303: a per-replica mean loss that the step also returns to a reader other than a
  `strategy.reduce` (an accumulated epoch loss) is advice: dividing it where it is computed would
  shrink that reading too.
"""

from __future__ import annotations

import json
import textwrap
from typing import TYPE_CHECKING

import pytest

from fixer.config import Config
from fixer.engine import check_source
from fixer.notebook import analyse_notebook
from fixer.target.model import target_for
from fixer.types import Applicability

if TYPE_CHECKING:
    from pathlib import Path

    from fixer.types import Finding

_TPU_CELL = (
    "import tensorflow as tf\n"
    "resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu='pod')\n"
    "strategy = tf.distribute.experimental.TPUStrategy(resolver)\n"
)


def _cell(source: str, shown: str = "", count: int = 1) -> dict[str, object]:
    outputs = [{"output_type": "stream", "name": "stdout", "text": [shown]}] if shown else []
    return {"cell_type": "code", "metadata": {}, "execution_count": count, "source": source, "outputs": outputs}


def _notebook(path: Path, *cells: dict[str, object]) -> str:
    text = json.dumps({"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    path.write_text(text)
    return text


def _tfd401(path: Path, text: str) -> list[Finding]:
    result = analyse_notebook(str(path), text, Config(), fix=False, unsafe=False)
    return [f for f in result.findings if f.code == "TFD401"]


def _applicability(finding: Finding) -> Applicability | None:
    return finding.fix.applicability if finding.fix is not None else None


# -- a notebook's saved output: the renames its recorded release lacks are unsafe -----------------

_SHOWN = {
    "printed 2.2": (_cell("print(tf.__version__)", "2.2.0\n"), "TF 2.2"),
    "bundled Keras repr": (
        _cell("model.fit(x, y)", "<tensorflow.python.keras.callbacks.History at 0x7f00>"),
        "TF 2.5 or older",
    ),
    "XLA_CPU device": (
        _cell("tf.config.list_logical_devices()", "LogicalDevice(name='/job:localhost/task:0/device:XLA_CPU:0')"),
        "TF 2.3 or older",
    ),
}


@pytest.mark.parametrize("sign", sorted(_SHOWN))
def test_rename_missing_on_the_recorded_release_is_unsafe(tmp_path: Path, sign: str) -> None:
    (tmp_path / ".git").mkdir()
    shown, said = _SHOWN[sign]
    path = tmp_path / "train.ipynb"
    findings = _tfd401(path, _notebook(path, shown, _cell(_TPU_CELL, count=2)))
    assert len(findings) == 1  # the finding stays: true on the TensorFlow a rerun gets today
    assert _applicability(findings[0]) is Applicability.UNSAFE
    assert f"saved output shows {said}" in findings[0].message
    # A printed release lacks the name; a bound (`TF 2.3 or older`) only may (2.3 has it).
    lacking = "which has no" if sign == "printed 2.2" else "which may not have"
    assert f"{lacking} `tf.distribute.TPUStrategy`" in findings[0].message


def test_rename_the_recorded_release_has_stays_safe(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    path = tmp_path / "train.ipynb"
    text = _notebook(path, _cell("print(tf.__version__)", "2.3.1\n"), _cell(_TPU_CELL, count=2))
    (finding,) = _tfd401(path, text)
    assert _applicability(finding) is Applicability.SAFE
    assert "saved output" not in finding.message


def test_a_notebook_without_a_recorded_release_keeps_the_safe_rename(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    path = tmp_path / "train.ipynb"
    fitted = _cell("model.fit(x, y)", "<keras.src.callbacks.history.History>")
    (finding,) = _tfd401(path, _notebook(path, fitted, _cell(_TPU_CELL)))
    assert _applicability(finding) is Applicability.SAFE


def test_xla_devices_turned_back_on_say_nothing(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    path = tmp_path / "train.ipynb"
    enable = "import os\nos.environ['TF_XLA_FLAGS'] = '--tf_xla_enable_xla_devices'\n"
    listing = _cell("tf.config.list_logical_devices()", "device:XLA_CPU:0")
    (finding,) = _tfd401(path, _notebook(path, _cell(enable), listing, _cell(_TPU_CELL, count=3)))
    assert _applicability(finding) is Applicability.SAFE


def test_a_stated_release_decides_over_an_older_recorded_run(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("tensorflow==2.6.0\n")
    path = tmp_path / "train.ipynb"
    (finding,) = _tfd401(path, _notebook(path, _cell("print(tf.__version__)", "2.2.0\n"), _cell(_TPU_CELL)))
    assert _applicability(finding) is Applicability.SAFE


_SCRIPT = """\
import tensorflow as tf

strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
"""


def test_a_script_beside_a_notebook_that_recorded_an_old_run(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    script = tmp_path / "train_cluster.py"
    script.write_text(_SCRIPT)
    (finding,) = [f for f in check_source(str(script), _SCRIPT).findings if f.code == "TFD401"]
    assert _applicability(finding) is Applicability.SAFE  # control: no notebook yet
    _notebook(tmp_path / "local.ipynb", _cell("model.fit(x, y)", "<tensorflow.python.keras.callbacks.History at 0x1>"))
    (finding,) = [f for f in check_source(str(script), _SCRIPT).findings if f.code == "TFD401"]
    assert _applicability(finding) is Applicability.UNSAFE
    assert "local.ipynb's saved output shows TF 2.5 or older" in finding.message


def test_the_target_reports_the_recorded_run_only_where_no_release_is_stated(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _notebook(tmp_path / "nb.ipynb", _cell("print(tf.__version__)", "2.1.0\n"))
    assert target_for(tmp_path / "nb.ipynb").past_run is not None
    (tmp_path / "requirements.txt").write_text("tensorflow==2.8\n")
    assert target_for(tmp_path / "nb.ipynb").past_run is None


# -- TFD303: a returned loss the caller reads keeps its meaning ------------------------------------

_STEP = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    w = tf.Variable(1.0)
    optimizer = tf.keras.optimizers.SGD(0.1)
    total = tf.Variable(0.0)


def mean_loss(x):
    return tf.reduce_mean(x * w)


def step(x):
    with tf.GradientTape() as tape:
        loss = mean_loss(x)
    grads = tape.gradient(loss, [w])
    optimizer.apply_gradients(zip(grads, [w]))
    return loss


@tf.function
def train(x):
    loss = strategy.run(step, args=(x,))
    {reading}
"""


def test_tfd303_declines_the_edit_when_the_returned_loss_is_accumulated() -> None:
    reading = "strategy.run(lambda acc, v: acc.assign_add(v), args=(total, loss))"
    source = textwrap.dedent(_STEP).replace("{reading}", reading)
    (finding,) = [f for f in check_source("train.py", source).findings if f.code == "TFD303"]
    assert finding.fix is None
    assert "it is also returned to `strategy.run`: divide only the gradient's loss" in finding.message


def test_tfd303_keeps_the_edit_when_the_returned_loss_is_only_reduced() -> None:
    reading = "return strategy.reduce(tf.distribute.ReduceOp.SUM, loss, axis=None)"
    source = textwrap.dedent(_STEP).replace("{reading}", reading)
    (finding,) = [f for f in check_source("train.py", source).findings if f.code == "TFD303"]
    assert finding.fix is not None and finding.fix.applicability is Applicability.UNSAFE


def test_tfd303_keeps_the_edit_when_the_name_is_rebound_by_the_reduce_and_printed() -> None:
    reading = "loss = strategy.reduce(tf.distribute.ReduceOp.MEAN, loss, axis=None)\n    tf.print(loss)"
    source = textwrap.dedent(_STEP).replace("{reading}", reading)
    (finding,) = [f for f in check_source("train.py", source).findings if f.code == "TFD303"]
    assert finding.fix is not None  # the print reads the reduced value, which the fix keeps right (SUM)


def test_a_bundled_keras_repr_says_nothing_where_the_notebook_imports_that_module(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    path = tmp_path / "train.ipynb"
    warning = "WARNING: fit_generator (from tensorflow.python.keras.engine.training) is deprecated"
    imports = _cell("from tensorflow.python.keras import backend\nmodel.fit_generator(batches)", warning)
    (finding,) = _tfd401(path, _notebook(path, imports, _cell(_TPU_CELL, count=2)))
    assert _applicability(finding) is Applicability.SAFE  # its stale copy is importable on TF 2.6+ too
