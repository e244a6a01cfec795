"""A script that pip-installs its own pins (`subprocess.check_call([sys.executable, "-m", "pip",
"install", ...])`) runs on what it installs, as a notebook's install cell does; a pinned SageMaker
TensorFlow extension names the TensorFlow release it is built for (issue 28, ledger8a class 1a)."""

from __future__ import annotations

from pathlib import Path

from fixer.config import Config
from fixer.engine import check_source
from fixer.target import target_for
from fixer.target.script_installs import script_installs

TRAINING = """\
import tensorflow as tf

strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
model.fit(dataset, epochs=1)
"""

SAGEMAKER_SETUP = """\
import subprocess
import sys

subprocess.check_call([sys.executable, "-m", "pip", "install", "sagemaker-tensorflow==2.1.0.1.0.0", "transformers==2.8.0"])
"""


def _project(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)  # the repository root: nothing above is read
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _versions(text: str) -> list[tuple[str, tuple[int, int]]]:
    return [(e.kind, e.allowed.newest()) for e in script_installs(text, "train.py")]


def test_a_constant_pip_install_list_is_read_like_an_install_cell():
    text = 'import subprocess, sys\nsubprocess.check_call([sys.executable, "-m", "pip", "install", "-q", "tensorflow==2.3.0"])\n'
    assert _versions(text) == [("tensorflow", (2, 3))]
    found = script_installs(text, "train.py")[0]
    assert found.line == 2 and found.text == "python -m pip install -q tensorflow==2.3.0"


def test_other_runners_and_a_constant_command_string_count():
    text = (
        "import os, subprocess, sys\n"
        "from subprocess import run as sh\n"
        'subprocess.run("pip install tensorflow-gpu==2.2.0 && echo done", shell=True)\n'
        'os.system("pip3 install keras==2.6.0")\n'
        'sh([sys.executable, "-m", "pip", "install", "tf-keras~=2.16.0"])\n'
    )
    assert _versions(text) == [("tensorflow", (2, 2)), ("keras", (2, 6)), ("tf-keras", (2, 16))]


def test_a_list_built_at_run_time_or_another_command_says_nothing():
    text = (
        "import subprocess, sys\n"
        'packages = ["tensorflow==2.3.0"]\n'
        'subprocess.check_call([sys.executable, "-m", "pip", "install", *packages])\n'
        'subprocess.check_call([sys.executable, "-m", "pip", "install", f"tensorflow=={VERSION}"])\n'
        'subprocess.check_call(["echo", "pip install tensorflow==2.3.0"])\n'
        'print("pip install tensorflow==2.3.0")\n'
    )
    assert _versions(text) == []
    assert script_installs("def broken(:\n  pip install tensorflow==2.3\n", "train.py") == []


def test_the_sagemaker_extension_names_the_tensorflow_it_is_built_for():
    assert _versions(SAGEMAKER_SETUP) == [("tensorflow", (2, 1))]
    unpinned = SAGEMAKER_SETUP.replace("sagemaker-tensorflow==2.1.0.1.0.0", "sagemaker-tensorflow")
    assert _versions(unpinned) == []


def test_the_scripts_own_install_beats_its_folders_pin(tmp_path: Path):
    root = _project(tmp_path, {"requirements.txt": "tensorflow==2.11.0\n", "train.py": SAGEMAKER_SETUP + TRAINING})
    target = target_for(root / "train.py")
    assert target.version == (2, 1) and target.keras == 2
    assert target.tensorflow_from is not None and target.tensorflow_from.where.endswith("train.py:4")
    assert not target.has("tensorflow.distribute.MultiWorkerMirroredStrategy")
    # A sibling script without the install keeps the folder's pin.
    (root / "other.py").write_text(TRAINING)
    assert target_for(root / "other.py").version == (2, 11)


def test_a_bare_install_keeps_the_tensorflow_already_there(tmp_path: Path):
    bare = 'import subprocess, sys\nsubprocess.check_call([sys.executable, "-m", "pip", "install", "tensorflow"])\n'
    root = _project(tmp_path, {"requirements.txt": "tensorflow==2.11.0\n", "train.py": bare})
    assert target_for(root / "train.py").version == (2, 11)
    upgraded = bare.replace('"install", ', '"install", "-U", ')
    (root / "train.py").write_text(upgraded)
    assert target_for(root / "train.py").version == (2, 21)


def test_tfd401_and_tfd504_follow_the_release_the_script_installs(tmp_path: Path):
    select = Config(select=("TFD401", "TFD504"))
    installs = _project(tmp_path / "a", {"train.py": SAGEMAKER_SETUP + TRAINING}) / "train.py"
    # TensorFlow 2.1 has only the experimental name, and its Keras 2 `fit` works under the strategy.
    assert check_source(str(installs), SAGEMAKER_SETUP + TRAINING, select).findings == []
    plain = _project(tmp_path / "b", {"train.py": TRAINING}) / "train.py"
    found = check_source(str(plain), TRAINING, select).findings
    assert sorted(f.code for f in found) == ["TFD401", "TFD504"]
