"""A cloud launcher in the project (a SageMaker TensorFlow estimator, a Vertex AI job given a
prebuilt TensorFlow image) names the TensorFlow of the script it runs: that release outranks the
folder's pins for that script only. Every case has a control that keeps today's answer."""

from __future__ import annotations

import json
import subprocess
import sys

from fixer.target import target_for
from tests.project_trees import tree


def notebook(*cells: str) -> str:
    made = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1, "source": c} for c in cells]
    return json.dumps({"cells": made, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


ESTIMATOR_CELLS = (
    "!pip install -q sagemaker\nimport sagemaker\nfrom sagemaker.tensorflow import TensorFlow\n",
    "TF_RELEASE = '2.8'\nPY = 'py39'\n",
    "job = TensorFlow(source_dir='code', entry_point='train.py', framework_version=TF_RELEASE,\n"
    "    py_version=PY, instance_count=2, instance_type='ml.p3.2xlarge',\n"
    "    distribution={'multi_worker_mirrored_strategy': {'enabled': True}})\n",
)


def test_a_sagemaker_notebook_names_the_tensorflow_of_its_entry_point(tmp_path):
    root = tree(
        tmp_path,
        {
            "launch.ipynb": notebook(*ESTIMATOR_CELLS),
            "code/train.py": "",
            "code/helper.py": "",
            "code/requirements.txt": "tensorflow\n",  # the folder's own pin: the launcher outranks it
        },
    )
    launched = target_for(root / "code" / "train.py")
    assert (launched.version, launched.keras) == ((2, 8), 2)
    source = launched.tensorflow_from
    assert source is not None and source.cell == 3 and "TF_RELEASE ('2.8')" in source.text
    # Control: the script beside it that no launcher names keeps the folder's answer.
    assert target_for(root / "code" / "helper.py").version == (2, 21)


def test_a_literal_version_and_the_estimator_module_path_in_a_python_launcher(tmp_path):
    launcher = (
        "import sagemaker.tensorflow.estimator as est\n"
        "est.TensorFlow(entry_point='mnist.py', framework_version='2.13.0', role=role).fit()\n"
    )
    root = tree(tmp_path, {"submit.py": launcher, "mnist.py": "", "requirements.txt": "tensorflow>=2.16\n"})
    assert target_for(root / "mnist.py").version == (2, 13)
    assert target_for(root / "submit.py").version == (2, 21)  # control: the launcher itself


def test_values_that_cannot_be_told_say_nothing(tmp_path):
    cells = (
        "from sagemaker.tensorflow import TensorFlow\nV = '2.8'\n",
        "V = '2.12'\n",  # bound twice: no one value
        "TensorFlow(entry_point='a.py', framework_version=V)\n",
        "TensorFlow(entry_point='b.py', framework_version=LATER)\nLATER = '2.3'\n",  # bound after the call
        "TensorFlow(entry_point='c.py', framework_version=get_version())\n",
        "TensorFlow(entry_point='d.py', framework_version='2.8', image_uri=my_image)\n",  # the image decides
        "Other(entry_point='e.py', framework_version='2.8')\n",  # not SageMaker's TensorFlow
    )
    files = {"nb.ipynb": notebook(*cells), "requirements.txt": "tensorflow==2.15\n"}
    root = tree(tmp_path, {**files, **{f"{name}.py": "" for name in "abcde"}})
    assert {target_for(root / f"{name}.py").version for name in "abcde"} == {(2, 15)}


VERTEX_PIPELINE = (
    "from components import custom_train_job\n"
    "IMAGE = 'europe-docker.pkg.dev/vertex-ai/training/tf-cpu.2-6:latest'\n"
    "def pipeline(project: str):\n"
    "    train = custom_train_job(\n"
    "        'training/assets/train_model.py',\n"
    "        train_container_uri=IMAGE,\n"
    "        requirements=['pandas'],\n"
    "    )\n"
)


def test_a_vertex_pipeline_module_names_the_prebuilt_image_of_its_script(tmp_path):
    root = tree(
        tmp_path,
        {
            "pipelines/training/pipeline.py": VERTEX_PIPELINE,
            "pipelines/training/assets/train_model.py": "",
            "pipelines/training/assets/other.py": "",
            "pyproject.toml": '[project]\nname = "p"\ndependencies = ["tensorflow>=2.16"]\n',
        },
    )
    launched = target_for(root / "pipelines" / "training" / "assets" / "train_model.py")
    assert (launched.version, launched.keras) == ((2, 6), 2)
    assert launched.tensorflow_from is not None and "train_container_uri=IMAGE" in launched.tensorflow_from.text
    assert target_for(root / "pipelines" / "training" / "assets" / "other.py").version == (2, 21)


def test_a_vertex_job_given_a_custom_image_says_nothing(tmp_path):
    launcher = (
        "from google.cloud import aiplatform\n"
        "aiplatform.CustomTrainingJob(script_path='task.py', container_uri='gcr.io/me/trainer:latest')\n"
        "aiplatform.CustomTrainingJob(script_path='gpu.py', container_uri='us-docker.pkg.dev/vertex-ai/training/tf-gpu.2-12:latest')\n"
    )
    root = tree(tmp_path, {"submit.py": launcher, "task.py": "", "gpu.py": ""})
    assert target_for(root / "task.py").version == (2, 21)
    assert target_for(root / "gpu.py").version == (2, 12)


def test_distfix_target_shows_the_launcher(tmp_path):
    root = tree(tmp_path, {"launch.ipynb": notebook(*ESTIMATOR_CELLS), "code/train.py": ""})
    shown = subprocess.run(
        [sys.executable, "-m", "fixer", "target", str(root / "code" / "train.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    first = shown.stdout.splitlines()[0]
    assert first.startswith("TensorFlow 2.8 (from ") and "launch.ipynb:cell 3:" in first
    assert "framework_version=TF_RELEASE ('2.8')" in first


UPLOADED_PIPELINE = (
    "def training_pipeline(files_root: str, project: str):\n"
    "    script_uri = f'{files_root}/jobs/steps/fit_model.py'\n"
    "    run_job(\n"
    "        script_uri=script_uri,\n"
    "        train_container_uri='us-docker.pkg.dev/vertex-ai/training/tf-gpu.2-12:latest',\n"
    "        serving_container_uri='us-docker.pkg.dev/vertex-ai/prediction/tf2-cpu.2-3:latest',\n"
    "    )\n"
    "\n"
    "def serving_only(files_root: str):\n"
    "    path = f'{files_root}/jobs/steps/serve_model.py'\n"
    "    deploy(path, serving_container_uri='us-docker.pkg.dev/vertex-ai/prediction/tf2-cpu.2-3:latest')\n"
)


def test_a_script_uploaded_under_a_run_time_folder_keeps_its_project_path(tmp_path):
    root = tree(
        tmp_path,
        {
            "pipelines/jobs/pipeline.py": UPLOADED_PIPELINE,
            "pipelines/jobs/steps/fit_model.py": "",
            "pipelines/jobs/steps/serve_model.py": "",
            "requirements.txt": "tensorflow==2.15\n",
        },
    )
    steps = root / "pipelines" / "jobs" / "steps"
    launched = target_for(steps / "fit_model.py")
    assert launched.version == (2, 12)  # the training image, not the serving one
    assert launched.tensorflow_from is not None and launched.tensorflow_from.text.startswith("train_container_uri=")
    # Control: a script handed only to a serving image keeps the folder's pin.
    assert target_for(steps / "serve_model.py").version == (2, 15)
