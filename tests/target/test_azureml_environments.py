"""An Azure ML CLI v2 job naming `environment: azureml:<name>:<version>` runs on the conda file
(any name) and image of the project's environment definition with that name and version
(issue 28, ledger8a class 1b)."""

from __future__ import annotations

from pathlib import Path

from fixer.config import Config
from fixer.engine import check_source
from fixer.target import target_for

JOB = """\
command: python train.py --epochs 1
code:
  local_path: src
environment: azureml:tf-environment:1
compute: azureml:gpu-cluster
distribution:
  type: tensorflow
  worker_count: 2
"""

DEFINITION = """\
name: tf-environment
version: 1
docker:
  image: mcr.microsoft.com/azureml/openmpi3.1.2-cuda10.1-cudnn7-ubuntu18.04
conda_file: file:./tf_conda.yml
"""

CONDA = """\
name: tf
dependencies:
  - python=3.7
  - pip:
    - tensorflow-gpu==2.3.0
"""

TRAINING = """\
import tensorflow as tf

strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
model.fit(dataset, epochs=1)
"""


def _project(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)  # the repository root: nothing above is read
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _mnist(root: Path, definition: str = DEFINITION, job: str = JOB, where: str = "environments") -> Path:
    return _project(
        root,
        {
            "jobs/mnist/job.yml": job,
            "jobs/mnist/src/train.py": TRAINING,
            f"{where}/tf-env.yml": definition,
            f"{where}/tf_conda.yml": CONDA,
        },
    )


def test_the_named_environments_conda_file_decides(tmp_path: Path):
    root = _mnist(tmp_path)
    target = target_for(root / "jobs" / "mnist" / "src" / "train.py")
    assert target.version == (2, 3) and target.keras == 2
    assert target.tensorflow_from is not None and target.tensorflow_from.path.endswith("tf_conda.yml")
    assert not target.has("tensorflow.distribute.MultiWorkerMirroredStrategy")
    consulted = {Path(path).name for path, _ in target.consulted}
    assert {"tf-env.yml", "tf_conda.yml", "job.yml"} <= consulted  # an edit of either invalidates


def test_a_definition_in_a_parent_folder_is_found(tmp_path: Path):
    root = _mnist(tmp_path, where="jobs")
    assert target_for(root / "jobs" / "mnist" / "src").version == (2, 3)


def test_another_name_or_version_is_not_that_environment(tmp_path: Path):
    other_version = _mnist(tmp_path / "a", job=JOB.replace("tf-environment:1", "tf-environment:2"))
    assert target_for(other_version / "jobs" / "mnist" / "src").assumed
    other_name = _mnist(tmp_path / "b", definition=DEFINITION.replace("tf-environment", "torch-environment"))
    assert target_for(other_name / "jobs" / "mnist" / "src").assumed
    latest = _mnist(tmp_path / "c", job=JOB.replace("tf-environment:1", "tf-environment@latest"))
    assert target_for(latest / "jobs" / "mnist" / "src").version == (2, 3)


def test_the_definitions_image_counts_when_it_names_a_release(tmp_path: Path):
    image = DEFINITION.replace(
        "mcr.microsoft.com/azureml/openmpi3.1.2-cuda10.1-cudnn7-ubuntu18.04", "tensorflow/tensorflow:2.2.0-gpu"
    )
    root = _mnist(tmp_path, definition=image)
    assert target_for(root / "jobs" / "mnist" / "src").version == (2, 2)  # the older of image and conda file


def test_an_inline_environments_conda_file_is_read(tmp_path: Path):
    job = JOB.replace("environment: azureml:tf-environment:1\n", "environment:\n  conda_file: ../../env/tf_conda.yml\n")
    root = _project(
        tmp_path, {"jobs/mnist/job.yml": job, "jobs/mnist/src/train.py": TRAINING, "env/tf_conda.yml": CONDA}
    )
    assert target_for(root / "jobs" / "mnist" / "src").version == (2, 3)


def test_tfd401_and_tfd504_follow_the_environment(tmp_path: Path):
    select = Config(select=("TFD401", "TFD504"))
    script = _mnist(tmp_path / "a") / "jobs" / "mnist" / "src" / "train.py"
    assert check_source(str(script), TRAINING, select).findings == []
    unresolved = _mnist(tmp_path / "b", job=JOB.replace("tf-environment:1", "tf-environment:7"))
    found = check_source(str(unresolved / "jobs" / "mnist" / "src" / "train.py"), TRAINING, select).findings
    assert sorted(f.code for f in found) == ["TFD401", "TFD504"]
