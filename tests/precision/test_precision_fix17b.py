"""Regression tests for issue 28 (fix17b), in our own words, each with its control.

- A notebook that printed TF 2.2 in a cell whose recorded run is years after TF 2.3 came out runs
  on a frozen image (fixer/target/frozen_runs.py): 2.2 is its target, and TFD401's rename to a name
  2.2 lacks is not reported. A run before 2.3, or within a year of it, stays a past run: the finding
  stays and the rename is unsafe (tests/precision/test_precision_prec35.py).
- A `.py` file that is the nbconvert export of the executed notebook beside it (its `# In[N]:`
  markers are the notebook's execution counts) inherits that notebook's recorded Keras 2 run
  (fixer/target/notebook_exports.py): TFD101 does not lead with the Keras 3 error. A script with no
  such notebook, or whose markers count another run, keeps the finding.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from fixer.config import Config
from fixer.engine import check_source
from fixer.notebook import analyse_notebook
from fixer.target.frozen_runs import frozen_note
from fixer.target.model import target_for
from fixer.target.notebook_exports import export_markers
from fixer.types import Applicability

if TYPE_CHECKING:
    from pathlib import Path

_TPU_CELL = (
    "import tensorflow as tf\n"
    "resolver = tf.distribute.cluster_resolver.TPUClusterResolver()\n"
    "strategy = tf.distribute.experimental.TPUStrategy(resolver)\n"
)


def _cell(source: str, shown: str = "", count: int | None = 1, metadata: dict[str, object] | None = None) -> dict:
    outputs = [{"output_type": "stream", "name": "stdout", "text": [shown]}] if shown else []
    return {
        "cell_type": "code",
        "metadata": metadata or {},
        "execution_count": count,
        "source": source,
        "outputs": outputs,
    }


def _write(path: Path, *cells: dict) -> str:
    text = json.dumps({"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.parent / ".git").mkdir(exist_ok=True)
    path.write_text(text)
    return text


def _jupyter_timing(day: str) -> dict[str, object]:
    """Cell metadata as JupyterLab's record-timing and Kaggle write it."""
    return {"execution": {"iopub.execute_input": f"{day}T17:14:40.310276Z", "shell.execute_reply": f"{day}T17:14:41Z"}}


def _papermill_timing(day: str) -> dict[str, object]:
    return {"papermill": {"start_time": f"{day}T09:00:00.1Z", "end_time": f"{day}T09:00:01.2Z", "status": "completed"}}


def _tfd401(path: Path, text: str) -> list:
    result = analyse_notebook(str(path), text, Config(), fix=False, unsafe=False)
    return [f for f in result.findings if f.code == "TFD401"]


# -- a printed release run long after the next one: a frozen image, the notebook's target -----------


@pytest.mark.parametrize("timing", [_jupyter_timing, _papermill_timing])
def test_printed_release_run_years_after_the_next_one_is_the_target(tmp_path: Path, timing) -> None:
    path = tmp_path / "cyclegan.ipynb"
    version = _cell("print(tf.__version__)", "2.2.0\n", metadata=timing("2025-11-28"))
    text = _write(path, version, _cell(_TPU_CELL, count=2))
    assert _tfd401(path, text) == []  # TF 2.2 has only the experimental name
    target = target_for(path)
    assert target.version == (2, 2)
    assert target.keras == 2
    assert target.tensorflow_from is not None and "TF 2.3 out since 2020-07-27" in target.tensorflow_from.text


@pytest.mark.parametrize("day", ["2020-06-20", "2021-03-01", None])
def test_printed_release_run_before_or_soon_after_the_next_one_stays_a_past_run(tmp_path: Path, day) -> None:
    # Before TF 2.3, within a year of it (an image may lag a release), or no run date: a past run.
    path = tmp_path / "cyclegan.ipynb"
    version = _cell("print(tf.__version__)", "2.2.0\n", metadata=_jupyter_timing(day) if day else None)
    (finding,) = _tfd401(path, _write(path, version, _cell(_TPU_CELL, count=2)))
    assert finding.fix is not None and finding.fix.applicability is Applicability.UNSAFE
    assert "saved output shows TF 2.2" in finding.message
    assert target_for(path).assumed


def test_frozen_note_needs_the_printing_cells_own_date() -> None:
    assert frozen_note((2, 2), _cell("", metadata=_jupyter_timing("2021-07-27"))) is not None
    assert frozen_note((2, 2), _cell("", metadata=_jupyter_timing("2021-07-26"))) is None
    assert frozen_note((2, 21), _cell("", metadata=_jupyter_timing("2026-11-20"))) is None  # no newer release known
    assert frozen_note((2, 2), _cell("", metadata={"execution": {"iopub.execute_input": "yesterday"}})) is None


# -- an nbconvert export of an executed notebook: the notebook's recorded Keras -----------------------

_SCOPE = (
    "import tensorflow as tf\n"
    "strategy = tf.distribute.MirroredStrategy()\n"
    "with strategy.scope():\n"
    "    net = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(2)])\n"
)
_COMPILE = "net.compile(loss='mse', optimizer=tf.keras.optimizers.Adam(), metrics=['mae'])"
_FIT = "net.fit(features, labels, epochs=3)"
_IN_TREE = "<tensorflow.python.keras.callbacks.History at 0x7f3a2c1d9e10>"


