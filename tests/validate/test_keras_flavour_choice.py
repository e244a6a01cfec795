"""A script that chooses tf-keras on its first lines gets tf-keras everywhere, as ``python script.py`` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixer.validate.runner import RunSpec
from fixer.validate.session import validate

pytestmark = pytest.mark.tensorflow

CHOOSES_TF_KERAS = """\
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"
from tensorflow import keras
from tensorflow.keras import layers
import tensorflow as tf

# TensorFlow decides where `tensorflow.keras` submodules come from when it is imported
assert layers.__name__.startswith("tf_keras"), layers.__name__
assert keras.Sequential.__module__.startswith("tf_keras"), keras.Sequential.__module__
print("tf-keras everywhere")
"""

CHOOSES_TOO_LATE = """\
import os
import tensorflow as tf
os.environ["TF_USE_LEGACY_KERAS"] = "1"
from tensorflow.keras import layers

assert layers.__name__.startswith("keras"), layers.__name__  # as python runs it: Keras 3's tree
print("Keras 3 submodules")
"""


@pytest.mark.parametrize(("text", "printed"), [(CHOOSES_TF_KERAS, "tf-keras everywhere"), (CHOOSES_TOO_LATE, "Keras 3 submodules")])
def test_the_keras_flavour_is_the_one_python_would_run(tmp_path: Path, text: str, printed: str):
    script = tmp_path / "train.py"
    script.write_text(text)
    report = validate(script, RunSpec(replicas=2, device="cpu", timeout=300), compare=False)
    assert report.variants["original"].checks[0].result == "pass", report.table() + "\n".join(report.variants["original"].output)
    assert printed in report.variants["original"].output[0]
