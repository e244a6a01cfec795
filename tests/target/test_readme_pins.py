"""A README that tells users which TensorFlow image or install to run the project on is a target
source for its folder: weaker than the folder's pin files, stronger than nothing."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from fixer.target import target_for
from fixer.target.readme import read_readme
from tests.conftest import run_distfix

DOCKER_README = """\
# Object detection on TPU and GPU

Train inside the container:

```bash
docker run --gpus all -it -v $PWD:/work tensorflow/tensorflow:2.4.0-gpu bash
python train.py --model_dir=/tmp/m
```

On a Cloud TPU, create it with the matching software:

    gcloud compute tpus create demo --zone=us-central1-a --version 2.4.0
"""

LOSS_SCALED_STEP = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD())


def replica_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
        scaled = optimizer.get_scaled_loss(loss)
    grads = optimizer.get_unscaled_gradients(tape.gradient(scaled, model.trainable_variables))
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
"""


def project(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True)  # the repository root: the model does not look above it
    past = time.time() - 60  # older than the cache's "racily clean" window: results are recorded
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
        os.utime(root / name, (past, past))
    return root


def decided(evidence) -> list[tuple[int, tuple[int, int]]]:
    return [(e.line, e.allowed.newest()) for e in evidence]


def test_docker_image_and_tpu_version_in_code_blocks():
    assert decided(read_readme(DOCKER_README, "README.md")) == [(6, (2, 4)), (12, (2, 4))]


@pytest.mark.parametrize(
    "text, version",
    [
        ("Install it: `pip install tensorflow-gpu==2.3.1 pillow`\n", (2, 3)),
        ("```\n$ pip install 'tensorflow>=2.5,<2.7'\n```\n", (2, 6)),
        ("::\n\n    sudo pip3 install tensorflow==2.8.0\n", (2, 8)),  # reStructuredText literal block
        ("```sh\ndocker pull nvcr.io/nvidia/tensorflow:21.08-tf2-py3\n```\n", (2, 5)),
        ("```\nctpu up --name=demo --tf-version=1.15\n```\n", (1, 15)),
        ("```\ngcloud ai-platform jobs submit training j --runtime-version 2.1\n```\n", (2, 1)),
    ],
)
def test_each_kind_of_code_line_that_names_a_version(text, version):
    assert [e.allowed.newest() for e in read_readme(text, "README.md")] == [version]


def test_prose_images_are_not_read_but_a_tpu_command_split_over_lines_is():
    # The prose image is another step's (the dataset's), not the one the code runs in.
    text = (
        "The dataset was prepared in the [tensorflow/tensorflow:1.15.2-gpu](https://hub.docker.com) image.\n\n"
        "```shell\ngcloud compute tpus create demo \\\n  --accelerator-type v3-8 \\\n  --version 2.4.0 \\\n"
        "  --zone z\n```\n"
    )
    assert decided(read_readme(text, "README.md")) == [(4, (2, 4))]


@pytest.mark.parametrize(
    "text",
    [
        "```\ndocker run -it tensorflow/tensorflow:latest-gpu\n```\n",  # the newest on the day it was written
        "```\ndocker run tensorflow/tensorflow bash\n```\n",
        "```\npip install tensorflow\n```\n",  # no version: decides nothing
        "```\npip install tf-keras==2.15 keras==2.15\n```\n",  # not a TensorFlow statement
        # prose that is no environment statement (readme_environment.py reads "We tested with ..." lines)
        "The data was made in tensorflow/tensorflow:2.4.0-gpu after pip install tensorflow==2.4.0.\n",
        "See https://github.com/tensorflow/tensorflow/issues/1 and `tensorflow/tensorflow`.\n",
        "```\npip install numpy==1.19 --version 2.4\n```\n",  # a --version that is no TPU's
    ],
)
def test_lines_that_say_nothing_about_the_version(text):
    assert read_readme(text, "README.md") == []


def test_a_readme_alone_decides_the_folder(tmp_path):
    root = project(tmp_path, {"README.md": DOCKER_README, "train.py": ""})
    target = target_for(root / "train.py")
    assert target.version == (2, 4) and target.keras == 2 and not target.assumed
    assert target.provenance() == f"from {root / 'README.md'}:6"


def test_a_pin_file_in_the_same_folder_outranks_the_readme(tmp_path):
    # The README's image is older, so by the oldest-wins rule for pin files it would decide: it must not.
    root = project(tmp_path, {"README.md": DOCKER_README, "requirements.txt": "tensorflow==2.10.0\n"})
    target = target_for(root)
    assert target.version == (2, 10) and target.tensorflow_from.path.endswith("requirements.txt")
    assert any(e.path.endswith("README.md") for e in target.evidence)  # still listed as a statement


def test_a_readme_in_a_subproject_is_nearer_than_the_root_pins(tmp_path):
    root = project(
        tmp_path, {"requirements.txt": "tensorflow==2.15.0\n", "detection/README.rst": DOCKER_README, "other/a.py": ""}
    )
    assert target_for(root / "detection").version == (2, 4)
    assert target_for(root / "other" / "a.py").version == (2, 15)


def test_a_readme_without_a_version_lets_the_walk_go_on(tmp_path):
    root = project(
        tmp_path, {"requirements.txt": "tensorflow==2.9.0\n", "sub/README.md": "```\npip install tensorflow\n```\n"}
    )
    assert target_for(root / "sub").version == (2, 9)


def test_target_command_shows_the_readme_as_the_evidence(tmp_path):
    root = project(tmp_path, {"README.md": DOCKER_README, "train.py": ""})
    result = run_distfix("target", str(root / "train.py"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == (
        "TensorFlow 2.4 (from README.md:6: "
        "docker run --gpus all -it -v $PWD:/work tensorflow/tensorflow:2.4.0-gpu bash)"
    )
    data = json.loads(run_distfix("target", str(root), "--format", "json").stdout)
    assert data["decided_by"]["file"] == "README.md" and data["files_read"] == ["README.md"]


def test_keras_2_names_are_not_reported_where_the_readme_runs_tf_2_4(tmp_path):
    with_readme = project(tmp_path / "a", {"README.md": DOCKER_README, "train.py": LOSS_SCALED_STEP})
    without = project(tmp_path / "b", {"train.py": LOSS_SCALED_STEP})
    codes = {}
    for name, root in (("readme", with_readme), ("none", without)):
        result = run_distfix("check", "--no-cache", "--select", "TFD403", "--format", "json", str(root / "train.py"))
        codes[name] = [f["code"] for f in json.loads(result.stdout)]
    assert codes == {"readme": [], "none": ["TFD403", "TFD403"]}


def test_editing_the_readme_invalidates_the_target(tmp_path):
    root = project(tmp_path, {"README.md": DOCKER_README})
    assert target_for(root).version == (2, 4)
    (root / "README.md").write_text("```\npip install tensorflow==2.12.0\n```\n")
    assert target_for(root).version == (2, 12)
