"""``migrate --validate`` with real TensorFlow runs: the local backend, the Ray backend on a local Ray
cluster, and a Ray worker killed mid-validation (retried once, then reported as an error).

Each repository holds a corpus script whose fix makes it pass and a script that cannot run here
(skipped with its reason): two TensorFlow validations in all, kept short with --max-steps 3.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from child_processes import wait_until
from repos import make_repo

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"
NEEDS_TPU = (
    "import tensorflow as tf\n\n"
    "resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu='')\n"
    "strategy = tf.distribute.experimental.TPUStrategy(resolver)\n"
)


def _verdicts(data: dict) -> dict[str, dict]:
    return {Path(f["path"]).name: f["validation"] for f in data["files"]}


def _assert_fixed_passes_and_tpu_script_is_skipped(verdicts: dict[str, dict]) -> None:
    train = verdicts["train.py"]
    assert train["status"] == "passed", train
    assert train["original"] == "failed", "the broken script fails as written"
    assert train["failed_checks"] == [] and train["reason"] is None
    tpu = verdicts["tpu_train.py"]
    assert tpu["status"] == "skipped"
    assert tpu["reason"] == "needs a TPU (`TPUClusterResolver`), which this run does not have"


def _migrate_validated(tmp_path: Path, distfix, case: str, *flags: str) -> tuple[subprocess.CompletedProcess, dict]:
    """``migrate --validate`` of a repository with the corpus case ``case`` as train.py and a
    TPU script: the command's result and its JSON report."""
    broken = (CORPUS / case / "before.py").read_text()
    repo = make_repo(tmp_path / "repo", {"train.py": broken, "tpu_train.py": NEEDS_TPU})
    report = tmp_path / "report.json"
    result = distfix(
        "migrate", str(repo), "--unsafe-fixes", "--validate", "--max-steps", "3", "--report", str(report), *flags, timeout=900
    )
    return result, json.loads(report.read_text()) if report.exists() else {}


@pytest.mark.tensorflow
def test_migrate_validate_local_backend(tmp_path, distfix):
    result, data = _migrate_validated(tmp_path, distfix, "placement/tfd101_model_outside_scope", "--write")
    assert result.returncode == 0, result.stdout + result.stderr
    verdicts = _verdicts(data)
    _assert_fixed_passes_and_tpu_script_is_skipped(verdicts)
    assert "logical CPU" in verdicts["train.py"]["ran"]
    assert data["validation"]["backend"] == "local"
    assert data["validation"]["totals"] == {"passed": 1, "failed": 0, "inconclusive": 0, "error": 0, "skipped": 1}


PROJECT_PREAMBLE = (
    "import argparse\n\n"
    "from trainer import settings\n\n"
    "parser = argparse.ArgumentParser()\n"
    "parser.add_argument('--epochs', type=int, required=True)\n"
    "assert parser.parse_args().epochs == settings.EPOCHS\n"
)


@pytest.mark.tensorflow
def test_migrate_validate_runs_a_package_module_with_its_configured_arguments(tmp_path, distfix):
    # trainer/task.py imports its own package and needs its arguments: [tool.distfix.validate] gives both.
    broken = (CORPUS / "placement/tfd101_model_outside_scope/before.py").read_text()
    repo = make_repo(
        tmp_path / "repo",
        {
            "pyproject.toml": '[tool.distfix.validate]\nmodule = "trainer.task"\nargs = ["--epochs", "2"]\n',
            "trainer/__init__.py": "",
            "trainer/settings.py": "EPOCHS = 2\n",
            "trainer/task.py": PROJECT_PREAMBLE + broken,
        },
    )
    report = tmp_path / "report.json"
    result = distfix(
        "migrate", str(repo), "--unsafe-fixes", "--validate", "--max-steps", "3", "--report", str(report), "--write", timeout=900
    )
    task = _verdicts(json.loads(report.read_text()))["task.py"]
    assert result.returncode == 0, task
    assert (task["status"], task["original"]) == ("passed", "failed"), task


@pytest.mark.tensorflow
@pytest.mark.ray
def test_migrate_validate_ray_backend(tmp_path, distfix, ray_head):
    # A MultiWorkerMirroredStrategy script that fails with 2 workers as written (one input file, sharded
    # by file), validated on the session's Ray head (RAY_ADDRESS), joined as a user joins a running cluster.
    result, data = _migrate_validated(
        tmp_path, distfix, "input/tfd205_one_file_many_workers", "--backend", "ray", "--address", "auto"
    )
    assert result.returncode == 1, result.stdout + result.stderr  # fixes not written
    verdicts = _verdicts(data)
    _assert_fixed_passes_and_tpu_script_is_skipped(verdicts)
    assert verdicts["train.py"]["ran"].startswith("2 workers x 1 replica(s)")
    assert data["validation"]["backend"] == "ray"


