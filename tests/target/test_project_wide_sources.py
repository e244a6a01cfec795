"""Versions stated in project-wide files the walk used to miss: an install guide in a docs folder,
a `docker/` folder's Dockerfiles, a compose file's image, a job manifest's container for the
script it runs, NVIDIA's Merlin containers, and imports of Keras 2 internals (docs/target.md)."""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING

import pytest

from fixer.target import target_for
from fixer.target.manifests import manifest_jobs, named_image_tensorflow, read_compose
from fixer.target.model import is_target_file
from fixer.target.project_files import is_install_guide
from fixer.target.readme import read_readme
from fixer.target.sources import image_statements, image_tensorflow
from fixer.tf.keras2_internals import keras2_internals_evidence
from tests.conftest import run_distfix

if TYPE_CHECKING:
    from pathlib import Path

GUIDE = """\
# Installation

Our code was developed with these versions:

```bash
pip install tensorflow==2.6.0 keras==2.6.0
```
"""

# Keras 3 removed `layers.experimental.SyncBatchNormalization`; Keras 2.6 has it: TFD403's case.
SYNC_BATCH_NORM = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    norm = tf.keras.layers.experimental.SyncBatchNormalization()
"""

JOB = """\
apiVersion: batch.example.dev/v1beta1
kind: TensorFlowTrainingJob
metadata:
  name: mnist
spec:
  replicaSpecs:
    - type: worker
      replicas: 2
      template:
        spec:
          containers:
            - name: tensorflow
              image: example/tensorflow-2.11.0:cpu-sdk-0.5.2
              command:
                - "python"
                - "/workspace/mnist.py"
              args: ["--epochs", "2"]
