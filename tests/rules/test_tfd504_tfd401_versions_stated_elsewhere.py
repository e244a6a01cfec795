"""TFD504 and TFD401 follow versions stated outside pin files (docs/target.md): a curated Keras 2
job image, code written for Keras 2 where no version is stated, a notebook's printed version,
and a package's declared floor."""

from __future__ import annotations

import json
from pathlib import Path

from fixer.config import Config
from fixer.engine import check_source
from fixer.notebook import analyse_notebook

MWMS_FIT = """\
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.Adam({rate}=0.001), loss="mse")
model.fit(x, y)
"""
EXPERIMENTAL = """\
import tensorflow as tf

strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
"""


def codes(path: Path, source: str) -> list[str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    return [f.code for f in check_source(str(path), source).findings]


def test_tfd504_is_silent_in_a_curated_image_a_launcher_notebook_names(tmp_path):
    (tmp_path / ".git").mkdir()
    submit = (
        "job = command(code='./src', command='python main.py', environment='AzureML-tensorflow-2.16-cuda12@latest')"
    )
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": submit}
    (tmp_path / "submit.ipynb").write_text(
        json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    )
    assert "TFD504" not in codes(tmp_path / "src" / "main.py", MWMS_FIT.format(rate="learning_rate"))
    assert "TFD504" in codes(tmp_path / "elsewhere" / "main.py", MWMS_FIT.format(rate="learning_rate"))


def test_tfd504_takes_keras_2_code_for_keras_2_only_where_no_version_is_stated(tmp_path):
    unversioned = tmp_path / "a"
    (unversioned / ".git").mkdir(parents=True)
    (unversioned / "Dockerfile").write_text("FROM tensorflow/tensorflow:latest-gpu\n")
    assert "TFD504" not in codes(unversioned / "train.py", MWMS_FIT.format(rate="lr"))
    assert "TFD504" in codes(unversioned / "train2.py", MWMS_FIT.format(rate="learning_rate"))
    for name, requirement in (("b", "tensorflow==2.21.0\n"), ("b2", "tensorflow\n")):
        pinned = tmp_path / name
        (pinned / ".git").mkdir(parents=True)
        (pinned / "requirements.txt").write_text(requirement)
        # Keras 3 on a fresh install: `lr=` there is a bug of its own, the fit finding stays.
        assert "TFD504" in codes(pinned / "train.py", MWMS_FIT.format(rate="lr"))
    generator = MWMS_FIT.format(rate="learning_rate").replace("model.fit(x, y)", "model.fit_generator(batches)")
    (tmp_path / "c" / ".git").mkdir(parents=True)
    assert "TFD504" not in codes(tmp_path / "c" / "train.py", generator)


def test_tfd401_keeps_the_name_a_notebook_printed_version_has(tmp_path):
    (tmp_path / ".git").mkdir()
    tpu = "import tensorflow as tf\nstrategy = tf.distribute.experimental.TPUStrategy(resolver)\n"
    version = {
        "cell_type": "code",
        "metadata": {},
        "execution_count": 1,
        "source": "print(tf.__version__)",
        "outputs": [{"output_type": "stream", "name": "stdout", "text": ["1.15.0\n"]}],
    }
    code = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 2, "source": tpu}
    for printed, expected in (("1.15.0\n", []), ("2.2.0\n", ["TFD401"])):
        version["outputs"][0]["text"] = [printed]  # type: ignore[index]
        path = tmp_path / f"nb{printed[0]}.ipynb"
        text = json.dumps({"cells": [version, code], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
        path.write_text(text)
        result = analyse_notebook(str(path), text, Config(), fix=False, unsafe=False)
        assert [f.code for f in result.findings if f.code == "TFD401"] == expected


def test_tfd401_does_not_rename_below_a_packages_declared_floor(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\nimport deps\nsetup(install_requires=deps.REQUIRED)\n"
    )
    (tmp_path / "deps.py").write_text("REQUIRED = ['tensorflow>=1.15.0,<3.0']\n")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "__init__.py").write_text("")
    assert "TFD401" not in codes(tmp_path / "lib" / "strategies.py", EXPERIMENTAL)
    # A script beside the package (no `__init__.py`) runs on the newest release allowed.
    assert "TFD401" in codes(tmp_path / "examples" / "train.py", EXPERIMENTAL)
    (tmp_path / "deps.py").write_text("REQUIRED = ['tensorflow>=2.4']\n")
    assert "TFD401" in codes(tmp_path / "lib" / "strategies.py", EXPERIMENTAL)


def test_tfd504_is_silent_in_the_script_a_vertex_job_runs_on_tensorflow_2_4(tmp_path):
    (tmp_path / ".git").mkdir()
    submit = (
        "job = aiplatform.CustomTrainingJob(display_name='mwms', script_path='task.py',\n"
        "    container_uri='us-docker.pkg.dev/vertex-ai/training/tf-gpu.2-4:latest')\n"
    )
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": submit}
    (tmp_path / "submit.ipynb").write_text(
        json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    )
    assert "TFD504" not in codes(tmp_path / "task.py", MWMS_FIT.format(rate="learning_rate"))
    assert "TFD504" in codes(tmp_path / "local.py", MWMS_FIT.format(rate="learning_rate"))
