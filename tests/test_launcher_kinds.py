"""``fix --emit-launcher DIR --launcher shell|ray|tfjob``: each kind's whole file, the TFJob's
required fields, the Ray entry point's own logic, and the usage errors."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from fixer.launcher import LauncherKind, LaunchOptions
from fixer.launcher.emit import emit_launchers
from fixer.migrate.guarded import process_files

SNAPSHOTS = Path(__file__).parent / "data" / "launchers"
CLUSTER = {"chief": ["host0:2222"], "worker": ["host1:2222", "host2:2222"], "ps": ["host3:2222"]}
TRAIN = f"""\
import json
import os

import tensorflow as tf

os.environ["TF_CONFIG"] = json.dumps({{"cluster": {CLUSTER!r}, "task": {{"type": "worker", "index": 0}}}})
strategy = tf.distribute.MultiWorkerMirroredStrategy()
"""
# Kubernetes names of pods and services: DNS-1035 labels.
DNS_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


def _project(tmp_path: Path, name: str = "train.py") -> Path:
    project = tmp_path / "project"
    project.mkdir()
    script = project / name
    script.write_text(TRAIN.replace("'", '"'))
    return script


def test_shell_launcher_whole_file(tmp_path: Path):
    script = _project(tmp_path)
    written = emit_launchers(script, {"cluster": CLUSTER}, script.parent / "launch" / "train")
    assert [p.name for p in written] == ["launch_chief_0.sh", "launch_worker_0.sh", "launch_worker_1.sh", "launch_ps_0.sh"]
    assert written[2].read_text() == textwrap.dedent("""\
        #!/usr/bin/env bash
        # Task worker 1 of the cluster that `distfix fix` removed from
        # ../../train.py (relative to this file's folder)
        # Run this file on the machine at host2:2222; run the other launch_*.sh files on theirs.
        # The interpreter is $PYTHON when set, else python3; extra arguments are passed to the script.
        set -euo pipefail
        export TF_CONFIG='{"cluster": {"chief": ["host0:2222"], "worker": ["host1:2222", "host2:2222"], "ps": ["host3:2222"]}, "task": {"type": "worker", "index": 1}}'
        PYTHON_BIN="${PYTHON:-}"
        if [ -z "$PYTHON_BIN" ]; then PYTHON_BIN=python3; fi
        HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
        exec "$PYTHON_BIN" "$HERE"/../../train.py "$@"
        """)


def test_tfjob_whole_file(tmp_path: Path):
    script = _project(tmp_path)
    options = LaunchOptions(kind=LauncherKind.tfjob, image="registry.example/team/train:1.0", command=("python", "train.py", "--epochs=3"))
    (manifest,) = emit_launchers(script, {"cluster": CLUSTER}, script.parent / "launch" / "train", options)
    assert manifest.name == "tfjob.yaml"
    replica = textwrap.dedent("""\
            {kind}:
              replicas: {count}
              restartPolicy: Never
              template:
                spec:
                  containers:
                    - name: tensorflow
                      image: "registry.example/team/train:1.0"
                      command:
                        - "python"
                        - "train.py"
                        - "--epochs=3"
        """)
    assert manifest.read_text() == textwrap.dedent("""\
        # Kubeflow TFJob for train.py, with the shape of the cluster that `distfix fix` removed from it.
        # Submit it with:  kubectl apply -f tfjob.yaml   (needs the Kubeflow training operator)
        # The operator gives every replica its own TF_CONFIG, so the removed addresses are not needed.
        # The image must hold train.py at that path relative to its working directory.
        # restartPolicy Never: restarting a replica only helps a script that resumes from checkpoints
        # (tf.keras.callbacks.BackupAndRestore); use OnFailure or ExitCode if yours does.
        apiVersion: kubeflow.org/v1
        kind: TFJob
        metadata:
          name: "train"
        spec:
          tfReplicaSpecs:
        """) + "".join(
        textwrap.indent(replica.format(kind=kind, count=count), "    ") for kind, count in (("Chief", 1), ("Worker", 2), ("PS", 1))
    )


def _assert_valid_tfjob(manifest: dict) -> None:
    """The fields the Kubernetes API and the training operator require of a TFJob."""
    assert manifest["apiVersion"] == "kubeflow.org/v1" and manifest["kind"] == "TFJob"
    assert DNS_LABEL.match(manifest["metadata"]["name"]) and len(manifest["metadata"]["name"]) <= 40
    specs = manifest["spec"]["tfReplicaSpecs"]
    assert specs and set(specs) <= {"Chief", "Master", "Worker", "PS", "Evaluator"}
    for spec in specs.values():
        assert isinstance(spec["replicas"], int) and spec["replicas"] >= 1
        assert spec["restartPolicy"] in {"Always", "OnFailure", "Never", "ExitCode"}
        container = spec["template"]["spec"]["containers"][0]
        assert container["name"] == "tensorflow"  # the operator finds the container (and its port) by this name
        assert isinstance(container["image"], str) and container["image"]
        assert container["command"] and all(isinstance(part, str) for part in container["command"])


def test_tfjob_from_the_command_line_parses_and_has_the_removed_clusters_shape(tmp_path: Path, distfix):
    script = _project(tmp_path, "Train_MNIST v2.py")
    result = distfix(
        "fix", "--write", "--unsafe-fixes", "--select", "TFD601", "--emit-launcher", "launch", "--launcher", "tfjob",
        "--image", "registry.example/team/train:1.0", script.name, cwd=script.parent,
    )
    assert result.returncode == 0, result.stderr
    assert "Wrote a TFJob manifest for Train_MNIST v2.py: launch/Train_MNIST v2/tfjob.yaml" in result.stderr
    manifest = yaml.safe_load((script.parent / "launch" / "Train_MNIST v2" / "tfjob.yaml").read_text())
    _assert_valid_tfjob(manifest)
    assert manifest["metadata"]["name"] == "train-mnist-v2"
    specs = manifest["spec"]["tfReplicaSpecs"]
    assert {kind: spec["replicas"] for kind, spec in specs.items()} == {"Chief": 1, "Worker": 2, "PS": 1}
    # The default command names the script relative to the folder holding it and the manifest.
    assert {tuple(spec["template"]["spec"]["containers"][0]["command"]) for spec in specs.values()} == {("python", "Train_MNIST v2.py")}
    assert str(tmp_path) not in (script.parent / "launch" / "Train_MNIST v2" / "tfjob.yaml").read_text()


def test_tfjob_command_from_the_command_line(tmp_path: Path, distfix):
    script = _project(tmp_path)
    result = distfix(
        "fix", "--write", "--unsafe-fixes", "--emit-launcher", "k8s", "--launcher", "tfjob", "--image", "img:1",
        "--launch-command", "python -m trainer.task --note 'two words'", script.name, cwd=script.parent,
    )
    assert result.returncode == 0, result.stderr
    manifest = yaml.safe_load((script.parent / "k8s" / "train" / "tfjob.yaml").read_text())
    _assert_valid_tfjob(manifest)
    commands = {tuple(spec["template"]["spec"]["containers"][0]["command"]) for spec in manifest["spec"]["tfReplicaSpecs"].values()}
    assert commands == {("python", "-m", "trainer.task", "--note", "two words")}


def test_tfjob_of_a_sparse_cluster_and_an_evaluator(tmp_path: Path):
    script = _project(tmp_path, "2stage.py")
    cluster = {"worker": {"0": "a:1", "3": "b:1"}, "evaluator": ["c:1"]}
    options = LaunchOptions(kind=LauncherKind.tfjob, image="img")
    (manifest,) = emit_launchers(script, {"cluster": cluster}, tmp_path / "out", options)
    text = manifest.read_text()
    parsed = yaml.safe_load(text)
    _assert_valid_tfjob(parsed)
    assert parsed["metadata"]["name"] == "stage"
    assert {kind: spec["replicas"] for kind, spec in parsed["spec"]["tfReplicaSpecs"].items()} == {"Worker": 2, "Evaluator": 1}
    assert "# The removed cluster's Worker indices were not 0..1: the operator numbers them 0..1.\n" in text
    assert parsed["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["command"] == ["python", "project/2stage.py"]


@pytest.mark.parametrize(("script", "name"), [("yes.py", "yes"), ("null.py", "null"), ("__main__.py", "main"), ("0.py", "tfjob")])
def test_tfjob_names_stay_strings(tmp_path: Path, script: str, name: str):
    (manifest,) = emit_launchers(tmp_path / script, {"cluster": {"worker": ["a:1"]}}, tmp_path / "out", LaunchOptions(kind=LauncherKind.tfjob, image="img"))
    parsed = yaml.safe_load(manifest.read_text())
    assert parsed["metadata"]["name"] == name
    _assert_valid_tfjob(parsed)


def test_ray_job_whole_file(tmp_path: Path):
    script = _project(tmp_path)
    (entry,) = emit_launchers(script, {"cluster": CLUSTER}, script.parent / "launch" / "train", LaunchOptions(kind=LauncherKind.ray))
    assert entry.name == "ray_job.py"
    text = entry.read_text()
    assert text == (SNAPSHOTS / "ray_job.py.snapshot").read_text()
    compile(text, str(entry), "exec")
    assert str(tmp_path) not in text


def test_ray_job_maps_every_task_to_a_new_address_in_the_same_shape(tmp_path: Path):
    """The entry point's own logic, run for real (Ray is imported, no cluster is started)."""
    pytest.importorskip("ray")
    script = _project(tmp_path)
    sparse = {"chief": ["c:1"], "worker": {"0": "a:1", "3": "b:1"}}
    (entry,) = emit_launchers(script, {"cluster": sparse}, tmp_path / "out", LaunchOptions(kind=LauncherKind.ray))
    probe = (
        "import runpy, json\n"
        f"entry = runpy.run_path({str(entry)!r})\n"
        "tasks = entry['cluster_tasks'](entry['REMOVED_CLUSTER'])\n"
        "addresses = {task: f'10.0.0.{n}:{2000 + n}' for n, task in enumerate(tasks)}\n"
        "print(json.dumps([tasks, entry['cluster_with'](addresses), entry['SCRIPT']]))\n"
    )
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr
    tasks, cluster, relative = yaml.safe_load(ran.stdout.splitlines()[-1])
    assert tasks == [["chief", 0], ["worker", 0], ["worker", 3]]
    assert cluster == {"chief": ["10.0.0.0:2000"], "worker": {"0": "10.0.0.1:2001", "3": "10.0.0.2:2002"}}
    assert relative == "../project/train.py"


