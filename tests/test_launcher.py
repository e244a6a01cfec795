"""``fix --emit-launcher``: the launch scripts really start a 2-worker cluster on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

TRAIN = """\
import json
import os

import tensorflow as tf

os.environ["TF_CONFIG"] = json.dumps({{"cluster": {{"worker": ["127.0.0.1:{p0}", "127.0.0.1:{p1}"]}}, "task": {{"type": "worker", "index": 0}}}})
strategy = tf.distribute.MultiWorkerMirroredStrategy()


@tf.function
def all_reduce():
    value = strategy.run(lambda: tf.constant(1.0) + tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, value, axis=None)


print("ALLREDUCE", float(all_reduce()), strategy.cluster_resolver.task_id, flush=True)
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.tensorflow
def test_emitted_launchers_form_the_cluster(tmp_path: Path, distfix):
    script = tmp_path / "train.py"
    script.write_text(TRAIN.format(p0=_free_port(), p1=_free_port()))
    out = tmp_path / "launch"
    result = distfix("fix", "--write", "--unsafe-fixes", "--emit-launcher", str(out), str(script))
    assert result.returncode in (0, 1), result.stderr
    fixed = script.read_text()
    assert 'os.environ["TF_CONFIG"]' not in fixed and '# {"worker": ["127.0.0.1:' in fixed
    assert "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n" in fixed  # its default resolver reads TF_CONFIG
    launchers = sorted((out / "train").glob("launch_*.sh"))
    assert [p.name for p in launchers] == ["launch_worker_0.sh", "launch_worker_1.sh"]
    config = json.loads(launchers[1].read_text().split("export TF_CONFIG='")[1].split("'\n")[0])
    assert config["task"] == {"type": "worker", "index": 1}
    assert "PYTHON_BIN=python3;" in launchers[0].read_text()  # not this machine's venv path
    # The scripts run `python3` unless $PYTHON says otherwise: here, the interpreter with TensorFlow.
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": "", "PYTHON": sys.executable}
    processes = [
        subprocess.Popen(["bash", str(p)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True)
        for p in launchers
    ]
    deadline = time.monotonic() + 180
    outputs = []
    try:
        for process in processes:
            remaining = max(1.0, deadline - time.monotonic())
            outputs.append(process.communicate(timeout=remaining)[0])
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)  # a hung worker ignores SIGTERM
                process.wait()
    for index, (process, output) in enumerate(zip(processes, outputs)):
        assert process.returncode == 0, output[-2000:]
        assert f"ALLREDUCE 3.0 {index}" in output


BROKEN = """\
import os

import tensorflow as tf

os.environ["TF_CONFIG"] = {config!r}
strategy = tf.distribute.MultiWorkerMirroredStrategy()
"""


@pytest.mark.parametrize(
    ("config", "reason"),
    [
        ("{'cluster': {'worker': ['a:1', 'b:1']}, 'task': {'type': 'worker', 'index': 0}}", "not valid JSON"),
        ('{"task": {"type": "worker", "index": 0}}', "no `cluster`"),
        ('{"cluster": {"worker": ["a:1", "b"]}, "task": {"type": "worker", "index": 0}}', "has no port"),
        ('{"cluster": {"workers": ["a:1", "b:1"]}, "task": {"type": "worker", "index": 0}}', "unknown task type"),
    ],
)
def test_a_tf_config_that_cannot_be_launched_is_kept_and_reported(tmp_path: Path, distfix, config, reason):
    script = tmp_path / "train.py"
    script.write_text(BROKEN.format(config=config))
    out = tmp_path / "launch"
    result = distfix("fix", "--write", "--unsafe-fixes", "--select", "TFD601", "--emit-launcher", str(out), str(script))
    assert result.returncode in (0, 1), result.stderr
    assert 'os.environ["TF_CONFIG"]' in script.read_text()  # nothing lost
    assert not list(out.rglob("*.sh"))
    assert "no launchers for this TF_CONFIG" in result.stderr and reason in result.stderr


def test_task_problems_do_not_matter_and_loopback_is_a_warning(tmp_path: Path, distfix):
    script = tmp_path / "train.py"
    config = '{"cluster": {"chief": ["localhost:2222"], "worker": ["gpu-2:2222"]}, "task": {"type": "worker", "index": "7"}}'
    script.write_text(BROKEN.format(config=config))
    out = tmp_path / "launch"
    result = distfix("fix", "--write", "--unsafe-fixes", "--select", "TFD601", "--emit-launcher", str(out), str(script))
    assert result.returncode in (0, 1), result.stderr
    assert 'os.environ["TF_CONFIG"]' not in script.read_text()
    names = sorted(p.name for p in (out / "train").glob("*.sh"))
    assert names == ["launch_chief_0.sh", "launch_worker_0.sh"]  # each task gets its own index
    assert "launchers written, but" in result.stderr and "loopback" in result.stderr


