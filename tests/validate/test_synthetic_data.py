"""``--synthetic-data`` for every loader and every Keras flavour (real TensorFlow in the children)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixer.validate.runner import RunSpec
from fixer.validate.session import CannotValidate, validate

pytestmark = pytest.mark.tensorflow

FLAVOURS = {
    "keras3": "import keras as K\nassert K.__version__.startswith('3')\n",
    "tf_keras": "import tf_keras as K\n",
    # tf-keras' `tf.keras` is its own module tree (tf_keras.api._v2.keras), not tf_keras.datasets
    "tf.keras legacy": (
        "os.environ['TF_USE_LEGACY_KERAS'] = '1'\nimport tensorflow as tf\nK = tf.keras\n"
        "assert K.Model.__module__.startswith('tf_keras'), K.Model.__module__\n"
    ),
}

LOADERS = """\
(x, y), (xt, yt) = K.datasets.mnist.load_data()
assert x.shape == (60000, 28, 28) and yt.shape == (10000,) and int(x.max()) > 0, "datasets: mnist"
(c, cy), _ = K.datasets.cifar10.load_data()
assert c.shape == (50000, 32, 32, 3) and cy.shape == (50000, 1), "datasets: cifar10"

folder = K.utils.get_file("flower_photos", origin="https://example.invalid/flower_photos.tgz", untar=True)
images = K.utils.image_dataset_from_directory(folder, image_size=(16, 16), batch_size=8)
assert images.class_names == ["class_a", "class_b"], f"get_file: {images.class_names}"
batch, labels = next(iter(images))
assert tuple(batch.shape) == (8, 16, 16, 3), f"get_file: {batch.shape}"

absent = K.utils.image_dataset_from_directory("data/train_images", image_size=(16, 16), batch_size=4)
assert len(absent.class_names) == 2, "image_dataset_from_directory"
print("all loaders read synthetic data")
"""


@pytest.mark.parametrize("flavour", list(FLAVOURS))
def test_every_loader_reads_synthetic_data(tmp_path: Path, flavour: str):
    script = tmp_path / "loaders.py"
    script.write_text("import os\n" + FLAVOURS[flavour] + LOADERS)
    report = validate(script, RunSpec(replicas=2, device="cpu", synthetic_data=True, timeout=300), compare=False)
    runs = report.variants["original"].checks[0]
    assert runs.result == "pass", report.table()
    assert "all loaders read synthetic data" in report.variants["original"].output[0]


@pytest.mark.parametrize("flavour", ["keras3", "tf_keras"])
def test_a_download_synthetic_data_cannot_replace_is_refused(tmp_path: Path, flavour: str):
    script = tmp_path / "weights.py"
    script.write_text(
        "import os\n" + FLAVOURS[flavour] + "path = K.utils.get_file('weights.h5', origin='https://example.invalid/weights.h5')\n"
    )
    with pytest.raises(CannotValidate, match=r"needs network data \(line \d+\): get_file would download https://example.invalid/weights.h5"):
        validate(script, RunSpec(replicas=2, device="cpu", synthetic_data=True, timeout=300), compare=False)


def test_a_missing_image_folder_without_synthetic_data_cannot_be_validated(tmp_path: Path):
    script = tmp_path / "images.py"
    script.write_text("import os\n" + FLAVOURS["tf_keras"] + "K.utils.image_dataset_from_directory('data/train_images')\n")
    with pytest.raises(CannotValidate, match="needs the file `data/train_images`"):
        validate(script, RunSpec(replicas=2, device="cpu", timeout=300), compare=False)



TFDS = """\
import numpy as np
import tensorflow_datasets as tfds

(train, test), info = tfds.load("mnist", split=["train", "test"], as_supervised=True, with_info=True)
image, label = next(iter(train))
assert image.shape == (28, 28, 1) and image.dtype == "uint8" and label.dtype == "int64", "tfds.load: spec"
labels = [int(y) for _, y in train.take(64)]
assert 0 <= min(labels) and max(labels) < info.features["label"].num_classes, "tfds.load: labels"
assert info.splits["train"].num_examples == len(list(train)) > 0, "tfds.load: declared split"

builder = tfds.builder("cifar10")
builder.download_and_prepare()
element = next(iter(builder.as_dataset(split="test")))
assert set(element) >= {"image", "label"} and element["image"].shape == (32, 32, 3), "tfds.builder: spec"
print("tfds reads synthetic data")
"""


def test_tfds_reads_synthetic_examples_of_the_declared_spec(tmp_path: Path):
    pytest.importorskip("tensorflow_datasets")  # the [validate] extra installs it
    script = tmp_path / "tfds_loaders.py"
    script.write_text(TFDS)
    report = validate(script, RunSpec(replicas=2, device="cpu", synthetic_data=True, timeout=300), compare=False)
    assert report.variants["original"].checks[0].result == "pass", report.table() + "\n".join(report.variants["original"].output)
    assert "tfds reads synthetic data" in report.variants["original"].output[0]
