"""``--synthetic-data`` for TensorFlow Datasets: ``tfds.load`` and ``tfds.builder`` read generated
examples of the dataset's declared features instead of downloading it.

When the script imports ``tensorflow_datasets`` (and only then: importing it costs seconds), the
import is completed and tfds' own mock (``tfds.testing.mock_data``) is entered for the rest of
the process: ``download_and_prepare`` does nothing, every split reads ``EXAMPLES_PER_SPLIT``
random examples of the features the dataset's code declares (images of its shape and dtype,
labels within its classes), ``as_supervised`` and ``with_info`` work as usual. The examples are
the same in every process (tfds seeds them), so workers that read unsharded input read the same
examples, as they would on the real data.

tfds leaves ``info.splits`` empty when nothing was generated; scripts read it
(``info.splits["train"].num_examples``), so the splits are declared here: ``train``,
``validation`` and ``test``, each of ``EXAMPLES_PER_SPLIT`` examples.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from typing import Any

EXAMPLES_PER_SPLIT = 1024
DECLARED_SPLITS = ("train", "validation", "test")
_MOCK: list[Any] = []  # the entered mock, kept alive for the process


def _declared_splits(splits_lib: Any, original: Any) -> Any:
    """``DatasetInfo.splits``, or the declared synthetic splits when tfds knows none."""

    def splits(info: Any) -> Any:
        known = original.fget(info)
        if len(known):
            return known
        return splits_lib.SplitDict(
            [
                splits_lib.SplitInfo(name=name, shard_lengths=[EXAMPLES_PER_SPLIT], num_bytes=0)
                for name in DECLARED_SPLITS
            ]
        )

    return property(splits)


def _mock_tfds() -> None:
    """Enter tfds' mock for the rest of the process, with declared splits."""
    if _MOCK:
        return
    from tensorflow_datasets import testing
    from tensorflow_datasets.core import dataset_info
    from tensorflow_datasets.core import splits as splits_lib

    mock = testing.mock_data(num_examples=EXAMPLES_PER_SPLIT)
    mock.__enter__()
    _MOCK.append(mock)
    dataset_info.DatasetInfo.splits = _declared_splits(splits_lib, dataset_info.DatasetInfo.splits)


class _MockAfterImport(importlib.abc.MetaPathFinder):
    """Finds ``tensorflow_datasets`` as usual, and mocks it once its import has run."""

    def find_spec(self, fullname: Any, path: Any = None, target: Any = None) -> Any:
        if fullname != "tensorflow_datasets":
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        load = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            load(module)
            _mock_tfds()

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]  # this spec's loader only
        return spec


def install() -> None:
    """Mock tfds when the script imports it (now, if it is already imported)."""
    if "tensorflow_datasets" in sys.modules:
        _mock_tfds()
    elif importlib.util.find_spec("tensorflow_datasets") is not None:
        sys.meta_path.insert(0, _MockAfterImport())