def _pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def _ray_worker_above(pid: int) -> int:
    """The Ray worker process the validation of ``pid`` runs under (walking up its parents)."""
    current = pid
    while current > 1:
        if Path(f"/proc/{current}/cmdline").read_bytes().startswith(b"ray::"):
            return current
        current = int(Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()[1])
    raise AssertionError(f"process {pid} does not run under a Ray worker")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _script(pid_file: Path, attempts_to_hang: int) -> str:
    """A script the fix changes (TFD401) that records its pid, then hangs on its first
    ``attempts_to_hang`` runs (each one is killed with its Ray worker) and ends at once after."""
    return (
        "import os\nimport time\n\nimport tensorflow as tf\n\n"
        f"PIDS = {str(pid_file)!r}\n"
        "strategy = tf.distribute.MirroredStrategy()\n"
        "dist = strategy.experimental_distribute_datasets_from_function(lambda ctx: tf.data.Dataset.range(4))\n"
        "with open(PIDS, 'a') as pids:\n"
        "    pids.write(f'{os.getpid()}\\n')\n"
        "with open(PIDS) as pids:\n"
        "    runs = len(pids.read().split())\n"
        f"if runs <= {attempts_to_hang}:\n"
        "    time.sleep(3600)\n"
    )


@pytest.mark.tensorflow
@pytest.mark.ray
def test_a_lost_ray_worker_is_retried_once_then_reported_as_an_error(tmp_path, ray_head):
    once, twice = tmp_path / "once.pids", tmp_path / "twice.pids"
    repo = make_repo(tmp_path / "repo", {"once.py": _script(once, 1), "twice.py": _script(twice, 2)})
    report = tmp_path / "report.json"
    # On the session's Ray head: a killed worker is replaced by Ray, the head stays up for the next tests.
    command = [sys.executable, "-m", "fixer", "migrate", str(repo), "--validate", "--backend", "ray", "--address", "auto",
               "--max-steps", "1", "--validate-timeout", "3600", "--report", str(report)]
    task_folders = set(Path(tempfile.gettempdir()).glob("distfix-migrate-task-*"))
    migrate = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # Kill the worker under every run that hangs (the first of once.py, the first two of
        # twice.py), in whatever order Ray runs them.
        to_kill = {(once, 1), (twice, 1), (twice, 2)}
        deadline = time.monotonic() + 900
        while to_kill:
            assert migrate.poll() is None, migrate.communicate()
            assert time.monotonic() < deadline, f"waited 900 s for runs {sorted((p.name, n) for p, n in to_kill)}"
            started = {(p, n) for p, n in to_kill if len(_pids(p)) >= n}
            for pid_file, run in started:
                script = _pids(pid_file)[run - 1]
                os.kill(_ray_worker_above(script), signal.SIGKILL)
                wait_until(lambda: not _alive(script), "the killed worker's script to be gone (no orphan left)", bound=120)
                to_kill.discard((pid_file, run))
            time.sleep(0.2)
        stdout, stderr = migrate.communicate(timeout=900)
    finally:
        if migrate.poll() is None:
            migrate.kill()
            migrate.communicate()
    assert migrate.returncode == 2, stdout + stderr  # a validation error
    verdicts = _verdicts(json.loads(report.read_text()))
    assert verdicts["twice.py"]["status"] == "error"
    assert verdicts["twice.py"]["attempts"] == 2
    assert verdicts["twice.py"]["reason"].startswith("the Ray worker running it was lost twice (retried once): first WorkerCrashedError")
    assert verdicts["once.py"]["status"] != "error", verdicts["once.py"]
    assert verdicts["once.py"]["attempts"] == 2
    assert any(note.startswith("retried once: the Ray worker of the first attempt was lost") for note in verdicts["once.py"]["notes"])
    assert len(_pids(once)) >= 2 and len(_pids(twice)) == 2, "each retry ran the script again; no third attempt"
    assert set(Path(tempfile.gettempdir()).glob("distfix-migrate-task-*")) <= task_folders, "killed tasks left their folders"


@pytest.mark.ray
def test_a_task_asks_at_most_for_the_cpus_of_the_largest_node(tmp_path, ray_head):
    """A validation wants 2 CPUs; on a 1-CPU cluster it must still run (Ray would queue it forever).

    Its cluster is the product's own private local start (``ray_session(None)``), also where the
    session's RAY_ADDRESS names another cluster."""
    from fixer.migrate.ray_backend import validate_on_ray
    from fixer.migrate.validation import ValidationTask
    from fixer.ray_session import ray_session

    library = tmp_path / "lib.py"
    library.write_text("x = 1\n")
    task = ValidationTask(str(library), "x = 1\n", "x = 2\n", {}, max_steps=1, timeout=60, synthetic_data=False)
    assert task.processes == 2
    with ray_session(None, num_cpus=1) as ray:
        assert [node["Resources"]["CPU"] for node in ray.nodes() if node["Alive"]] == [1.0]
        verdicts = validate_on_ray([task], None)
    verdict = verdicts[str(library)]
    assert verdict.status == "skipped" and verdict.reason.startswith("not an entry point"), verdict
    assert verdict.host is not None, "the node ran it"
