"""``distfix validate`` with real TensorFlow on logical CPU devices and local workers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from fixer.validate.runner import RunSpec
from fixer.validate.session import CannotValidate, validate

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
RUNTIME_CASES = [
    case
    for case in sorted(p.parent for p in CORPUS.glob("*/*/case.toml"))
    if "runtime" in tomllib.loads((case / "case.toml").read_text())
]


@pytest.mark.tensorflow
@pytest.mark.parametrize("case", RUNTIME_CASES, ids=lambda p: p.name)
def test_original_fails_and_fixed_passes(case: Path):
    runtime = tomllib.loads((case / "case.toml").read_text())["runtime"]
    workers = runtime.get("workers", 1)
    spec = RunSpec(replicas=2, workers=workers, device="cpu", max_steps=10, timeout=300)
    report = validate(case / "before.py", spec)
    check = runtime["failing_check"]
    original = {c.name: c for c in report.variants["original"].checks}
    fixed = {c.name: c for c in report.variants["fixed"].checks}
    assert original[check].result == "fail", original[check]
    assert fixed[check].result == "pass", fixed[check]
    if check == "runs":  # the crash is one a rule explains: the report names it
        named = [line.split(" ", 1)[0] for line in report.variants["original"].diagnoses]
        assert set(named) & set(tomllib.loads((case / "case.toml").read_text())["codes"]), report.table()
    assert report.variants["fixed"].status == "passed", report.table()
    assert report.verdict == "pass"


SMALL = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    w = tf.Variable([1.0, 2.0])
print("replicas", strategy.num_replicas_in_sync)
"""


@pytest.mark.tensorflow
def test_no_compare_json_schema(tmp_path: Path, distfix):
    script = tmp_path / "small.py"
    script.write_text(SMALL)
    result = distfix("validate", "--no-compare", "--device", "cpu", "--replicas", "3", "--format", "json", str(script), timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert set(data) >= {"script", "replicas", "workers", "device", "variants", "verdict"}
    assert list(data["variants"]) == ["original"] and data["replicas"] == 3
    checks = {c["name"]: c for c in data["variants"]["original"]["checks"]}
    assert checks["runs"]["result"] == "pass"
    assert checks["replicas-consistent"]["result"] == "pass"
    assert set(checks) == {"runs", "replicas-consistent", "workers-consistent", "inputs-distinct", "replica-count-invariant", "finite", "writes-distinct"}


@pytest.mark.tensorflow
def test_synthetic_data_replaces_downloads(tmp_path: Path):
    script = tmp_path / "mnist.py"
    script.write_text(
        "import tensorflow as tf\n"
        "(x, y), (xt, yt) = tf.keras.datasets.mnist.load_data()\n"
        "assert x.shape == (60000, 28, 28) and x.dtype.name == 'uint8' and yt.shape == (10000,)\n"
    )
    report = validate(script, RunSpec(replicas=2, device="cpu", synthetic_data=True), compare=False)
    assert report.variants["original"].checks[0].result == "pass", report.table()


@pytest.mark.tensorflow
def test_a_failed_download_means_network_data(tmp_path: Path):
    script = tmp_path / "download.py"
    script.write_text(
        "import urllib.error\nimport tensorflow as tf\n"
        "raise urllib.error.URLError('Name or service not known (simulated download failure)')\n"
    )
    with pytest.raises(CannotValidate, match="needs network data"):
        validate(script, RunSpec(replicas=2, device="cpu"), compare=False)


def test_missing_and_unparsable_scripts_cannot_be_validated(tmp_path: Path, distfix):
    missing = distfix("validate", str(tmp_path / "nope.py"))
    assert missing.returncode == 2 and "cannot validate" in missing.stderr and "no such file" in missing.stderr
    broken = tmp_path / "broken.py"
    broken.write_text("import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy(\n")
    result = distfix("validate", str(broken))
    assert result.returncode == 2 and "syntax error" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.tensorflow
def test_exception_line_is_reported(tmp_path: Path):
    script = tmp_path / "boom.py"
    script.write_text("import tensorflow as tf\n\nx = 1\nraise ValueError('boom in the script')\n")
    report = validate(script, RunSpec(replicas=2, device="cpu"), compare=False)
    runs = report.variants["original"].checks[0]
    assert runs.result == "fail" and runs.detail == "ValueError: boom in the script (line 4)"


@pytest.mark.tensorflow
def test_gpu_path():
    import subprocess

    probe = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True) if Path("/usr/bin/nvidia-smi").exists() else None
    if probe is None or probe.returncode != 0:
        pytest.skip("no GPU on this machine: replicas on real GPUs (or one GPU split into logical GPUs) run only where TensorFlow sees a GPU")
    gpus = sum(1 for line in probe.stdout.splitlines() if line.startswith("GPU "))
    report = validate(CORPUS / "reduction" / "tfd301_manual_update" / "before.py", RunSpec(replicas=2, device="gpu"))
    assert report.verdict == "pass", report.table()
    kind = "GPU" if gpus >= 2 else "logical GPU"
    assert report.header().startswith(f"2 replica(s) on 2 {kind} device(s), 1 worker"), report.header()


