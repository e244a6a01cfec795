"""A notebook that a platform runs in the image of its first publication
(`docker_image_pinning_type` "original" in a course's `track_meta.py` or Kaggle's
`kernel-metadata.json`): that frozen image may hold any release up to the newest of its day, so

- TFD401 reports no rename to a name some releases lack (`tf.distribute.TPUStrategy` is from
  2.3), dated pin or not: the image never moves, so the old name keeps working where the
  notebook runs, and the new one may not exist there (prec27; it was advice before);
- TFD101 does not report a `compile("adam")` after the scope its model was built in when the
  pin has no date: Keras 2 trains it the same, only Keras 3 raises, and nothing says which Keras
  the image has (benchmarks/probe_metric_and_string_optimizer_outside_scope.py).

Controls: the same notebook with no pin, or with its own install of a recent TensorFlow, keeps
the safe rename and the finding."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from fixer.config import Config
from fixer.notebook import analyse_notebook
from fixer.types import Applicability

if TYPE_CHECKING:
    from pathlib import Path

    from fixer.types import Finding

TPU_CELLS = (
    "import tensorflow as tf\n",
    "resolver = tf.distribute.cluster_resolver.TPUClusterResolver()\n"
    "tf.tpu.experimental.initialize_tpu_system(resolver)\n"
    "strategy = tf.distribute.experimental.TPUStrategy(resolver)\n",
    "with strategy.scope():\n    model = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(2)])\n",
    "model.compile(optimizer='adam', loss='mse')\n",
    "model.fit(features, labels, epochs=3)\n",
)
INSTALL_CELL = "!pip install -q tensorflow==2.15.1\n"


def _notebook(cells: tuple[str, ...]) -> str:
    return json.dumps(
        {
            "cells": [
                {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c}
                for c in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


def _course(root: Path, entry: str) -> Path:
    """A course repository whose `track_meta.py` lists ``entry`` for `lesson/raw/tpus.ipynb`."""
    (root / ".git").mkdir(parents=True)
    lesson = root / "lesson"
    (lesson / "raw").mkdir(parents=True)
    (lesson / "track_meta.py").write_text(
        "track = dict(author_username='teacher', course_name='Accelerators')\n"
        f"notebooks = [\n    dict(filename='tpus.ipynb', lesson_idx=0, type='tutorial', {entry}),\n]\n"
    )
    return lesson / "raw" / "tpus.ipynb"


def _findings(path: Path, cells: tuple[str, ...] = TPU_CELLS, code: str = "TFD401") -> list[Finding]:
    text = _notebook(cells)
    path.write_text(text)
    result = analyse_notebook(str(path), text, Config(select=(code,)), fix=False, unsafe=False)
    return [f for f in result.findings if f.code == code]


def test_an_undated_original_image_pin_gets_no_rename(tmp_path: Path):
    notebook = _course(tmp_path, "scriptid=4711, docker_image_pinning_type='original'")
    assert _findings(notebook) == []


def test_a_kaggle_kernel_pinned_to_its_original_image_gets_none_either(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    metadata = {"id": "teacher/tpus", "code_file": "tpus.ipynb", "docker_image_pinning_type": "original"}
    (tmp_path / "kernel-metadata.json").write_text(json.dumps(metadata))
    assert _findings(tmp_path / "tpus.ipynb") == []


def test_a_dated_pin_is_an_upper_bound_so_no_rename_either(tmp_path: Path):
    # Dated 2021-03-01: 2.4 at newest, but a platform image of that day may still hold 2.2.
    notebook = _course(tmp_path, "docker_image_pinning_type='original', first_published='2021-03-01'")
    assert _findings(notebook) == []


def test_a_strategy_method_rename_under_an_undated_pin_is_not_reported(tmp_path: Path):
    notebook = _course(tmp_path, "docker_image_pinning_type='original'")
    cells = (
        "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\n",
        "strategy.experimental_run_v2(step, args=(batch,))\n",
    )
    assert _findings(notebook, cells) == []


def test_the_experimental_collective_names_under_an_undated_pin_are_not_reported(tmp_path: Path):
    notebook = _course(tmp_path, "docker_image_pinning_type='original'")
    cells = (
        "import tensorflow as tf\n",
        "strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy(\n"
        "    tf.distribute.experimental.CollectiveCommunication.RING)\n",
    )
    assert _findings(notebook, cells) == []


def test_control_an_unpinned_notebook_keeps_the_safe_rename(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    (finding,) = _findings(tmp_path / "tpus.ipynb")
    assert finding.fix is not None and finding.fix.applicability is Applicability.SAFE
    assert "platform image" not in finding.message


def test_control_the_notebooks_own_modern_install_keeps_the_safe_rename(tmp_path: Path):
    notebook = _course(tmp_path, "docker_image_pinning_type='original'")
    (finding,) = _findings(notebook, (INSTALL_CELL, *TPU_CELLS))
    assert finding.fix is not None and finding.fix.applicability is Applicability.SAFE


def test_control_a_latest_image_pin_keeps_the_safe_rename(tmp_path: Path):
    notebook = _course(tmp_path, "docker_image_pinning_type='latest'")
    (finding,) = _findings(notebook)
    assert finding.fix is not None and finding.fix.applicability is Applicability.SAFE


def test_compile_after_the_scope_under_an_undated_pin_is_not_reported(tmp_path: Path):
    notebook = _course(tmp_path, "docker_image_pinning_type='original'")
    assert _findings(notebook, code="TFD101") == []


def test_control_compile_after_the_scope_without_a_pin_tells_both_kerases(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    (finding,) = _findings(tmp_path / "tpus.ipynb", code="TFD101")
    assert "Keras 3 `fit` raises" in finding.message and "tf-keras trains the same" in finding.message


def test_control_compile_after_the_scope_on_a_stated_keras_3_is_reported(tmp_path: Path):
    notebook = _course(tmp_path, "docker_image_pinning_type='original'")
    (finding,) = _findings(notebook, ("!pip install -q tensorflow==2.21.0\n", *TPU_CELLS), code="TFD101")
    assert finding.message.startswith("`compile()` runs outside `strategy.scope()`")
