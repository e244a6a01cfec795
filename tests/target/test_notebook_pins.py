"""A notebook as a target source: its install cells for its own code, the container its
`%%writefile` trainer is submitted to for that trainer, the folder's files for the rest."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from fixer.config import Config
from fixer.notebook import analyse_notebook
from fixer.target import target_for
from fixer.target.notebook import _may_state, install_evidence, notebook_pins


def write_notebook(path: Path, *cells: str) -> Path:
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    data = {"cells": [{**cell, "source": source} for source in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.parent / ".git").mkdir(exist_ok=True)  # the repository root: nothing above it is read
    path.write_text(json.dumps(data))
    return path


def written_text(*cells: int) -> str:
    """The module text the checker builds from `%%writefile` cells (fixer/notebook.py's boundaries)."""
    return "".join(f"# distfix-cell {number}\n\nimport tensorflow as tf\n" for number in cells)


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("!pip install tensorflow==2.6.0", [("tensorflow", (2, 6))]),
        ('%pip install -q "tensorflow>=2.5,<2.7"', [("tensorflow", (2, 6))]),
        ("!pip install tf-nightly", [("tf-nightly", (2, 21))]),
        ("pip install -U tensorflow-cpu==2.9.*", [("tensorflow", (2, 9))]),
        ("!pip install -q tensorflow-datasets tensorflow==2.8.0 matplotlib", [("tensorflow", (2, 8))]),
        ("!python3 -m pip install --index-url https://example.org/simple tensorflow==2.11", [("tensorflow", (2, 11))]),
        ("!cd /content && pip install --quiet tensorflow-gpu==2.4.1 tf-keras", [("tensorflow", (2, 4)), ("tf-keras", (2, 21))]),
        ("!conda install -y tensorflow=2.3", [("tensorflow", (2, 3))]),
        ("!pip install -r requirements.txt", []),
        ("!pip uninstall -y tensorflow", []),
        ("!pip install tensorflow-datasets", []),
        ("print('pip install tensorflow==2.6')", []),
    ],
)
def test_install_lines(line, found):
    assert [(e.kind, e.allowed.newest()) for e in install_evidence(line, "nb.ipynb", 1)] == found


def test_the_notebooks_install_cell_outranks_the_folders_requirements(tmp_path):
    (tmp_path / "requirements.txt").write_text("tensorflow==2.15.1\n")
    notebook = write_notebook(tmp_path / "lab.ipynb", "!pip install --upgrade tensorflow==2.6 pandas", "import tensorflow as tf")
    (tmp_path / "train.py").write_text("")
    target = target_for(notebook)
    assert target.version == (2, 6) and target.keras == 2
    assert target.tensorflow_from is not None and target.tensorflow_from.where.endswith("lab.ipynb:cell 1:1")
    assert target_for(tmp_path / "train.py").version == (2, 15)  # the script beside it: the folder's pin


def test_a_bare_install_does_not_replace_a_pin_but_an_upgrade_does(tmp_path):
    (tmp_path / "requirements.txt").write_text("tensorflow==2.12.0\n")
    assert target_for(write_notebook(tmp_path / "a.ipynb", "!pip install tensorflow")).version == (2, 12)
    assert target_for(write_notebook(tmp_path / "b.ipynb", "!pip install -U tensorflow")).version == (2, 21)
    nothing = tmp_path / "elsewhere"  # Colab's or a base image's TensorFlow stays: which one is not known
    assert target_for(write_notebook(nothing / "c.ipynb", "!pip install tensorflow")).assumed


def test_a_later_install_cell_replaces_an_earlier_one(tmp_path):
    notebook = write_notebook(tmp_path / "nb.ipynb", "!pip install tensorflow==2.4.0", "x = 1", "%pip install tensorflow==2.10.1")
    assert target_for(notebook).version == (2, 10)


def test_colab_tensorflow_version_1_and_the_legacy_keras_switch(tmp_path):
    assert target_for(write_notebook(tmp_path / "old.ipynb", "%tensorflow_version 1.x")).version == (1, 15)
    legacy = write_notebook(tmp_path / "legacy.ipynb", "%env TF_USE_LEGACY_KERAS=1\n!pip install tensorflow==2.17 tf-keras")
    target = target_for(legacy)
    assert target.version == (2, 17) and target.keras == 2 and target.declares_tf_keras


@pytest.mark.parametrize(
    "launch",
    [
        "job = aiplatform.CustomJob.from_local_script(display_name='t', script_path='trainer.py',\n"
        "    container_uri='us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-9:latest')",
        "!gcloud ai-platform jobs submit training j --module-name trainer --runtime-version 2.9 --python-version 3.7",
        'training_inputs = {"runtime_version": "2.9", "python_version": "3.7"}',
        "!docker run -v $PWD:/w tensorflow/tensorflow:2.9.1-gpu python /w/trainer.py",
        "IMAGE = 'gcr.io/cloud-aiplatform/training/tf-gpu.2-9:latest'",
        # The version filled into a template, from a variable set in the notebook.
        'TF = "2.9".replace(".", "-")\nTRAIN_VERSION = "tf-cpu.{}".format(TF)\nIMAGE = f"us-docker.pkg.dev/vertex-ai/training/{TRAIN_VERSION}:latest"',
        'TF = "2-9"\nIMAGE = f"us-docker.pkg.dev/vertex-ai/training/tf-gpu.{TF}:latest"',
    ],
)
def test_a_written_trainer_runs_in_the_container_its_job_names(tmp_path, launch):
    notebook = write_notebook(
        tmp_path / "nb.ipynb",
        "!pip install tensorflow==2.6.0",
        "%%writefile trainer.py\nimport tensorflow as tf\n",
        launch,
    )
    assert target_for(notebook, text=written_text(2)).version == (2, 9)  # the trainer: its container
    assert target_for(notebook, text=written_text(1, 3)).version == (2, 6)  # the notebook: its install cell


