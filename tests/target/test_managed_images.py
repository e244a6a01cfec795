"""A README that tells readers to create the notebook instance or VM for the code from a named
TensorFlow image selects that TensorFlow (read like a README's `docker run` line); a README that
only records which version was tested selects nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.config import Config
from fixer.engine import check_source
from fixer.target import target_for

if TYPE_CHECKING:
    from pathlib import Path

WORKBENCH = """\
# Vision on the cloud

## Setting up
To run the notebooks, create a managed notebook instance on Vertex AI Workbench and select
**TensorFlow Enterprise 2.6 (with LTS)** as its environment, then clone this repository.
"""

IMAGE_FAMILY = """\
# Training on a VM

```bash
gcloud compute instances create trainer \\
    --image-family=tf-2-8-cpu --image-project=deeplearning-platform-release
```
"""

RECORDED = """\
# Notes

We tested the code with TensorFlow 2.1. Software stack: TensorFlow 2.0.1, CUDA 10.
Open the notebook in Colab and run every cell.
"""

COMPILE_AFTER_SCOPE = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(features, labels)
"""


def _folder(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True)
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def test_a_managed_notebook_image_named_in_prose_selects_its_tensorflow(tmp_path: Path):
    target = target_for(_folder(tmp_path / "a", {"README.md": WORKBENCH}) / "flowers.ipynb")
    assert target.version == (2, 6) and target.keras == 2
    assert target.tensorflow_from is not None and target.tensorflow_from.line == 5


def test_an_image_family_in_a_command_selects_its_tensorflow(tmp_path: Path):
    target = target_for(_folder(tmp_path / "b", {"README.md": IMAGE_FAMILY}) / "train.py")
    assert target.version == (2, 8) and target.tensorflow_from is not None
    assert target.tensorflow_from.text == "--image-family=tf-2-8"


def test_a_recorded_version_selects_nothing(tmp_path: Path):
    target = target_for(_folder(tmp_path / "c", {"README.md": RECORDED}) / "train.py")
    assert target.assumed


def test_a_pin_file_beside_the_readme_still_wins(tmp_path: Path):
    root = _folder(tmp_path / "d", {"README.md": WORKBENCH, "requirements.txt": "tensorflow==2.21.0\n"})
    assert target_for(root / "train.py").version == (2, 21)


def test_tfd101_follows_the_selected_image(tmp_path: Path):
    keras2 = _folder(tmp_path / "e", {"README.md": WORKBENCH}) / "train.py"
    unstated = _folder(tmp_path / "f", {"README.md": RECORDED}) / "train.py"
    for path in (keras2, unstated):
        path.write_text(COMPILE_AFTER_SCOPE)
    select = Config(select=("TFD101",))
    assert check_source(str(keras2), COMPILE_AFTER_SCOPE, select).findings == []
    assert [f.code for f in check_source(str(unstated), COMPILE_AFTER_SCOPE, select).findings] == ["TFD101"]
