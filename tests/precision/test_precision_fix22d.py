"""ledger22c's false-positive classes (benchmarks/WILD.md, `## ledger22c (blind)`; premises in
benchmarks/probe_ledger22c_premises.py), each with a control that keeps the true-positive shape.

- Class 1 (TFD101 x1): a model built outside the scope that nothing trains and that the replica
  function only calls for inference (`prior(x, training=False)`) is read-only state, like a
  non-trainable `tf.Variable` (premises part 1).
- Class 2 (TFD202 x1): a `MultiWorkerMirroredStrategy()` with no sign of a cluster (TFD504's
  fixer/tf/cluster_signs.py) is one worker with one input pipeline: nothing to shard.
- Class 3 (TFD109 x2): a Singularity / Apptainer definition file (`docker/image.def`: `From:` an NGC
  TensorFlow image, `%post` `pip install --upgrade tensorflow==2.7`) states the container an HPC job
  runs the script in, as a Dockerfile does: TF 2.7, Keras 2, where an unbuilt Adam trains.
- Class 4 (TFD502 x1): the non-chief workers save under a path built on the host's name
  (`os.environ["SLURMD_NODENAME"]`): one worker per Slurm node, so each writes its own copy.
- Class 5 (TFD101 x1): a model class constructed in the scope for the distributed step and again
  outside it for an eager branch: its own state is reported only when an instance constructed
  outside reaches distributed code.
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


# --- Class 1: a model made outside the scope and only called for inference in `strategy.run` ----

_INFERENCE_MODEL = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    scorer = tf.keras.Sequential([tf.keras.layers.Dense(1)])

guide = tf.keras.Sequential([tf.keras.layers.Dense(1)])
guide.load_weights("guide.weights.h5")
guide.trainable = False
{extra}

def replica_fn(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        score = scorer(x, training=False)
        if guide is not None:
            score += guide(x{flag})
    return tape.gradient(score, x)


@tf.function
def sample(x):
    return strategy.run(replica_fn, args=(x,))
"""


@pytest.mark.parametrize("flag", [", training=False", ""])
def test_a_model_only_called_for_inference_in_the_replica_function_is_no_finding(tmp_path: Path, flag: str) -> None:
    root = _project(tmp_path, {"train.py": _INFERENCE_MODEL.format(extra="", flag=flag)})
    assert "TFD101" not in _codes(root)


@pytest.mark.parametrize(
    "extra, flag",
    [
        ("", ", training=True"),  # BatchNormalization's statistics written by every replica
        ("frozen = guide.trainable_variables", ""),  # its variables may be trained under another name
        ('guide.compile(optimizer="adam", loss="mse")', ""),
        ("refine(guide)", ""),  # handed to a function that may train it
    ],
)
def test_control_a_model_that_may_be_trained_keeps_tfd101(tmp_path: Path, extra: str, flag: str) -> None:
    root = _project(tmp_path, {"train.py": _INFERENCE_MODEL.format(extra=extra, flag=flag)})
    assert "TFD101" in _codes(root)