"""


def project(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True)  # the repository root: the model does not look above it
    past = time.time() - 60  # older than the cache's "racily clean" window
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
        os.utime(root / name, (past, past))
    return root


# --- 1. An install guide in a documentation folder ---------------------------------------------


@pytest.mark.parametrize(
    "path, guide",
    [
        ("p/g3doc/setup/installation.md", True),
        ("p/docs/install.md", True),
        ("p/docs/getting_started.rst", True),
        ("p/doc/en/setup/gpu.md", True),
        ("p/docs/api/layers.md", False),  # a docs page about something else
        ("p/setup/installation.md", False),  # not in a docs folder
        ("p/docs/install.txt", False),
    ],
)
def test_which_pages_are_install_guides(path, guide):
    assert is_install_guide(path) is guide


def test_an_install_guide_decides_a_project_with_no_pin_file(tmp_path):
    root = project(tmp_path, {"g3doc/setup/installation.md": GUIDE, "trainer/train.py": ""})
    target = target_for(root / "trainer" / "train.py")
    assert target.version == (2, 6) and target.keras == 2
    assert target.tensorflow_from.path.endswith("installation.md") and target.tensorflow_from.line == 6
    assert target.keras_pin is not None and target.keras_pin.allowed.newest()[:2] == (2, 6)


def test_a_pin_file_beside_the_guide_outranks_it(tmp_path):
    # The guide names the older release, so by the oldest-wins rule for pin files it would decide.
    root = project(tmp_path, {"docs/install.md": GUIDE, "requirements.txt": "tensorflow==2.12.0\n"})
    assert target_for(root).version == (2, 12)


def test_a_pin_file_nearer_the_code_outranks_the_guide(tmp_path):
    root = project(tmp_path, {"docs/install.md": GUIDE, "sub/requirements.txt": "tensorflow==2.13.0\n", "sub/a.py": ""})
    assert target_for(root / "sub" / "a.py").version == (2, 13)


def test_a_guide_with_an_unversioned_install_or_prose_decides_nothing(tmp_path):
    text = "Install TensorFlow 2.6 first.\n\n```\npip install tensorflow\n```\n"
    root = project(tmp_path, {"docs/install.md": text, "a.py": ""})
    assert target_for(root / "a.py").assumed


def test_a_guide_makes_keras_2_names_right(tmp_path):
    guided = project(tmp_path / "a", {"g3doc/setup/installation.md": GUIDE, "train.py": SYNC_BATCH_NORM})
    control = project(tmp_path / "b", {"g3doc/api/overview.md": GUIDE, "train.py": SYNC_BATCH_NORM})
    codes = {}
    for name, root in (("guide", guided), ("not a guide", control)):
        result = run_distfix("check", "--no-cache", "--select", "TFD403", "--format", "json", str(root / "train.py"))
        codes[name] = [f["code"] for f in json.loads(result.stdout)]
    assert codes == {"guide": [], "not a guide": ["TFD403"]}


def test_editing_the_guide_invalidates_the_target(tmp_path):
    root = project(tmp_path, {"docs/install.md": GUIDE})
    assert target_for(root).version == (2, 6)
    (root / "docs" / "install.md").write_text("```\npip install tensorflow==2.12.0\n```\n")
    assert target_for(root).version == (2, 12)
    assert is_target_file(str(root / "docs" / "install.md"))


# --- 2. A docker/ folder and a compose file -----------------------------------------------------


@pytest.mark.parametrize("folder", ["docker", "dockerfiles", ".devcontainer", "docker/gpu"])
def test_a_dockerfile_in_a_docker_folder_of_the_project(tmp_path, folder):
    root = project(tmp_path, {f"{folder}/Dockerfile.gpu": "FROM tensorflow/tensorflow:2.3.1-gpu\n", "src/train.py": ""})
    target = target_for(root / "src" / "train.py")
    assert target.version == (2, 3) and target.tensorflow_from.path.endswith("Dockerfile.gpu")


def test_a_dockerfile_in_another_subfolder_is_not_read(tmp_path):
    root = project(tmp_path, {"tools/Dockerfile": "FROM tensorflow/tensorflow:2.3.1-gpu\n", "src/train.py": ""})
    assert target_for(root / "src" / "train.py").assumed


def test_a_new_dockerfile_in_the_docker_folder_invalidates_the_target(tmp_path):
    root = project(tmp_path, {"docker/Dockerfile": "FROM tensorflow/tensorflow:2.4.1-gpu\n", "a.py": ""})
    assert target_for(root / "a.py").version == (2, 4)
    (root / "docker" / "Dockerfile.tf1").write_text("FROM tensorflow/tensorflow:1.15.5-gpu\n")
    assert target_for(root / "a.py").version == (1, 15)  # oldest of the folder's statements


@pytest.mark.parametrize(
    "image, version",
    [
        ("example/tensorflow-2.11.0:cpu-sdk-0.5.2", (2, 11)),
        ("registry.example.com/team/trainer:tf-2.0.0-gpu", (2, 0)),
        ("example/runtime:py3.8-tf2.9", (2, 9)),
        ("tensorflow/tensorflow:2.4.1-gpu", (2, 4)),  # the tables still come first
        ("example/tf2-py3:latest", None),  # no minor version
        ("example/trainer:2.11.0-gpu", None),  # a version, but not said to be TensorFlow's
        ("example/mytf-2.1:latest", None),
    ],
)
def test_image_names_that_carry_a_tensorflow_release(image, version):
    assert named_image_tensorflow(image) == version


def test_a_compose_file_image_decides_its_folder(tmp_path):
    compose = "services:\n  train:\n    image: example/trainer:tf-2.0.0-gpu\n    volumes: [.:/work]\n"
    assert [e.allowed.newest()[:2] for e in read_compose(compose, "docker-compose.yml")] == [(2, 0)]
    root = project(tmp_path, {"docker-compose.yml": compose, "pkg/model.py": ""})
    assert target_for(root / "pkg" / "model.py").version == (2, 0)


def test_a_yaml_that_is_no_compose_file_keeps_custom_image_names_unread(tmp_path):
    root = project(tmp_path, {"deploy.yml": "image: example/trainer:tf-2.0.0-gpu\n", "a.py": ""})
    assert target_for(root / "a.py").assumed


# --- 3. A job manifest's container decides the script it runs -----------------------------------


def test_manifest_jobs_pair_each_script_with_the_image():
    jobs = manifest_jobs(JOB, "job.yaml")
    assert [(script, e.allowed.newest()[:2], e.line) for script, e in jobs] == [("/workspace/mnist.py", (2, 11), 13)]


def test_a_document_without_a_kind_or_without_a_versioned_image_runs_nothing():
    assert manifest_jobs(JOB.replace("kind: TensorFlowTrainingJob\n", ""), "job.yaml") == []
    assert manifest_jobs(JOB.replace("tensorflow-2.11.0", "trainer"), "job.yaml") == []


def test_the_job_image_decides_the_script_it_runs_and_only_that_script(tmp_path):
    root = project(tmp_path, {"mnist/job.yaml": JOB, "mnist/mnist.py": "", "mnist/other.py": ""})
    ran = target_for(root / "mnist" / "mnist.py")
    assert ran.version == (2, 11) and ran.keras == 2 and ran.tensorflow_from.path.endswith("job.yaml")
    assert target_for(root / "mnist" / "other.py").assumed  # the control: no job runs it


def test_a_script_the_manifest_names_by_a_relative_path(tmp_path):
    job = JOB.replace("/workspace/mnist.py", "trainer/task.py")
    root = project(tmp_path, {"job.yaml": job, "trainer/task.py": ""})
    assert target_for(root / "trainer" / "task.py").version == (2, 11)


def test_a_pin_of_the_folder_does_not_outrank_the_job_image(tmp_path):
    root = project(tmp_path, {"job.yaml": JOB, "mnist.py": "", "requirements.txt": "tensorflow\n"})
    assert target_for(root / "mnist.py").version == (2, 11)
    assert target_for(root / "other.py").version == (2, 21)


# --- 4. NVIDIA NGC and Merlin containers --------------------------------------------------------


@pytest.mark.parametrize(
    "image, version",
    [
        ("nvcr.io/nvidia/merlin/merlin-tensorflow-training:22.04", (2, 8)),
        ("nvcr.io/nvidia/merlin/merlin-training:22.02", (2, 7)),
        ("nvcr.io/nvidia/merlin/merlin-tensorflow:22.07", (2, 9)),
        ("nvcr.io/nvidia/merlin/merlin-tensorflow:23.04", (2, 11)),
        ("nvcr.io/nvidia/tensorflow:22.05-tf2-py3", (2, 8)),
    ],
)
def test_nvidia_containers_of_known_releases(image, version):
    assert [e.allowed.newest()[:2] for e in image_statements(image, "Dockerfile", 1)] == [version]


@pytest.mark.parametrize(
    "image",
    ["nvcr.io/nvidia/merlin/merlin-tensorflow:22.08", "nvcr.io/nvidia/merlin/merlin-tensorflow:latest"],
)
def test_a_merlin_release_not_in_the_support_matrix_is_an_unknown_version(tmp_path, image):
    (statement,) = image_statements(image, "Dockerfile", 1)
    assert statement.allowed.open_ended  # some release, not the newest
    root = project(tmp_path, {"Dockerfile": f"FROM {image}\n", "a.py": ""})
    assert target_for(root / "a.py").version_unknown
    assert read_readme(f"```\ndocker run -it {image}\n```\n", "README.md") == []


def test_merlin_pytorch_containers_say_nothing_about_tensorflow():
    assert image_tensorflow("nvcr.io/nvidia/merlin/merlin-pytorch:22.07") is None


def test_a_readme_running_a_merlin_container_decides_the_folder(tmp_path):
    readme = "```shell\ndocker run --gpus=all -it nvcr.io/nvidia/merlin/merlin-tensorflow-training:22.04\n```\n"
    root = project(tmp_path, {"README.md": readme, "a.py": ""})
    assert target_for(root / "a.py").version == (2, 8)


# --- Keras 2 internals in the checked file ------------------------------------------------------

LOSS_SCALED_KERAS2 = """\
import tensorflow as tf
from tensorflow.python.keras.engine import base_layer

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD())


