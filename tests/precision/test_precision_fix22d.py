"""ledger22c's false-positive classes (benchmarks/WILD.md, `## ledger22c (blind)`; premises in
benchmarks/probe_ledger22c_premises.py), each with a control that keeps the true-positive shape.

- Class 3 (TFD109 x2): a Singularity / Apptainer definition file (`docker/image.def`: `From:` an NGC
  TensorFlow image, `%post` `pip install --upgrade tensorflow==2.7`) states the container an HPC job
  runs the script in, as a Dockerfile does: TF 2.7, Keras 2, where an unbuilt Adam trains.
- Class 4 (TFD502 x1): the non-chief workers save under a path built on the host's name
  (`os.environ["SLURMD_NODENAME"]`): one worker per Slurm node, so each writes its own copy.
"""

from __future__ import annotations

import os
import textwrap
import time
from typing import TYPE_CHECKING

import pytest

from fixer.runner import Job, run
from fixer.target import target_for
from fixer.target.singularity import as_dockerfile, read_definition

if TYPE_CHECKING:
    from pathlib import Path


def _project(root: Path, files: dict[str, str]) -> Path:
    """A repository at ``root`` holding ``files`` (written in the past: the cache's clean window)."""
    (root / ".git").mkdir(parents=True)
    past = time.time() - 60
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text))
        os.utime(root / name, (past, past))
    return root


def _codes(root: Path, script: str = "train.py") -> list[str]:
    (result,) = list(run([root / script], Job(use_cache=False, project_roots=(str(root),)), jobs=1))
    return [f.code for f in result.findings]


# --- Class 3: a Singularity / Apptainer definition file is a container statement -----------------

# An Adam made in the scope and first stepped in a compiled replica step: TFD109's Keras 3 case.
_UNBUILT_ADAM = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    net = tf.keras.Sequential([tf.keras.layers.Dense(3)])
    opt = tf.optimizers.Adam(learning_rate=1e-3)


def one_step(features, labels):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(net(features) - labels))
    grads = tape.gradient(loss, net.trainable_variables)
    opt.apply_gradients(zip(grads, net.trainable_variables))


@tf.function
def distributed_step(features, labels):
    strategy.run(one_step, args=(features, labels))
"""

_DEFINITION = """\
Bootstrap: docker
From: nvcr.io/nvidia/tensorflow:21.08-tf2-py3

%files
    requirements.txt /opt/requirements.txt

%post
    # pip install tensorflow==2.1 (an old note, not a command)
    pip install --upgrade pip
    pip install --upgrade \\
        tensorflow==2.7
"""


@pytest.mark.parametrize("place", ["docker/cluster_image.def", "apptainer/build.def", "Singularity"])
def test_a_definition_file_states_the_container_the_job_runs_in(tmp_path: Path, place: str) -> None:
    root = _project(
        tmp_path, {"requirements.txt": "tensorflow>=2.7.0\n", place: _DEFINITION, "train.py": _UNBUILT_ADAM}
    )
    assert target_for(root / "train.py").version < (2, 16)
    assert "TFD109" not in _codes(root)


def test_control_the_open_requirement_alone_keeps_tfd109(tmp_path: Path) -> None:
    root = _project(tmp_path, {"requirements.txt": "tensorflow>=2.7.0\n", "train.py": _UNBUILT_ADAM})
    assert "TFD109" in _codes(root)


def test_control_a_def_file_of_another_format_states_nothing(tmp_path: Path) -> None:
    # `.def` also names module-definition and other files: without `Bootstrap:` nothing is read.
    text = "LIBRARY example\nEXPORTS\n    From: nvcr.io/nvidia/tensorflow:21.08-tf2-py3\n"
    assert read_definition(text, "docker/exports.def") == []
    root = _project(
        tmp_path, {"requirements.txt": "tensorflow>=2.7.0\n", "docker/x.def": text, "train.py": _UNBUILT_ADAM}
    )
    assert "TFD109" in _codes(root)


def test_the_definition_is_read_line_for_line_as_a_dockerfile() -> None:
    text = textwrap.dedent(_DEFINITION) + "\n%environment\n    export TF_USE_LEGACY_KERAS=1\n"
    lines = as_dockerfile(text)
    assert lines is not None
    assert len(lines.splitlines()) == len(text.splitlines())
    stated = {(e.kind, e.line, e.legacy) for e in read_definition(text, "image.def")}
    # The base image (line 2), the install that continues onto line 11 (cited at its first line),
    # the legacy-Keras switch; the commented install on line 8 is not read.
    assert stated == {("tensorflow", 2, False), ("tensorflow", 10, False), ("legacy-keras", 14, True)}


# --- Class 4: a save path built on the host's name is the worker's own ---------------------------

_HOST_SAVE = """\
import os
import socket

import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    net = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    net.compile(optimizer="sgd", loss="mse")


def store(net, out, step):
    if os.environ["LEADER"] == "yes":
        where = out + "/ckpt/" + str(step)
    else:
        where = out + "/scratch/" + {host} + str(step)
    net.save_weights(where)
"""


@pytest.mark.parametrize("host", ['os.environ["SLURMD_NODENAME"]', "socket.gethostname()", 'os.getenv("HOSTNAME")'])
def test_a_non_chief_path_built_on_the_host_name_is_per_worker(tmp_path: Path, host: str) -> None:
    root = _project(tmp_path, {"train.py": _HOST_SAVE.format(host=host)})
    assert "TFD502" not in _codes(root)


def test_control_a_non_chief_path_shared_by_the_other_workers_keeps_tfd502(tmp_path: Path) -> None:
    root = _project(tmp_path, {"train.py": _HOST_SAVE.format(host='"node"')})
    assert "TFD502" in _codes(root)