def test_a_template_without_a_known_value_names_no_container(tmp_path):
    notebook = write_notebook(
        tmp_path / "nb.ipynb",
        "!pip install tensorflow==2.6.0",
        "%%writefile trainer.py\nimport tensorflow as tf\n",
        'TRAIN_VERSION = "tf-cpu.{}".format(version_from_a_widget)',
    )
    assert target_for(notebook, text=written_text(2)).version == (2, 6)


def test_a_written_trainer_without_a_container_runs_beside_the_kernel(tmp_path):
    notebook = write_notebook(tmp_path / "nb.ipynb", "!pip install tensorflow==2.7.0", "%%writefile train.py\nimport tensorflow\n")
    assert target_for(notebook, text=written_text(2)).version == (2, 7)


def test_a_dockerfile_the_notebook_writes_is_the_trainers_container(tmp_path):
    notebook = write_notebook(
        tmp_path / "nb.ipynb",
        "%%writefile Dockerfile\nFROM tensorflow/tensorflow:2.5.0-gpu\nRUN pip install tensorflow-datasets\n",
        "%%writefile task.py\nimport tensorflow\n",
    )
    pins = notebook_pins(notebook.read_text(), str(notebook))
    assert pins.own == () and pins.writers == {1, 2}  # a written file's lines are not the kernel's
    assert target_for(notebook, text=written_text(2)).version == (2, 5)


def test_editing_the_notebook_changes_its_target(tmp_path):
    notebook = write_notebook(tmp_path / "nb.ipynb", "!pip install tensorflow==2.6.0")
    assert target_for(notebook).version == (2, 6)
    write_notebook(notebook, "!pip install tensorflow==2.8.0  # a longer line")
    os.utime(notebook, ns=(1, 10**18))
    assert target_for(notebook).version == (2, 8)


# TFD504 (Keras 3 `fit` under MultiWorkerMirroredStrategy) follows the Keras of the notebook's TensorFlow.
_FIT = (
    "import tensorflow as tf\n"
    "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n"
    "with strategy.scope():\n"
    "    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
    "    model.compile(loss='mse')\n"
    "model.fit(x, y)\n"
)


def codes(notebook: Path) -> list[str]:
    result = analyse_notebook(str(notebook), notebook.read_text(), Config(), fix=False, unsafe=False)
    return [f.code for f in result.findings]


def test_tfd504_on_a_notebook_follows_its_install_cell(tmp_path):
    assert "TFD504" in codes(write_notebook(tmp_path / "a" / "nb.ipynb", _FIT))
    assert "TFD504" not in codes(write_notebook(tmp_path / "b" / "nb.ipynb", "!pip install tensorflow==2.6.0", _FIT))


def test_tfd504_on_a_written_trainer_follows_its_container(tmp_path):
    trainer = "%%writefile trainer.py\n" + _FIT
    submit = "job = aiplatform.CustomJob.from_local_script(script_path='trainer.py', container_uri='us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-9:latest')"
    assert "TFD504" in codes(write_notebook(tmp_path / "a" / "nb.ipynb", trainer))
    assert "TFD504" not in codes(write_notebook(tmp_path / "b" / "nb.ipynb", trainer, submit))


@pytest.mark.parametrize(
    "line",
    [
        "!pip install tensorflow==2.6.0",
        "%tensorflow_version 1.x",
        "%env TF_USE_LEGACY_KERAS=1",
        'TRAIN_IMAGE = "us-docker.pkg.dev/vertex-ai/training/tf-gpu.{}".format(TF)',
        'job = CustomJob(runtime_version="2.8")',
        'TRAIN_IMAGE = "us-docker.pkg.dev/vertex-ai/training/tf-gpu.2-9:latest"',
        "!gcloud ai-platform jobs submit training job --Runtime-Version 2.1",
    ],
)
def test_a_cell_stating_a_tensorflow_passes_the_word_test_before_its_lines_are_read(line):
    # notebook_pins reads a cell's lines only when the cell holds a word some statement needs.
    cells = ['TF = "2-9"\n', f"{line}\n"]
    data = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": s} for s in cells]}
    pins = notebook_pins(json.dumps(data), "nb.ipynb")
    assert _may_state(cells[1])
    assert pins.own or pins.containers
    assert not _may_state("import tensorflow as tf\nmodel.fit(x, epochs=3)\n")