def replica_step(loss):
    return optimizer.get_scaled_loss(loss)
"""


@pytest.mark.parametrize(
    "text, line",
    [
        ("import tensorflow as tf\nfrom tensorflow.python.keras.engine import base_layer\n", 2),
        ("import tensorflow.python.keras as k\n", 1),
        ("from keras.engine.base_layer import Layer\n", 1),
        ("import tensorflow as tf\nfrom tensorflow.python.keras import backend as K\n", 2),
        ("from tensorflow.keras import layers\n", None),  # public tf.keras: no evidence
        ("from keras.src.engine import x\n", None),
        ("# from tensorflow.python.keras import backend\n", None),
    ],
)
def test_imports_of_keras_2_internals(text, line):
    evidence = keras2_internals_evidence("a.py", text)
    assert (evidence.line if evidence is not None else None) == line


def test_keras_2_internals_decide_keras_2_only_where_no_version_is_stated(tmp_path):
    unpinned = project(tmp_path / "a", {"train.py": LOSS_SCALED_KERAS2})
    pinned = project(tmp_path / "b", {"train.py": LOSS_SCALED_KERAS2, "requirements.txt": "tensorflow==2.21.0\n"})
    control = project(tmp_path / "c", {"train.py": LOSS_SCALED_KERAS2.replace("python.keras.engine", "keras")})
    codes = {}
    for name, root in (("unpinned", unpinned), ("pinned 2.21", pinned), ("no internals", control)):
        result = run_distfix("check", "--no-cache", "--select", "TFD403", "--format", "json", str(root / "train.py"))
        codes[name] = [f["code"] for f in json.loads(result.stdout)]
    assert codes == {"unpinned": [], "pinned 2.21": ["TFD403"], "no internals": ["TFD403"]}


def notebook(markdown: str, code: str = "import tensorflow as tf\n") -> str:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": markdown},
        {"cell_type": "code", "metadata": {}, "source": code, "outputs": [], "execution_count": None},
    ]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


RUN_IN_MERLIN = (
    "Start the container:\n\n```shell\ndocker run --gpus all -it nvcr.io/nvidia/merlin/merlin-tensorflow:22.07\n```\n"
)


def test_a_notebook_that_says_which_container_to_run_it_in(tmp_path):
    root = project(tmp_path, {"nb.ipynb": notebook(RUN_IN_MERLIN)})
    target = target_for(root / "nb.ipynb")
    assert target.version == (2, 9) and target.tensorflow_from.cell == 1


@pytest.mark.parametrize(
    "markdown",
    [
        "The results were produced in nvcr.io/nvidia/merlin/merlin-tensorflow:22.07 last year.\n",  # prose
        "```\ndocker run -it nvcr.io/nvidia/merlin/merlin-tensorflow:22.08\n```\n",  # unknown release
    ],
)
def test_notebook_text_that_names_no_known_release_decides_nothing(tmp_path, markdown):
    root = project(tmp_path, {"nb.ipynb": notebook(markdown)})
    assert target_for(root / "nb.ipynb").assumed


def test_a_pin_file_or_an_install_cell_outranks_the_notebook_text(tmp_path):
    pinned = project(tmp_path / "a", {"nb.ipynb": notebook(RUN_IN_MERLIN), "requirements.txt": "tensorflow==2.12\n"})
    assert target_for(pinned / "nb.ipynb").version == (2, 12)
    installing = project(tmp_path / "b", {"nb.ipynb": notebook(RUN_IN_MERLIN, "!pip install tensorflow==2.13.0\n")})
    assert target_for(installing / "nb.ipynb").version == (2, 13)


def test_a_docker_folder_below_the_project_root_is_a_tools_own(tmp_path):
    # `tools/docker/` builds a tool's image; the notebooks in `tools/colab/` do not run in it.
    root = project(tmp_path, {"tools/docker/Dockerfile": "FROM tensorflow/tensorflow:1.15.5\n", "tools/colab/a.py": ""})
    assert target_for(root / "tools" / "colab" / "a.py").assumed
    (root / "tools" / "LICENSE").write_text("a separate project\n")  # a project root of its own
    assert target_for(root / "tools" / "colab" / "a.py").version == (1, 15)


def test_a_guide_below_the_project_root_is_not_project_wide(tmp_path):
    root = project(tmp_path, {"lib/docs/install.md": GUIDE, "lib/a.py": ""})
    assert target_for(root / "lib" / "a.py").assumed


MERLIN_README = "```\ndocker run --gpus all -it nvcr.io/nvidia/merlin/merlin-tensorflow-training:22.04\n```\n"


@pytest.mark.parametrize(
    "requirement, version",
    [
        ("tensorflow>=1.15", (2, 8)),  # installed in the container, the pin keeps its 2.8
        ("tensorflow", (2, 8)),
        ("tensorflow>=2.10", (2, 21)),  # the container's 2.8 does not satisfy it: pip installs the newest
        ("tensorflow>=2.4,<2.12", (2, 11)),  # a bounded pin chooses its release itself
    ],
)
def test_a_readme_container_and_an_open_pin_of_the_same_folder(tmp_path, requirement, version):
    setup = f"from setuptools import setup\nsetup(name='p', install_requires=['{requirement}'])\n"
    root = project(tmp_path, {"README.md": MERLIN_README, "setup.py": setup, "tests/t.py": ""})
    assert target_for(root / "tests" / "t.py").version == version


def test_the_package_floor_still_binds_its_modules_where_a_readme_container_decides(tmp_path):
    setup = "from setuptools import setup\nsetup(name='p', install_requires=['tensorflow>=1.15'])\n"
    root = project(tmp_path, {"README.md": MERLIN_README, "setup.py": setup, "__init__.py": "", "tests/t.py": ""})
    package = target_for(root)
    assert package.version == (2, 8) and package.floor == (1, 15)  # its users import it on 1.15 too
    assert target_for(root / "tests" / "t.py").floor is None  # a script beside it: no floor