FIT = """\
import numpy as np
import tensorflow as tf


class Count(tf.keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.batches = 0

    def on_train_batch_end(self, batch, logs=None):
        self.batches += 1


strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
counter = Count()
x = np.ones((4096, 4), "float32")
model.fit(x, x[:, :1], batch_size=8, epochs=50, callbacks=[counter], verbose=0)
assert counter.batches == 3, counter.batches
"""


@pytest.mark.tensorflow
def test_keras_fit_stops_after_max_steps(tmp_path: Path):
    script = tmp_path / "fit.py"
    script.write_text(FIT)
    report = validate(script, RunSpec(replicas=2, device="cpu", max_steps=3), compare=False)
    runs = report.variants["original"].checks[0]
    assert runs.result == "pass", report.table()
    assert runs.detail == "1 process(es) stopped cleanly after 3 step(s), 3 batch(es) (--max-steps)"


def test_script_folder_copy_skips_its_own_temp_dir_and_huge_folders(tmp_path: Path, monkeypatch):
    from fixer.validate import runner

    source = tmp_path / "project"
    (source / "data").mkdir(parents=True)
    (source / "data" / "rows.csv").write_text("1,2\n")
    (source / ".git").mkdir()
    temp = source / "inside-temp"
    temp.mkdir()
    (temp / "x").write_text("")
    runner.copy_script_folder(source, tmp_path / "copy", {temp})
    assert (tmp_path / "copy" / "data" / "rows.csv").read_text() == "1,2\n"
    assert not (tmp_path / "copy" / ".git").exists() and not (tmp_path / "copy" / "inside-temp").exists()
    monkeypatch.setattr(runner, "MAX_COPY_FILES", 0)
    runner.copy_script_folder(source, tmp_path / "small", {temp})
    assert list((tmp_path / "small").iterdir()) == []


SHORT_FIT = """\
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf


class Started(tf.keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.batches = 0

    def on_train_batch_begin(self, batch, logs=None):
        self.batches += 1


strategy = tf.distribute.MirroredStrategy()
x = np.random.default_rng(0).normal(size=(16, 2)).astype("float32")
dataset = tf.data.Dataset.from_tensor_slices((x, x.sum(axis=1, keepdims=True))).batch(8)
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
started = Started()
model.fit(dataset, epochs=1, callbacks=[started], verbose=0)
assert started.batches == 2, started.batches
assert {int(copy) for copy in model.optimizer.iterations.values} == {2}, model.optimizer.iterations.values
"""


@pytest.mark.tensorflow
def test_tf_keras_fit_on_fewer_batches_than_max_steps_passes(tmp_path: Path):
    # Stopping fit after --max-steps must not make it run past the end of its data: tf-keras then
    # starts one more step, which leaves the optimizer's `iteration` different between replicas.
    script = tmp_path / "short_fit.py"
    script.write_text(SHORT_FIT)
    report = validate(script, RunSpec(replicas=2, device="cpu", max_steps=3))
    checks = {c.name: c for c in report.variants["original"].checks}
    assert checks["runs"].result == "pass", report.table()
    assert checks["runs"].detail == "1 process(es) finished after 2 step(s), 2 batch(es)"
    assert checks["replicas-consistent"].result == "pass", checks["replicas-consistent"]
    assert checks["replica-count-invariant"].result == "pass", checks["replica-count-invariant"]
    assert report.verdict == "pass", report.table()
