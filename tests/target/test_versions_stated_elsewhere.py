"""Versions a project states where a pin file is not: a launcher notebook's curated job image, a
notebook's saved output, a package's floor built in a setup module, an unversioned base image."""

from __future__ import annotations

import json

from fixer.target import target_for
from fixer.target.notebook import notebook_pins
from tests.project_trees import tree


def notebook(*cells: str | tuple[str, str]) -> str:
    """A notebook JSON; a (source, printed) pair is a cell with its saved stream output."""
    made = []
    for cell in cells:
        source, printed = cell if isinstance(cell, tuple) else (cell, None)
        outputs = [{"output_type": "stream", "name": "stdout", "text": [printed]}] if printed else []
        made.append({"cell_type": "code", "metadata": {}, "outputs": outputs, "execution_count": 1, "source": source})
    return json.dumps({"cells": made, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


SUBMIT = (
    "from azure.ai.ml import command\n"
    "job = command(code='./src', command='python main.py --epochs 2',\n"
    "              environment='AzureML-tensorflow-2.16-cuda12@latest',\n"
    "              distribution={'type': 'tensorflow', 'worker_count': 2})\n"
)


def test_a_launcher_notebook_names_the_curated_image_its_code_folder_runs_in(tmp_path):
    root = tree(tmp_path, {"job.ipynb": notebook(SUBMIT), "src/main.py": "", "other/main.py": ""})
    target = target_for(root / "src" / "main.py")
    assert target.version == (2, 16) and target.keras == 2 and target.declares_tf_keras
    assert target.tf_keras_requirement() == "tf-keras~=2.16.0"
    assert target.tensorflow_from is not None and target.tensorflow_from.path.endswith("job.ipynb")
    # A folder the notebook does not submit keeps its own (here: nothing, 2.21 assumed).
    assert target_for(root / "other" / "main.py").assumed


def test_a_launcher_does_not_beat_the_code_folders_own_pin(tmp_path):
    root = tree(tmp_path, {"job.ipynb": notebook(SUBMIT), "src/requirements.txt": "tensorflow==2.12.0\n"})
    assert target_for(root / "src").version == (2, 12)


def test_a_job_yaml_naming_the_curated_image_means_keras_2(tmp_path):
    job = "code: src\ncommand: python main.py\nenvironment: azureml:AzureML-tensorflow-2.16-cuda12@latest\n"
    target = target_for(tree(tmp_path, {"job.yml": job, "src/main.py": ""}) / "src")
    assert target.version == (2, 16) and target.keras == 2 and target.declares_tf_keras


def test_the_version_a_notebook_printed_is_the_one_it_ran(tmp_path):
    cells = ("import tensorflow as tf\nprint('Tensorflow version ' + tf.__version__)", "Tensorflow version 1.15.0\n")
    root = tree(tmp_path, {"requirements.txt": "tensorflow==2.8.0\n", "nb.ipynb": notebook("import numpy", cells)})
    target = target_for(root / "nb.ipynb")
    assert target.version == (1, 15) and target.tensorflow_from is not None and target.tensorflow_from.cell == 2
    # A later install cell replaces what the printed version ran on.
    (root / "nb.ipynb").write_text(notebook(cells, "!pip install tensorflow==2.9.1"))
    assert target_for(root / "nb.ipynb").version == (2, 9)
    # A printed 2.x is the last run of a TF 2 notebook, not a pin: its kernel today decides.
    two = ("import tensorflow as tf\nprint(tf.__version__)", "2.2.0\n")
    (root / "nb.ipynb").write_text(notebook(two))
    assert target_for(root / "nb.ipynb").version == (2, 8)


def test_only_tensorflows_printed_version_counts(tmp_path):
    two = ("import numpy as np, tensorflow as tf\nprint(np.__version__, tf.__version__)", "1.21.6 1.15.0\n")
    labelled = ("print('numpy', np.__version__)\nprint('tf', tf.__version__)", "numpy 1.21.6\ntf 1.14.0\n")
    not_tf = ("import numpy as np\nprint(np.__version__)", "1.21.6\n")
    assert not notebook_pins(notebook(two), "nb.ipynb").own  # unlabelled, two modules: cannot tell
    assert [e.allowed.newest() for e in notebook_pins(notebook(labelled), "nb.ipynb").own] == [(1, 14)]
    assert not notebook_pins(notebook(not_tf), "nb.ipynb").own


def test_a_packages_floor_declared_in_a_module_setup_py_imports(tmp_path):
    dependencies = "def required():\n    return ['absl-py', 'tensorflow>=1.15.0,<3.0']\n"
    setup = "from setuptools import setup\nfrom dependencies import required\nsetup(install_requires=required())\n"
    files = {"setup.py": setup, "dependencies.py": dependencies, "pkg/__init__.py": "", "scripts/run.py": ""}
    root = tree(tmp_path, files)
    target = target_for(root / "pkg")
    assert target.version == (2, 21) and target.floor == (1, 15)
    # A script folder (no `__init__.py`) runs on whatever is installed: the newest allowed.
    assert target_for(root / "scripts").floor is None
    assert not target.has("tensorflow.distribute.MultiWorkerMirroredStrategy")
    assert target.has("tensorflow.distribute.MirroredStrategy")
    # A requested target-version is the one the code must work on: no floor.
    assert target_for(root / "pkg", requested=(2, 21)).floor is None


def test_an_applications_requirements_file_has_no_floor(tmp_path):
    target = target_for(tree(tmp_path, {"requirements.txt": "tensorflow>=1.15\n"}))
    assert target.floor is None and target.has("tensorflow.distribute.MultiWorkerMirroredStrategy")


def test_an_unversioned_base_image_states_no_version(tmp_path):
    target = target_for(tree(tmp_path, {"Dockerfile": "FROM tensorflow/tensorflow:latest-gpu\n"}))
    assert target.version == (2, 21) and target.version_unknown and not target.assumed
    assert not target_for(tree(tmp_path / "p", {"Dockerfile": "FROM tensorflow/tensorflow:2.21.0\n"})).version_unknown
    # A bare requirement is the newest release on every fresh install: known.
    assert not target_for(tree(tmp_path / "r", {"requirements.txt": "tensorflow\n"})).version_unknown


VERTEX_JOB = (
    "from google.cloud import aiplatform\n"
    "job = aiplatform.CustomTrainingJob(display_name='mwms', script_path='task.py',\n"
    "    container_uri='us-docker.pkg.dev/vertex-ai/training/tf-gpu.2-4:latest')\n"
)
LOCAL_SCRIPT = (
    "IMAGE = 'us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-8:latest'\n"
    "job = aiplatform.CustomJob.from_local_script(display_name='t', script_path='trainer/task.py',\n"
    "    container_uri=IMAGE, replica_count=2)\n"
)


def test_a_vertex_job_runs_the_script_it_submits_in_its_container(tmp_path):
    root = tree(
        tmp_path,
        {
            "requirements.txt": "tensorflow>=2.16\n",
            "submit.ipynb": notebook(VERTEX_JOB),
            "task.py": "",
            "other.py": "",
            "launch/local.ipynb": notebook(LOCAL_SCRIPT),
            "launch/trainer/task.py": "",
        },
    )
    submitted = target_for(root / "task.py")
    assert (submitted.version, submitted.keras) == ((2, 4), 2)
    assert submitted.tensorflow_from is not None and "tf-gpu.2-4" in submitted.tensorflow_from.text
    assert target_for(root / "other.py").version == (2, 21)
    assert target_for(root / "launch" / "trainer" / "task.py").version == (2, 8)
    assert notebook_pins(notebook(VERTEX_JOB), "submit.ipynb").scripts == frozenset({"task.py"})