def test_emit_launchers_refuses_a_malformed_cluster_and_takes_an_interpreter(tmp_path: Path):
    from fixer.launcher import LaunchOptions
    from fixer.launcher.emit import emit_launchers

    with pytest.raises(ValueError, match="no port"):
        emit_launchers(tmp_path / "t.py", {"cluster": {"worker": ["a"]}}, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    written = emit_launchers(tmp_path / "t.py", {"cluster": {"worker": {0: "a:1", 2: "b:1"}}}, tmp_path / "out", LaunchOptions(python=sys.executable))
    assert [p.name for p in written] == ["launch_worker_0.sh", "launch_worker_2.sh"]
    assert f"PYTHON_BIN={sys.executable};" in written[0].read_text()


def test_emit_launcher_needs_write(tmp_path, distfix):
    script = tmp_path / "train.py"
    script.write_text('import os\nos.environ["TF_CONFIG"] = \'{"cluster": {"worker": ["a:1", "b:2"]}, "task": {"type": "worker", "index": 0}}\'\n')
    result = distfix("fix", "--unsafe-fixes", "--emit-launcher", str(tmp_path / "launch"), str(script))
    assert result.returncode == 2 and "use it with --write" in result.stderr
    assert not (tmp_path / "launch").exists()


def test_launchers_name_the_script_relative_to_their_folder(tmp_path: Path):
    from fixer.launcher.emit import emit_launchers

    project = tmp_path / "project"
    project.mkdir()
    (project / "t.py").write_text("import os, sys\nprint(os.environ['TF_CONFIG']); print(sys.argv[1:])\n")
    (launcher,) = emit_launchers(project / "t.py", {"cluster": {"worker": ["a:1"]}}, project / "launch" / "t")
    assert str(tmp_path) not in launcher.read_text()
    moved = shutil.move(str(project), str(tmp_path / "elsewhere"))  # as when the project is copied to a host
    ran = subprocess.run(
        ["bash", str(Path(moved) / "launch" / "t" / launcher.name), "--flag"], cwd=tmp_path,
        capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHON": sys.executable},
    )
    assert ran.returncode == 0, ran.stderr
    config, arguments = ran.stdout.splitlines()
    assert json.loads(config)["task"] == {"type": "worker", "index": 0} and arguments == "['--flag']"


def test_without_launchers_the_summary_says_where_the_cluster_went(tmp_path: Path, distfix):
    script = tmp_path / "train.py"
    config = '{"cluster": {"worker": ["w0:1", "w1:1"]}, "task": {"type": "worker", "index": 0}}'
    script.write_text(BROKEN.format(config=config))
    alone = distfix("fix", "--unsafe-fixes", "--select", "TFD601", str(script))
    assert alone.stdout == ""  # no launcher known to set TF_CONFIG: advice, nothing removed
    # The project's own launcher sets TF_CONFIG for the script: the rewrite is offered.
    (tmp_path / "run.sh").write_text('#!/bin/sh\nTF_CONFIG="$(cat task.json)" python train.py\n')
    shown = distfix("fix", "--unsafe-fixes", "--select", "TFD601", str(tmp_path))
    assert "+# {\"worker\": [\"w0:1\", \"w1:1\"]}\n" in shown.stdout
    assert "TFD601 would move the hard-coded TF_CONFIG of 1 file into a comment" in shown.stderr
    written = distfix("fix", "--write", "--unsafe-fixes", "--select", "TFD601", str(tmp_path))
    assert "TFD601 moved the hard-coded TF_CONFIG of 1 file into a comment" in written.stderr
    assert "`--write --emit-launcher DIR` writes one launch script per task" in written.stderr
    fixed = script.read_text()
    assert '# {"worker": ["w0:1", "w1:1"]}' in fixed
    # MultiWorkerMirroredStrategy's default resolver already reads TF_CONFIG: the strategy stays as written.
    assert "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n" in fixed and "TFConfigClusterResolver" not in fixed


def test_launchers_for_a_setting_left_in_place_come_with_a_warning(tmp_path: Path, distfix):
    script = tmp_path / "train.py"
    config = '{"cluster": {"worker": ["w0:1", "w1:1"]}, "task": {"type": "worker", "index": 0}}'
    script.write_text(BROKEN.format(config=config))
    result = distfix("fix", "--write", "--select", "TFD601", "--emit-launcher", str(tmp_path / "launch"), str(script))
    assert result.returncode == 1, result.stderr
    assert 'os.environ["TF_CONFIG"]' in script.read_text()  # the unsafe fix was held back
    assert len(list((tmp_path / "launch" / "train").glob("*.sh"))) == 2
    assert "still sets its hard-coded TF_CONFIG, which overrides the launchers'" in result.stderr
