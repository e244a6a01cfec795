"""``--synthetic-data``: the script's data readers return generated data instead of downloading.

- ``keras.datasets.*.load_data()`` return random arrays of the real shapes, in Keras 3, in
  tf-keras and through ``tf.keras`` under ``TF_USE_LEGACY_KERAS=1`` (tf-keras' ``tf.keras`` is
  its own module tree, ``tf_keras.api._v2.keras``: every module holding the loader is patched).
- ``keras.utils.get_file`` (both flavours) never downloads: a file already in the cache is used;
  an archive to unpack (``untar``, Keras 3's ``extract``) becomes a generated image folder; any
  other file is refused as a download ("cannot validate here").
- ``image_dataset_from_directory`` (both flavours) on a folder that is missing or holds no image
  reads a generated folder: two classes of small PNG images.
- ``tfds.load`` and ``tfds.builder`` read generated examples of the dataset's declared features
  (``tfds_data``), when tensorflow-datasets is installed.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import numpy as np

from . import tfds_data
from .state import SETTINGS

_SHAPES = {  # train x, train y, test x, test y, classes
    "mnist": ((60000, 28, 28), (60000,), (10000, 28, 28), (10000,), 10),
    "fashion_mnist": ((60000, 28, 28), (60000,), (10000, 28, 28), (10000,), 10),
    "cifar10": ((50000, 32, 32, 3), (50000, 1), (10000, 32, 32, 3), (10000, 1), 10),
    "cifar100": ((50000, 32, 32, 3), (50000, 1), (10000, 32, 32, 3), (10000, 1), 100),
}
# Keras 3, its `tf.keras` face (without resolving `tf.keras`, which must stay lazy), tf-keras and
# tf-keras' own `tf.keras` tree (what `tf.keras` is under TF_USE_LEGACY_KERAS=1).
_DATASET_ROOTS = (
    "keras.datasets",
    "keras._tf_keras.keras.datasets",
    "tf_keras.datasets",
    "tf_keras.api._v2.keras.datasets",
)
# Where each flavour's get_file and image_dataset_from_directory are reached from; the flag says
# whether that flavour's `extract=True` returns the unpacked folder (Keras 3) or the archive (tf-keras).
_UTILS = (("keras.utils", True), ("tf_keras.utils", False))
_IMAGE_CLASSES = ("class_a", "class_b")
_IMAGES_PER_CLASS = 16
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif")


class DownloadRefused(Exception):
    """``get_file`` was asked for a file that --synthetic-data cannot stand in for (reported as network data)."""


def _replace(name: str, original: object, replacement: object) -> None:
    """Every loaded module that holds ``original`` as ``name`` gets ``replacement`` (the defining one too)."""
    for module in list(sys.modules.values()):
        if getattr(module, "__dict__", {}).get(name) is original:
            setattr(module, name, replacement)


def _loader(shapes: tuple[Any, ...], rng: np.random.Generator) -> Any:
    train_x, train_y, test_x, test_y, classes = shapes

    def load_data(*args: Any, **kwargs: Any) -> Any:
        return (
            (rng.integers(0, 256, train_x, dtype=np.uint8), rng.integers(0, classes, train_y, dtype=np.uint8)),
            (rng.integers(0, 256, test_x, dtype=np.uint8), rng.integers(0, classes, test_y, dtype=np.uint8)),
        )

    return load_data


def _patch_datasets(rng: np.random.Generator) -> None:
    for name, shapes in _SHAPES.items():
        load_data = _loader(shapes, rng)
        for root in _DATASET_ROOTS:
            try:
                module: Any = importlib.import_module(f"{root}.{name}")  # a Keras datasets module
            except ImportError:
                continue
            if module.load_data is not load_data:
                _replace("load_data", module.load_data, load_data)
                module.load_data = load_data


def _synthetic_root() -> str:
    # In the run's copy of the project (removed with it); one folder per process, as the workers
    # of a local run share the copy.
    copy = (SETTINGS.get("path") or [os.getcwd()])[0]
    folder = os.path.join(copy, ".distfix-synthetic", str(os.getpid()))
    os.makedirs(folder, exist_ok=True)
    return folder


def image_folder(name: str) -> str:
    """A generated folder of two classes of small PNG images (the same images on every call)."""
    import tensorflow as tf

    folder = os.path.join(_synthetic_root(), name or "images")
    if os.path.isdir(folder):
        return folder
    rng = np.random.default_rng(0)
    for label in _IMAGE_CLASSES:
        os.makedirs(os.path.join(folder, label))
        for index in range(_IMAGES_PER_CLASS):
            pixels = rng.integers(0, 256, (32, 32, 3), dtype=np.uint8)
            tf.io.write_file(os.path.join(folder, label, f"{index}.png"), tf.io.encode_png(pixels))
    return folder


def _has_images(directory: object) -> bool:
    folder = os.fspath(directory) if isinstance(directory, (str, os.PathLike)) else None
    if not isinstance(folder, str) or not os.path.isdir(folder):  # not a path, or a bytes path
        return False
    return any(f.lower().endswith(_IMAGE_SUFFIXES) for _, _, files in os.walk(folder) for f in files)


def _archive_stem(fname: str | None, origin: str | None) -> str:
    name = os.path.basename(fname or (origin or "").rstrip("/").rsplit("/", 1)[-1] or "download")
    for suffix in (".tar.gz", ".tgz", ".tar.bz2", ".tar", ".zip"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _get_file(original: Any, extract_gives_folder: bool) -> Any:
    def get_file(
        fname: Any = None,
        origin: Any = None,
        *args: Any,
        untar: Any = False,
        extract: Any = False,
        cache_dir: Any = None,
        cache_subdir: Any = "datasets",
        **kwargs: Any,
    ) -> Any:
        base = os.path.expanduser(cache_dir or os.path.join("~", ".keras"))
        cached = os.path.join(base, cache_subdir, fname) if fname else None
        if cached and os.path.exists(cached):  # already there: no download
            return original(
                fname,
                origin,
                *args,
                untar=untar,
                extract=extract,
                cache_dir=cache_dir,
                cache_subdir=cache_subdir,
                **kwargs,
            )
        if untar or (extract and extract_gives_folder):
            return image_folder(_archive_stem(fname, origin))
        raise DownloadRefused(
            f"get_file would download {origin or fname}: --synthetic-data stands in only for archives of images"
        )

    return get_file


def _image_dataset(original: Any) -> Any:
    def image_dataset_from_directory(directory: Any, *args: Any, **kwargs: Any) -> Any:
        if not _has_images(directory):
            directory = image_folder(os.path.basename(os.path.normpath(str(directory))))
        return original(directory, *args, **kwargs)

    return image_dataset_from_directory


def _patch_utils() -> None:
    for root, extract_gives_folder in _UTILS:
        try:
            utils = importlib.import_module(root)
        except ImportError:
            continue
        for name, wrap in (
            ("get_file", lambda f, flag=extract_gives_folder: _get_file(f, flag)),
            ("image_dataset_from_directory", _image_dataset),
        ):
            original = getattr(utils, name, None)
            if original is not None and not getattr(original, "_distfix_synthetic", False):
                replacement = wrap(original)
                replacement._distfix_synthetic = True
                _replace(name, original, replacement)


def patch_datasets() -> None:
    """Make every Keras flavour's data readers return generated data (see the module's docstring)."""
    _patch_datasets(np.random.default_rng(0))
    _patch_utils()
    tfds_data.install()