def test_writing_a_ray_job_does_not_import_ray(tmp_path: Path):
    script = _project(tmp_path)
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from fixer.launcher import LauncherKind, LaunchOptions\n"
        "from fixer.launcher.emit import emit_launchers\n"
        f"emit_launchers(Path({str(script)!r}), {{'cluster': {CLUSTER!r}}}, Path({str(tmp_path / 'out')!r}), LaunchOptions(kind=LauncherKind.ray))\n"
        "print('ray' in sys.modules)\n"
    )
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=Path(__file__).parent.parent)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "False" and (tmp_path / "out" / "ray_job.py").is_file()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--launcher", "ray"], "--launcher chooses the kind of launchers --emit-launcher DIR writes"),
        (["--emit-launcher", "launch", "--launcher", "slurm"], "Invalid value for '--launcher'"),
        (["--emit-launcher", "launch", "--launcher", "tfjob"], "--launcher tfjob needs --image IMAGE"),
        (["--emit-launcher", "launch", "--image", "img"], "--image is for TFJob manifests"),
        (["--emit-launcher", "launch", "--launcher", "ray", "--launch-command", "python x.py"], "--launch-command is for TFJob manifests"),
        (["--emit-launcher", "launch", "--launcher", "tfjob", "--image", "img", "--launch-command", "python 'x.py"], "--launch-command: No closing quotation"),
    ],
)
def test_launcher_usage_errors(tmp_path: Path, distfix, arguments, message):
    script = _project(tmp_path)
    before = script.read_text()
    result = distfix("fix", "--write", "--unsafe-fixes", *arguments, script.name, cwd=script.parent)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert script.read_text() == before and not (script.parent / "launch").exists()


