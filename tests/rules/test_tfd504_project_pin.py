"""TFD504 follows the TensorFlow version the project pins (Keras 2 below 2.16)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixer.engine import check_source
from fixer.target import target_for

SCRIPT = """\
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.fit(x, y)
"""


@pytest.mark.parametrize(
    ("name", "content", "keras2"),
    [
        ("requirements.txt", "numpy\ntensorflow==2.15.1\n", True),
        ("requirements-gpu.txt", "tensorflow-gpu<2.16\n", True),
        ("pyproject.toml", '[project]\ndependencies = ["tensorflow-cpu~=2.14.0"]\n', True),
        ("setup.py", "setup(install_requires=['tensorflow<=2.15'])\n", True),
        ("environment.yml", "dependencies:\n  - pip:\n    - tensorflow==2.12.0\n", True),
        ("requirements.txt", "tensorflow==2.21.0\n", False),
        ("requirements.txt", "tensorflow>=2.10\n", False),
        ("setup.cfg", "[options]\ninstall_requires =\n    tensorflow-cpu==2.16.1\n", False),
        # Whole specifier sets, not the first clause.
        ("requirements.txt", "tensorflow>=2.12,<2.16\npandas\n", True),
        ("pyproject.toml", '[project]\ndependencies = ["tensorflow >= 2.10, < 2.16"]\n', True),
        ("environment.yml", "dependencies:\n  - pip:\n    - tensorflow >=2.13, <2.16\n", True),
        ("requirements.txt", "tensorflow~=2.15\n", False),  # compatible release: 2.21 allowed
        ("requirements.txt", "tensorflow~=2.15.0\n", True),
        ("requirements.txt", "tensorflow==2.15.*\n", True),
        ("requirements.txt", "tensorflow>=2.12,<2.20\n", False),
        ("requirements.txt", "tensorflow-datasets==4.9\ntensorflow>=2.17\n", False),
        ("requirements.txt", "# tensorflow==2.10\ntensorflow>=2.17\n", False),
        ("environment.yml", "dependencies:\n  - tensorflow=2.15\n", True),  # conda: 2.15.*
        ("pyproject.toml", '[tool.poetry.dependencies]\ntensorflow = "^2.15"\n', False),
        ("pyproject.toml", '[tool.poetry.dependencies]\ntensorflow = {version = "~2.15", optional = true}\n', True),
    ],
)
def test_pin_decides_the_keras_flavour(tmp_path: Path, name, content, keras2):
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / name).write_text(content)
    script = project / "src" / "train.py"
    assert (target_for(project / "src").version < (2, 16)) is keras2
    findings = check_source(str(script), SCRIPT).findings
    assert [f.code for f in findings if f.code == "TFD504"] == ([] if keras2 else ["TFD504"])


def test_no_dependency_file_means_keras3(tmp_path: Path):
    assert target_for(tmp_path).keras == 3


LEGACY_SCRIPT = """\
import os
os.environ["TF_USE_LEGACY_KERAS"] = {value}
{keras_import}
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = {model}.Sequential([{model}.layers.Dense(1)])
model.fit(x, y)
"""


@pytest.mark.parametrize(
    ("value", "keras_import", "model", "found"),
    [
        ('"1"', "", "tf.keras", False),
        ('"true"', "", "tf.keras", False),
        ('"0"', "", "tf.keras", True),
        ('"yes"', "", "tf.keras", True),  # TensorFlow accepts only 1, true, True
        ('"1"', "import keras", "keras", True),  # standalone keras ignores the switch
        ('"0"', "import tf_keras", "tf_keras", False),
        ("flags.legacy", "", "tf.keras", False),  # cannot tell
    ],
)
def test_the_legacy_switch_is_read_from_the_code(tmp_path: Path, value, keras_import, model, found):
    source = LEGACY_SCRIPT.format(value=value, keras_import=keras_import, model=model)
    findings = check_source(str(tmp_path / "train.py"), source).findings
    assert [f.code for f in findings if f.code == "TFD504"] == (["TFD504"] if found else [])