_COMPOSED = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
backbone = tf.keras.Sequential([tf.keras.layers.Dense(4)])
with strategy.scope():
    inputs = tf.keras.Input((3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(backbone(inputs)))
    model.compile(optimizer="sgd", loss="mse")
model.fit(tf.ones((8, 3)), tf.ones((8, 1)))
"""


def test_control_a_model_called_to_build_the_trained_model_keeps_tfd101(tmp_path: Path) -> None:
    # `backbone(inputs)` is a call without `training`, but it makes the backbone part of what `fit` trains.
    root = _project(tmp_path, {"train.py": _COMPOSED})
    assert "TFD101" in _codes(root)


# --- Class 2: a MultiWorkerMirroredStrategy with no sign of a cluster has one input pipeline -----

_NO_CLUSTER_INPUT = """\
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()


def make_data(ctx):
    return tf.data.Dataset.range(100).batch(ctx.get_per_replica_batch_size(8))


dist = strategy.distribute_datasets_from_function(make_data)
with strategy.scope():
    net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    opt = tf.keras.optimizers.SGD()


@tf.function
def step(batch):
    def one(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(net(tf.reshape(tf.cast(x, tf.float32), (-1, 1))))
        opt.apply_gradients(zip(tape.gradient(loss, net.trainable_variables), net.trainable_variables))

    strategy.run(one, args=(batch,))


for batch in dist:
    step(batch)
"""


_TPU_ARM = """\
import tensorflow as tf

if DEVICE == "tpu":
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="local")
    tf.tpu.experimental.initialize_tpu_system(resolver)
    strategy = tf.distribute.TPUStrategy(resolver)
else:
"""


@pytest.mark.parametrize("tpu_arm", [False, True])
def test_input_of_a_multiworker_strategy_with_no_cluster_is_no_finding(tmp_path: Path, tpu_arm: bool) -> None:
    script = _NO_CLUSTER_INPUT
    if tpu_arm:  # a TPU's resolver in another arm names a TPU, not workers
        script = script.replace("strategy = tf.distribute.Multi", _TPU_ARM + "    strategy = tf.distribute.Multi")
        script = script.replace("import tensorflow as tf\n\n" + _TPU_ARM, _TPU_ARM)
    root = _project(tmp_path, {"train.py": script})
    assert "TFD202" not in _codes(root)


@pytest.mark.parametrize(
    "files",
    [
        {"job.sh": "#!/bin/bash\n#SBATCH --nodes=2\nsrun python train.py\n"},  # a multi-node launcher
        {"cluster.py": 'import os\nos.environ["TF_CONFIG"] = "{}"\n'},  # a TF_CONFIG the project writes
    ],
)
def test_control_a_sign_of_a_cluster_keeps_tfd202(tmp_path: Path, files: dict[str, str]) -> None:
    root = _project(tmp_path, {"train.py": _NO_CLUSTER_INPUT, **files})
    assert "TFD202" in _codes(root)


# --- Class 5: one model class constructed in the scope and again outside it ----------------------

_TWO_CONSTRUCTIONS = """\
import tensorflow as tf


class Coder(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.gate = tf.Variable(1.0, trainable=False)
        self.dense = tf.keras.layers.Dense(4)

    def call(self, x):
        return self.dense(x)


def main(mode, batches):
    strategy = tf.distribute.MirroredStrategy()
    if mode == "train":
        with strategy.scope():
            coder = Coder()
            opt = tf.keras.optimizers.SGD()

        @tf.function
        def step(x):
            def one(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(coder(x))
                grads = tape.gradient(loss, coder.trainable_variables)
                opt.apply_gradients(zip(grads, coder.trainable_variables))

            strategy.run(one, args=(x,))

        for x in batches:
            step(x)
            coder.gate.assign(0.0)
    if mode == "project":
        coder = Coder()
        coder.load_weights("weights")
        for x in batches:
            print(coder(x){use})


if __name__ == "__main__":
    main("train", [tf.ones((2, 3))])
"""


def _state_lines(root: Path) -> list[int]:
    """The lines of TFD101's findings on state a model class makes for itself."""
    (result,) = list(run([root / "train.py"], Job(use_cache=False, project_roots=(str(root),)), jobs=1))
    return [f.start.line for f in result.findings if f.code == "TFD101" and "created by `Coder` itself" in f.message]


def test_a_class_whose_outside_instance_serves_an_eager_branch_only_is_no_finding(tmp_path: Path) -> None:
    root = _project(tmp_path, {"train.py": _TWO_CONSTRUCTIONS.format(use="")})
    assert "TFD101" not in _codes(root)


def test_control_an_outside_instance_distributed_code_uses_keeps_the_class_state_finding(tmp_path: Path) -> None:
    use = ", strategy.run(lambda x: coder(x, training=True), args=(x,))"
    root = _project(tmp_path, {"train.py": _TWO_CONSTRUCTIONS.format(use=use)})
    assert _state_lines(root) == [7]


def test_control_a_hopsworks_launch_is_a_sign_of_a_cluster(tmp_path: Path) -> None:
    # `experiment.mirrored(fn)` starts `fn` on Spark executors as chief and workers.
    script = _NO_CLUSTER_INPUT + "\nfrom hops import experiment\n\nexperiment.mirrored(step)\n"
    root = _project(tmp_path, {"train.py": script})
    assert "TFD202" in _codes(root)