RAY_TRAIN = """\
import json
import os
import sys

import tensorflow as tf

os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["gpu-0.example:2222", "gpu-1.example:2222"]}, "task": {"type": "worker", "index": 0}})
strategy = tf.distribute.MultiWorkerMirroredStrategy()
if "--fail" in sys.argv and strategy.cluster_resolver.task_id == 1:
    sys.exit(3)  # worker 0 then waits for it in the all-reduce


@tf.function
def all_reduce():
    value = strategy.run(lambda: tf.constant(1.0) + tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, value, axis=None)


total = float(all_reduce())
task = {"type": strategy.cluster_resolver.task_type, "index": strategy.cluster_resolver.task_id}
with open(f"result_{strategy.cluster_resolver.task_id}.json", "w") as out:
    json.dump({"total": total, "task": task, "arguments": sys.argv[1:]}, out)
"""


def _processes_naming(path: Path) -> list[int]:
    """The processes whose command line names ``path`` (Ray's daemons name their temp dir)."""
    return [pid for pid, command in process_files("cmdline") if str(path) in command]


def _run_ray_job(project: Path, *arguments: str) -> tuple[int, str]:
    """Run the entry point on a local Ray instance of its own; its exit code and output. Fails
    when a process of that Ray instance outlives the run."""
    # A private Ray temp dir (short: it holds unix sockets), so this run neither joins nor disturbs another Ray instance.
    ray_dir = Path(tempfile.mkdtemp(prefix="ray", dir="/tmp"))
    env = {key: value for key, value in os.environ.items() if key != "RAY_ADDRESS"}
    env.update(RAY_TMPDIR=str(ray_dir), RAY_USAGE_STATS_ENABLED="0", TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
    job = subprocess.Popen(
        [sys.executable, "launch/train/ray_job.py", *arguments], cwd=project, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )
    try:
        output = job.communicate(timeout=600)[0]
        # The local Ray instance the entry point started is gone with it (checked until a generous deadline).
        left = _processes_naming(ray_dir)
        deadline = time.monotonic() + 120
        while left and time.monotonic() < deadline:
            time.sleep(0.5)
            left = _processes_naming(ray_dir)
    finally:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
            job.wait()
        for pid in _processes_naming(ray_dir):  # this test's own Ray processes only
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(ray_dir, ignore_errors=True)
    assert not left, f"Ray processes left behind: {output[-2000:]}"
    return job.returncode, output


@pytest.mark.ray
@pytest.mark.tensorflow
def test_ray_job_runs_the_fixed_script_on_two_workers(tmp_path: Path, distfix):
    """The emitted entry point, run on a local Ray instance, forms the 2-worker cluster on this
    machine; when a task fails, the job ends with its exit code instead of waiting for it."""
    pytest.importorskip("ray")
    project = tmp_path / "project"
    project.mkdir()
    (project / "train.py").write_text(RAY_TRAIN)
    fixed = distfix("fix", "--write", "--unsafe-fixes", "--emit-launcher", "launch", "--launcher", "ray", "train.py", cwd=project)
    assert fixed.returncode in (0, 1), fixed.stderr
    assert 'os.environ["TF_CONFIG"] =' not in (project / "train.py").read_text()

    code, output = _run_ray_job(project, "--", "--tag", "loopback")
    assert code == 0, output[-3000:]
    results = [json.loads((project / f"result_{index}.json").read_text()) for index in (0, 1)]
    assert [r["task"] for r in results] == [{"type": "worker", "index": 0}, {"type": "worker", "index": 1}]
    assert all(r["total"] == 3.0 and r["arguments"] == ["--tag", "loopback"] for r in results)

    for result in project.glob("result_*.json"):
        result.unlink()
    code, output = _run_ray_job(project, "--", "--fail")
    assert code == 3, output[-3000:]
    assert "worker 1 exited with code 3: stopping the other tasks" in output
    assert not list(project.glob("result_*.json"))  # worker 0 was stopped in its all-reduce