def _lab(folder: Path, counts: tuple[int, int, int]) -> None:
    """An executed lab notebook whose `fit` result shows TensorFlow's in-tree Keras 2."""
    fit = _cell(_FIT, count=counts[2])
    fit["outputs"] = [
        {
            "output_type": "execute_result",
            "execution_count": counts[2],
            "metadata": {},
            "data": {"text/plain": [_IN_TREE]},
        }
    ]
    _write(folder / "lab.ipynb", _cell(_SCOPE, count=counts[0]), _cell(_COMPILE, count=counts[1]), fit)


def _export(counts: tuple[int | None, ...]) -> str:
    """The script nbconvert writes for the three cells, numbered ``counts``."""
    marks = [f"# In[{count if count is not None else ' '}]:" for count in counts]
    body = "\n\n\n".join(f"{mark}\n\n\n{source}" for mark, source in zip(marks, (_SCOPE, _COMPILE, _FIT), strict=True))
    return f"#!/usr/bin/env python\n# coding: utf-8\n\n{body}\n"


def _tfd101(path: Path, source: str) -> bool:
    path.write_text(source)
    return "TFD101" in [f.code for f in check_source(str(path), source).findings]


def test_an_export_inherits_its_notebooks_recorded_keras2(tmp_path: Path) -> None:
    _lab(tmp_path, (1, 2, 3))
    assert not _tfd101(tmp_path / "lab.py", _export((1, 2, 3)))
    assert target_for(tmp_path / "lab.py").keras == 2


@pytest.mark.parametrize(
    ("name", "counts"),
    [
        ("other.py", (1, 2, 3)),  # no notebook of its stem
        ("lab.py", (4, 5, 6)),  # another run's counters
        ("lab.py", (None, None, None)),  # an export of the notebook before it ran
    ],
)
def test_a_script_without_its_executed_notebook_keeps_the_finding(tmp_path: Path, name: str, counts) -> None:
    _lab(tmp_path, (1, 2, 3))
    assert _tfd101(tmp_path / name, _export(counts))


def test_export_markers_read_blank_counts() -> None:
    assert export_markers("# In[1]:\nx = 1\n# In[ ]:\ny = 2\n#  In[3]: not a marker\n") == (1, None)


# -- a library's table of supported frameworks; a setup.py list nothing reads ------------------------

_SETUP = (
    "import setuptools\n"
    "FRAMEWORKS = ['tensorflow', 'pytorch', 'mxnet']\n"
    "REQUIRED = ['numpy>=1.16', 'packaging']\n"
    "setuptools.setup(name='hooks', install_requires=REQUIRED)\n"
)
_SUPPORT_TABLE = (
    "# hooks\n\n"
    "| Framework | Versions |\n"
    "| --- | --- |\n"
    "| [TensorFlow](docs/tensorflow.md) | 1.14, 1.15, 2.1.0, 2.2.0, 2.3.1 |\n"
    "| [PyTorch](docs/pytorch.md) | 1.5, 1.6 |\n"
)
_TRAINING = f"{_SCOPE}{_COMPILE}\n{_FIT}\n"


def _library(root: Path, readme: str, setup: str = _SETUP) -> Path:
    (root / ".git").mkdir(parents=True)
    (root / "setup.py").write_text(setup)
    (root / "README.md").write_text(readme)
    (root / "tests").mkdir()
    return root / "tests" / "test_mirrored.py"


def test_a_supported_frameworks_table_states_the_librarys_releases(tmp_path: Path) -> None:
    script = _library(tmp_path, _SUPPORT_TABLE)
    assert not _tfd101(script, _TRAINING)  # TF 2.1 to 2.3: Keras 2, where this trains
    target = target_for(script)
    assert target.version == (2, 1)
    assert target.keras == 2


@pytest.mark.parametrize(
    "readme",
    [
        _SUPPORT_TABLE.replace("| Framework | Versions |", "| Library | Versions |"),  # not a table of frameworks
        _SUPPORT_TABLE.replace("1.14, 1.15, 2.1.0, 2.2.0, 2.3.1", "2.1.0 and later"),  # not a list of releases
        _SUPPORT_TABLE.replace("1.14, 1.15, 2.1.0, 2.2.0, 2.3.1", "1.14, 1.15"),  # TensorFlow 1 only
        _SUPPORT_TABLE.replace("[TensorFlow](docs/tensorflow.md)", "TensorFlow Probability"),
    ],
)
def test_other_readme_tables_state_nothing(tmp_path: Path, readme: str) -> None:
    script = _library(tmp_path, readme)
    assert _tfd101(script, _TRAINING)
    assert target_for(script).assumed


def test_a_setup_list_nothing_reads_is_no_requirement(tmp_path: Path) -> None:
    script = _library(tmp_path, "# hooks\n")
    assert target_for(script).assumed  # FRAMEWORKS is never read: `tensorflow` there installs nothing
    used = _SETUP.replace(
        "install_requires=REQUIRED", "install_requires=REQUIRED, extras_require={'tf': FRAMEWORKS[:1]}"
    )
    (tmp_path / "setup.py").write_text(used)
    target = target_for(script)
    assert not target.assumed
    assert target.tensorflow_from is not None and target.tensorflow_from.path.endswith("setup.py")


@pytest.mark.parametrize(
    "setup",
    [
        "FRAMEWORKS = ['tensorflow>=2.4']\n",  # no setup() call: a fragment another file reads
        "import setuptools\nFRAMEWORKS = ['tensorflow>=2.4']\nsetuptools.setup(**locals())\n",  # names not told
    ],
)
def test_a_setup_value_that_may_be_read_stays_a_requirement(tmp_path: Path, setup: str) -> None:
    script = _library(tmp_path, "# hooks\n", setup)
    assert target_for(script).version == (2, 21)
    assert not target_for(script).assumed
