"""``distfix validate --backend ray``: the same verdicts as local runs, on a real local Ray cluster.

One Ray cluster on loopback serves the module (Ray's start and TensorFlow's import are slow);
the clean-up test starts its own through the command line, as a user would.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from fixer.validate.runner import RunSpec
from fixer.validate.session import validate

ROOT = Path(__file__).resolve().parents[2]
HARDCODED_TF_CONFIG = ROOT / "corpus/cluster/tfd601_hardcoded_tf_config/before.py"
NOT_SHARDED = ROOT / "corpus/runtime/input_pipeline/not_sharded.py"
HANGS = """\
import json
import os
import time

import tensorflow as tf

if json.loads(os.environ["TF_CONFIG"])["task"]["index"] == 1:
    time.sleep(3600)  # a worker that never joins: its peer waits for it too
strategy = tf.distribute.MultiWorkerMirroredStrategy()
"""


@pytest.fixture(scope="module")
def ray_cluster():
    """A local Ray on 127.0.0.1 for the module; validations in this process join it."""
    from fixer.ray_session import ray_session

    with ray_session(None, num_cpus=4) as ray:
        yield ray


def _verdicts(report) -> dict[str, dict[str, str]]:
    return {name: {c.name: c.result for c in variant.checks} | {"status": variant.status} for name, variant in report.variants.items()}


@pytest.mark.tensorflow
@pytest.mark.ray
@pytest.mark.parametrize("case", [HARDCODED_TF_CONFIG, NOT_SHARDED], ids=["hardcoded-tf-config", "unsharded-input"])
def test_ray_backend_gives_the_local_verdicts(case: Path, tmp_path: Path, ray_cluster):
    script = tmp_path / "train.py"
    shutil.copy(case, script)
    spec = RunSpec(workers=2, device="cpu", max_steps=3, timeout=300)
    local = validate(script, spec)
    on_ray = validate(script, dataclasses.replace(spec, backend="ray"))
    assert _verdicts(on_ray) == _verdicts(local), on_ray.table() + "\n\n" + local.table()
    assert (local.variants["original"].status, local.variants["fixed"].status) == ("failed", "passed"), local.table()
    assert on_ray.verdict == "pass"
    local_json, ray_json = json.loads(local.json()), json.loads(on_ray.json())
    assert _shape(ray_json) == _shape(local_json)
    assert ray_cluster.nodes()[0]["NodeManagerAddress"] == "127.0.0.1"


@pytest.mark.tensorflow
@pytest.mark.ray
@pytest.mark.parametrize("project, script", [("trainer_package", None), ("symlinked_sibling", "scripts/train.py")])
def test_a_project_runs_on_ray_as_it_does_locally(project: str, script: str | None, ray_cluster):
    # The whole project travels (its package, its relative symlink), with [tool.distfix.validate]'s module and arguments.
    from fixer.validate.project import resolve_entry

    folder = ROOT / "corpus" / "projects" / project
    entry = resolve_entry(folder / script if script else None, start=folder)
    report = validate(entry.script, RunSpec(device="cpu", max_steps=2, timeout=300, entry=entry, backend="ray"), compare=False)
    assert report.variants["original"].checks[0].result == "pass", report.table()
    assert report.verdict == "pass", report.table()


def _shape(value):
    """The keys and value types of a JSON document, without the values."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(item) for item in value[:1]]
    return type(value).__name__


def _ours(marker: str) -> list[str]:
    """The command lines of live processes whose environment carries ``marker``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # gone, or not ours to read
            continue
        if marker.encode() in environ:
            found.append(f"{pid}: {command[:200]}")
    return found


def _children(marker: str) -> int:
    return sum("bootstrap.py" in command for command in _ours(marker))


@pytest.mark.tensorflow
@pytest.mark.ray
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_hang_is_killed_and_nothing_is_left_behind(tmp_path: Path):
    script = tmp_path / "hangs.py"
    script.write_text(HANGS)
    # Every process the run starts (Ray's, the actors', the bootstrap children) inherits TMPDIR.
    marker = tempfile.mkdtemp(prefix="dfr")  # short: Ray's socket paths live under it
    command = [sys.executable, "-m", "fixer", "validate", "--backend", "ray", "--workers", "2", "--device", "cpu"]
    command += ["--timeout", "30", "--no-compare", "--format", "json", str(script)]
    try:
        with subprocess.Popen(command, cwd=ROOT, env={**os.environ, "TMPDIR": marker}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as run:
            deadline = time.monotonic() + 300
            while _children(marker) < 2 and run.poll() is None and time.monotonic() < deadline:
                time.sleep(0.2)
            assert _children(marker) == 2, "the two workers' bootstrap children run, and carry the marker"
            stdout, stderr = run.communicate(timeout=600)
        assert run.returncode == 1, stdout + stderr
        runs = json.loads(stdout)["variants"]["original"]["checks"][0]
        assert (runs["name"], runs["result"]) == ("runs", "fail")
        assert "still running after 30 s (killed)" in runs["detail"]
        deadline = time.monotonic() + 120  # Ray's workers exit on their own once the raylet is gone
        while _ours(marker) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert _ours(marker) == []
        assert os.listdir(marker) == [], "Ray's session folder and the workers' folders are removed"
    finally:
        shutil.rmtree(marker, ignore_errors=True)


@pytest.mark.tensorflow
@pytest.mark.ray
@pytest.mark.skipif(shutil.which("nvidia-smi") is None, reason="no GPU on these machines: the GPU placement is untested here")
def test_workers_get_their_gpus(tmp_path: Path, ray_cluster):
    script = tmp_path / "train.py"
    shutil.copy(NOT_SHARDED, script)
    report = validate(script, RunSpec(workers=2, device="gpu", max_steps=3, timeout=300, backend="ray", gpus_per_worker=1))
    assert "(GPU)" in (report.variants["fixed"].ran or ""), report.table()
    assert report.verdict == "pass", report.table()


def test_address_and_gpus_need_the_ray_backend(tmp_path: Path, distfix):
    script = tmp_path / "train.py"
    script.write_text("print('never runs')\n")
    for option in (["--address", "auto"], ["--gpus-per-worker", "1"]):
        result = distfix("validate", *option, str(script))
        assert result.returncode == 2, result.stderr
        assert "need --backend ray" in result.stderr


def test_a_missing_ray_is_one_line_saying_what_to_install(tmp_path: Path):
    script = tmp_path / "train.py"
    script.write_text("print('never runs')\n")
    code = (
        "import sys\n"
        "sys.modules['ray'] = None  # what Python does when ray is not installed: ImportError\n"
        "from fixer.cli import app\n"
        f"app(['validate', '--backend', 'ray', {str(script)!r}])\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip() == "distfix: cannot validate: Ray is not installed: install 'distfix[ray]'"


def test_an_unreachable_cluster_is_reported_at_once(tmp_path: Path, distfix):
    from fixer.doctor.probe import free_ports

    script = tmp_path / "train.py"
    script.write_text("print('never runs')\n")
    address = f"127.0.0.1:{free_ports(1)[0]}"  # nothing listens there: Ray alone would retry for minutes
    result = distfix("validate", "--backend", "ray", "--address", address, str(script), timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip() == f"distfix: cannot validate: cannot join the Ray cluster at '{address}': Connection refused"
