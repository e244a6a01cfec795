"""Regression tests for issue 28 (prec39): ledger14b's class 1, in our own words. A notebook whose
saved output shows a Keras 2 run (a `fit` result printed as a class of TensorFlow's in-tree Keras,
or of the `keras` package outside `keras/src`) states its Keras where nothing else does: `compile()`
after the scope trains the same there (benchmarks/probe_metric_and_string_optimizer_outside_scope.py),
so TFD101 does not lead with the Keras 3 error. The controls keep the finding: a Keras 3 repr, a
printed TensorFlow release alone, an install cell that names TF 2.16+, a repr outside the outputs,
a `.py` file beside the notebook (benchmarks/probe_recorded_keras.py).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from fixer.config import Config
from fixer.engine import check_source
from fixer.notebook import analyse_notebook
from fixer.target import target_for
from fixer.target.report import as_dict

if TYPE_CHECKING:
    from pathlib import Path

_SCOPE = (
    "import tensorflow as tf\n"
    "strategy = tf.distribute.MirroredStrategy()\n"
    "with strategy.scope():\n"
    "    net = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(2)])\n"
)
_COMPILE = "net.compile(loss='mse', optimizer=tf.keras.optimizers.Adam(), metrics=['mae'])"
_FIT = "net.fit(features, labels, epochs=3)"

_IN_TREE = "<tensorflow.python.keras.callbacks.History at 0x7f3a2c1d9e10>"
_PACKAGE_KERAS2 = "<keras.callbacks.History at 0x7f3a2c1d9e10>"
_KERAS3 = "<keras.src.callbacks.history.History at 0x7f3a2c1d9e10>"


def _notebook(path: Path, *cells: tuple[str, str]) -> Path:
    """A notebook of (source, saved plain-text result) cells, at the root of a repository."""
    data = {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "execution_count": number,
                "source": source,
                "outputs": (
                    [
                        {
                            "output_type": "execute_result",
                            "execution_count": number,
                            "metadata": {},
                            "data": {"text/plain": [saved]},
                        }
                    ]
                    if saved
                    else []
                ),
            }
            for number, (source, saved) in enumerate(cells, 1)
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.parent / ".git").mkdir(exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def _codes(notebook: Path) -> list[str]:
    result = analyse_notebook(str(notebook), notebook.read_text(), Config(), fix=False, unsafe=False)
    return [f.code for f in result.findings]


@pytest.mark.parametrize(
    "saved", [_IN_TREE, _PACKAGE_KERAS2, "<class 'tensorflow.python.keras.engine.sequential.Sequential'>"]
)
def test_a_recorded_keras2_run_decides_the_notebooks_keras(tmp_path, saved):
    notebook = _notebook(tmp_path / "lab.ipynb", (_SCOPE, ""), (_COMPILE, ""), (_FIT, saved))
    assert "TFD101" not in _codes(notebook)
    target = target_for(notebook)
    assert target.keras == 2
    assert as_dict(target, tmp_path, None)["keras_reason"].startswith("the notebook's saved output shows a Keras 2 run")


@pytest.mark.parametrize(
    "cells",
    [
        # Keras 3's own reprs: the run was Keras 3.
        [(_SCOPE, ""), (_COMPILE, ""), (_FIT, _KERAS3)],
        # Keras 3 signs beside a Keras 2 one: run on both, says neither.
        [
            (_SCOPE, ""),
            ("net.summary()", 'Model: "sequential"\n dense (Dense)  ? (unbuilt)'),
            (_COMPILE, ""),
            (_FIT, _IN_TREE),
        ],
        # A printed TensorFlow release alone (Kaggle's TF 2.15 image ran Keras 3).
        [("import tensorflow as tf\nprint(tf.__version__)", "2.15.0"), (_SCOPE, ""), (_COMPILE, ""), (_FIT, "")],
        # An install cell naming TF 2.16+ wins over the recorded run.
        [("!pip install tensorflow==2.17.0", ""), (_SCOPE, ""), (_COMPILE, ""), (_FIT, _IN_TREE)],
        # The repr in the cell's source (a comment), not in its output.
        [(_SCOPE, ""), (_COMPILE, ""), (_FIT + f"  # {_IN_TREE}", "")],
    ],
)
def test_controls_keep_the_finding(tmp_path, cells):
    assert "TFD101" in _codes(_notebook(tmp_path / "lab.ipynb", *cells))


def test_a_script_beside_such_a_notebook_is_still_reported(tmp_path):
    _notebook(tmp_path / "lab.ipynb", (_SCOPE, ""), (_COMPILE, ""), (_FIT, _IN_TREE))
    script = tmp_path / "lab.py"
    script.write_text(f"{_SCOPE}{_COMPILE}\n{_FIT}\n")
    assert target_for(script).keras == 3
    assert "TFD101" in [f.code for f in check_source(str(script), script.read_text()).findings]


def test_a_keras_import_follows_the_recorded_keras2_too(tmp_path):
    """`import keras` under TF <= 2.15 is Keras 2: a recorded `keras.engine` class says so."""
    scope = _SCOPE.replace("tf.keras.", "keras.").replace(
        "import tensorflow as tf\n", "import keras\nimport tensorflow as tf\n"
    )
    compile_ = _COMPILE.replace("tf.keras.", "keras.")
    keras2 = "<keras.engine.sequential.Sequential at 0x7f3a2c1d9e10>"
    assert "TFD101" in _codes(_notebook(tmp_path / "a" / "lab.ipynb", (scope, ""), (compile_, ""), (_FIT, _KERAS3)))
    assert "TFD101" not in _codes(_notebook(tmp_path / "b" / "lab.ipynb", (scope, ""), (compile_, ""), (_FIT, keras2)))
