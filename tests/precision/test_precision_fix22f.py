"""Regression tests for issue 28 (task fix22f): a notebook states its TensorFlow when its headings and
its saved output agree.

A course notebook titled for one release whose saved output prints that release was written for it
and ran on it: that release is its target, as a pin would be (renames, Keras 2/3 premises). A heading
alone may be aspirational, an output alone is a past run (the kernel may hold any TF 2 today), and
the two disagreeing say nothing: those keep today's reading. The notebooks are ours, of the shape of
a public course's `%%px` MNIST lessons (TF 2.3: the experimental MultiWorkerMirroredStrategy is its
only one, codemods/api/renamed_distribute_api.py; tf.keras is Keras 2 before 2.16).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from fixer.config import Config
from fixer.notebook import analyse_notebook
from fixer.notebook_cells import code_cells
from fixer.target import target_for
from fixer.target.notebook_title import stated_release
from fixer.target.readme_title import title_statements
from tests.project_trees import tree

if TYPE_CHECKING:
    from pathlib import Path

_IMPORT = "import tensorflow as tf\nprint(tf.__version__)"
_TRAIN = """strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
    model.compile(optimizer="sgd", loss="mse")
model.fit(tf.zeros([8, 4]), tf.zeros([8, 10]), epochs=1)"""


def _markdown(source: str) -> dict[str, object]:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def _code(source: str, printed: str | None = None) -> dict[str, object]:
    outputs = [{"output_type": "stream", "name": "stdout", "text": [printed + "\n"]}] if printed else []
    return {"cell_type": "code", "metadata": {}, "source": source, "outputs": outputs, "execution_count": 1}


def _json(cells: list[dict[str, object]]) -> str:
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4})


def _lesson(heading: str | None, printed: str | None) -> str:
    """A lesson notebook: an optional title cell, an import cell printing the version, a training cell."""
    cells = [_markdown(heading)] if heading else []
    return _json([*cells, _code(_IMPORT, printed), _markdown("### Model"), _code(_TRAIN)])


def _stated(text: str) -> tuple[int, int] | None:
    data = json.loads(text)
    found = stated_release(data, code_cells(data), "lesson.ipynb")
    return found.allowed.newest() if found is not None else None


def _codes(tmp_path: Path, text: str) -> list[str]:
    root = tree(tmp_path, {"lessons/lesson.ipynb": text})
    path = root / "lessons/lesson.ipynb"
    return sorted(f.code for f in analyse_notebook(str(path), text, Config(), fix=False, unsafe=False).findings)


# --- Headings and output agreeing: the release is the notebook's target -----------------------------


@pytest.mark.parametrize(
    "heading",
    [
        "# MNIST across workers with TensorFlow-2.3",
        "# MNIST across workers with TensorFlow 2.3",
        "## Distributed MNIST (TF 2.3)",
        "# tf2.3: distributed MNIST",
        "Distributed MNIST on TensorFlow v2.3\n===",
        "**Distributed MNIST, TF 2.3 edition**",  # the first line of a title cell, not a heading
    ],
)
def test_a_heading_and_a_saved_output_agreeing_state_the_release(heading):
    assert _stated(_lesson(heading, "2.3.0")) == (2, 3)


def test_the_stated_release_is_the_notebooks_target(tmp_path):
    text = _lesson("# MNIST across workers with TensorFlow-2.3", "2.3.0")
    root = tree(tmp_path, {"lessons/lesson.ipynb": text})
    target = target_for(root / "lessons/lesson.ipynb")
    assert target.tensorflow_from is not None
    assert target.tensorflow_from.allowed.newest() == (2, 3)


def test_on_the_stated_release_the_experimental_strategy_and_keras_2_fit_are_not_reported(tmp_path):
    # TFD401 (the experimental MWMS is 2.3's only one) and TFD504 (Keras 3's fit under MWMS) are silent.
    assert _codes(tmp_path, _lesson("# MNIST across workers with TensorFlow-2.3", "2.3.0")) == []


def test_an_install_cell_still_decides_over_the_title(tmp_path):
    # What the notebook installs is what its kernel runs: the title and output are older news.
    text = _json(
        [
            _markdown("# MNIST across workers with TensorFlow-2.3"),
            _code("!pip install tensorflow==2.15.0"),
            _code(_IMPORT, "2.3.0"),
            _code(_TRAIN),
        ]
    )
    root = tree(tmp_path, {"lessons/lesson.ipynb": text})
    target = target_for(root / "lessons/lesson.ipynb")
    assert target.tensorflow_from is not None
    assert target.tensorflow_from.allowed.newest() == (2, 15)


# --- Controls: one statement alone, or the two disagreeing, keep today's reading --------------------


@pytest.mark.parametrize(
    ("heading", "printed"),
    [
        ("# MNIST across workers with TensorFlow-2.3", None),  # a heading alone
        (None, "2.3.0"),  # a saved output alone: a past run
        ("# MNIST across workers with TensorFlow-2.3", "2.4.1"),  # disagreeing
        ("# Moving from TF 1.15 to TF 2.3", "2.3.0"),  # a heading naming two releases names none
        ("Distributed MNIST.\n\nWritten for TensorFlow 2.3.", "2.3.0"),  # prose, not a title line
    ],
)
def test_one_statement_alone_states_nothing(tmp_path, heading, printed):
    text = _lesson(heading, printed)
    assert _stated(text) is None
    assert "TFD401" in _codes(tmp_path, text)


def test_headings_naming_different_releases_state_nothing():
    text = _json(
        [
            _markdown("# MNIST with TensorFlow 2.3"),
            _code(_IMPORT, "2.3.0"),
            _markdown("## What changes in TensorFlow 2.4"),
            _code(_TRAIN),
        ]
    )
    assert _stated(text) is None


def test_outputs_printing_different_releases_state_nothing():
    # A notebook rerun in part on another kernel: its outputs do not agree with each other.
    text = _json(
        [
            _markdown("# MNIST with TensorFlow 2.3"),
            _code(_IMPORT, "2.3.0"),
            _code("print(tf.version.VERSION)", "2.4.1"),
            _code(_TRAIN),
        ]
    )
    assert _stated(text) is None


def test_a_readme_title_still_spells_tensorflow_out():
    # The abbreviated `TF 2.3` is read only where a saved output confirms it, not in a README's title.
    assert title_statements("# Distributed MNIST in TF 2.3\n", "README.md") == []
    assert [e.allowed.newest() for e in title_statements("# Distributed MNIST in TensorFlow 2.3\n", "README.md")] == [
        (2, 3)
    ]
