"""Regression tests for issue 28, blind round ledger19b (task prec20): a frozen `-py3` Docker tag
of the official image, a Dockerfile pin through its own `ENV`/`ARG` variable, a notebook
restarted where its saved execution counts start over, a script a notebook launches.

Each test is a minimal project in our own words of a shape found in public code, with the
control that keeps today's reading where it is right. Premises: benchmarks/probe_ledger19b_premises.py
and the sources cited in fixer/target/versions.py (LAST_PY3_TAG_RELEASE).
"""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING

import pytest

from fixer.config import Config
from fixer.notebook import analyse_notebook
from fixer.target import target_for
from fixer.target.sources import image_tensorflow, read_dockerfile

if TYPE_CHECKING:
    from pathlib import Path


def _project(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True)  # the repository root: the walk stops here
    past = time.time() - 60  # older than the cache's "racily clean" window
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
        os.utime(root / name, (past, past))
    return root


_TRAIN = "import tensorflow as tf\nstrategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()\n"

# --- 1. The official image's `-py3` tags end at TensorFlow 2.1.0 ------------------------------


@pytest.mark.parametrize(
    "tag",
    ["latest-py3", "latest-py3-jupyter", "latest-gpu-py3", "latest-gpu-py3-jupyter", "devel-gpu-py3"],
)
def test_an_unversioned_py3_tag_is_the_last_py3_release(tag):
    assert image_tensorflow(f"tensorflow/tensorflow:{tag}") == (2, 1)


def test_a_versioned_py3_tag_and_a_tag_without_py3_keep_their_reading():
    # The control: a version in the tag is that version; `latest` without `-py3` is still pushed.
    assert image_tensorflow("tensorflow/tensorflow:2.0.0-py3") == (2, 0)
    assert image_tensorflow("tensorflow/tensorflow:latest-gpu-jupyter") == (2, 21)
    assert image_tensorflow("tensorflow/tensorflow:nightly-py3") == (2, 21)  # undated: unchanged


def test_a_compose_service_on_latest_py3_runs_the_notebook_beside_it_on_2_1(tmp_path):
    compose = (
        "version: '3'\nservices:\n  worker1:\n    image: tensorflow/tensorflow:latest-py3-jupyter\n"
        "    ports: ['8888:8888']\n"
    )
    root = _project(tmp_path, {"multiworker/docker-compose.yml": compose, "multiworker/train.py": _TRAIN})
    target = target_for(root / "multiworker" / "train.py")
    assert target.version == (2, 1) and target.keras == 2 and not target.assumed


def test_a_compose_service_on_latest_gpu_jupyter_is_still_an_open_release(tmp_path):
    # The control: the tag that is still pushed names whichever release is newest.
    compose = "services:\n  worker1:\n    image: tensorflow/tensorflow:latest-gpu-jupyter\n"
    root = _project(tmp_path, {"docker-compose.yml": compose, "train.py": _TRAIN})
    assert target_for(root / "train.py").version == (2, 21)


# --- 3. A Dockerfile's pin through its own ENV / ARG variable -----------------------------------


@pytest.mark.parametrize(
    "declared, install",
    [
        ("ENV TF_VERSION=2.5.0", "RUN pip3 install tensorflow==${TF_VERSION}"),
        ("ENV TF_VERSION 2.5.0", "RUN pip install --no-cache-dir tensorflow-gpu==$TF_VERSION"),
        ('ARG TF_VERSION="2.5.0"', "RUN python -m pip install 'tensorflow==${TF_VERSION}' numpy"),
    ],
)
def test_a_pin_through_a_dockerfile_variable_is_that_release(declared, install):
    text = f"FROM nvidia/cuda:11.2.2-cudnn8-runtime-ubuntu20.04\n{declared}\n{install}\n"
    assert {e.allowed.newest()[:2] for e in read_dockerfile(text, "Dockerfile") if e.kind == "tensorflow"} == {(2, 5)}


def test_a_variable_declared_below_or_never_is_no_pin():
    # The control: Docker substitutes only what is declared above; an unknown value says nothing.
    below = "FROM ubuntu:20.04\nRUN pip install tensorflow==${TF_VERSION}\nENV TF_VERSION=2.5.0\n"
    never = "FROM ubuntu:20.04\nRUN pip install tensorflow==${TF_VERSION}\n"
    assert read_dockerfile(below, "Dockerfile") == [] and read_dockerfile(never, "Dockerfile") == []


def test_the_base_image_dockerfile_decides_the_job_script_beside_it(tmp_path):
    dockerfile = "FROM ubuntu:20.04\nENV TF_VERSION=2.5.0\nRUN pip3 install tensorflow==${TF_VERSION}\n"
    root = _project(tmp_path, {"references/Dockerfile": dockerfile, "references/src/main.py": _TRAIN})
    target = target_for(root / "references" / "src" / "main.py")
    assert target.version == (2, 5) and target.keras == 2


# --- 5. A notebook restarted where its saved execution counts start over ------------------------

_SESSION_ONE = [
    "import tensorflow as tf\nprint(tf.reduce_sum(tf.ones([3])))\n",
    "strategy = tf.distribute.MirroredStrategy()\nprint(strategy.num_replicas_in_sync)\n",
]
_SESSION_TWO = [
    "import tensorflow as tf\n",
    (
        'gpus = tf.config.list_physical_devices("GPU")\n'
        "try:\n"
        "    tf.config.set_logical_device_configuration(gpus[0], [tf.config.LogicalDeviceConfiguration(512)] * 4)\n"
        "except RuntimeError as e:\n"
        "    print(e)\n"
    ),
    "strategy = tf.distribute.MirroredStrategy()\n",
]


def _codes(tmp_path: Path, counts: list[int | None]) -> list[str]:
    cells = [
        {"cell_type": "code", "execution_count": count, "metadata": {}, "outputs": [], "source": source}
        for source, count in zip(_SESSION_ONE + _SESSION_TWO, counts, strict=True)
    ]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4})
    root = _project(tmp_path, {"two_sessions.ipynb": text})
    result = analyse_notebook(str(root / "two_sessions.ipynb"), text, Config(), fix=False, unsafe=False)
    return [f.code for f in result.findings]


def test_device_configuration_after_the_counts_start_over_is_a_new_kernel(tmp_path):
    # Counts 1, 7 then 1, 2, 3: the third cell was the first a new kernel ran.
    assert "TFD111" not in _codes(tmp_path, [1, 7, 1, 2, 3])


def test_a_notebook_without_counts_or_run_straight_on_keeps_tfd111(tmp_path):
    # The controls: no counts say nothing; counts running on (3) are one kernel session.
    assert "TFD111" in _codes(tmp_path / "unrun", [None, None, None, None, None])
    assert "TFD111" in _codes(tmp_path / "straight", [1, 2, 3, 4, 5])


def test_a_later_cell_counted_1_again_is_no_clean_session_start(tmp_path):
    # The control: a later cell also at 1 means the kernel was restarted again below; the
    # configuration's session is not shown to start at the re-import.
    assert "TFD111" in _codes(tmp_path, [1, 7, 1, 2, 1])


# --- 2. A script the notebook of its folder launches runs in that notebook's environment --------

_MAIN = (
    "import tensorflow as tf\n"
    "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n"
    "with strategy.scope():\n"
    "    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
    "    model.compile(loss='mse')\n"
)


_TRAINED = {"output_type": "stream", "name": "stdout", "text": ["Epoch 1/3\n20/20 - loss: 2.21\n"]}


def _launcher(source: str, launch_output: list[dict[str, object]] | None = None) -> str:
    cells = [
        {
            "cell_type": "code",
            "execution_count": 1,
            "metadata": {},
            "outputs": [
                {"output_type": "execute_result", "data": {"text/plain": ["<keras.callbacks.History at 0x7f>"]}}
            ],
            "source": "model.fit(x, y)\n",
        },
        {
            "cell_type": "code",
            "execution_count": 2,
            "metadata": {},
            "outputs": [_TRAINED] if launch_output is None else launch_output,
            "source": source,
        },
    ]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4})


@pytest.mark.parametrize("launch", ["%%bash\npython main.py\n", "!python3 ./main.py --epochs 3\n", "%run main.py\n"])
def test_a_script_the_notebook_launches_takes_its_recorded_keras(tmp_path, launch):
    root = _project(tmp_path, {"run.ipynb": _launcher(launch), "main.py": _MAIN})
    target = target_for(root / "main.py")
    assert target.keras == 2 and target.recorded_keras_from is not None


def test_a_script_the_notebook_does_not_launch_keeps_todays_keras(tmp_path):
    # The control: the notebook runs another script; main.py runs wherever it is run.
    root = _project(tmp_path, {"run.ipynb": _launcher("!python other.py\n"), "main.py": _MAIN, "other.py": ""})
    assert target_for(root / "main.py").keras == 3


def test_a_background_launch_that_saved_no_output_records_nothing_of_the_script(tmp_path):
    # The control: `%%bash --bg` sends the run elsewhere; the notebook's Keras 2 is its own cells'.
    root = _project(tmp_path, {"run.ipynb": _launcher("%%bash --bg\npython main.py\n", []), "main.py": _MAIN})
    assert target_for(root / "main.py").keras == 3


# --- 4. A recorded Keras 2 run that went through a cross-replica metric update -------------------

_HISTORY = {"output_type": "execute_result", "data": {"text/plain": ["<keras.callbacks.History at 0x7f>"]}}
_PRINTED = {"output_type": "stream", "name": "stdout", "text": ["Epoch 1 Loss: 0.31\n"]}
_RAISED = {"output_type": "error", "ename": "ValueError", "evalue": "SyncOnReadVariable", "traceback": []}
_LOOP_CELLS = [
    (
        "import tensorflow as tf\n"
        "strategy = tf.distribute.MirroredStrategy()\n"
        "with strategy.scope():\n"
        "    train_loss = tf.keras.metrics.Mean()\n"
    ),
    "model.fit(x, y)\n",
    (
        "for x in batches:\n"
        "    train_loss.update_state(strategy.reduce('SUM', step(x), axis=None))\n"
        "print(train_loss.result())\n"
    ),
]


def _loop_codes(root: Path, loop_output: dict[str, object], files: dict[str, str] | None = None) -> list[str]:
    outputs: list[list[dict[str, object]]] = [[], [_HISTORY], [loop_output]]
    cells = [
        {"cell_type": "code", "execution_count": n, "metadata": {}, "outputs": out, "source": source}
        for n, (source, out) in enumerate(zip(_LOOP_CELLS, outputs, strict=True), start=1)
    ]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4})
    _project(root, {"loop.ipynb": text, **(files or {})})
    result = analyse_notebook(str(root / "loop.ipynb"), text, Config(), fix=False, unsafe=False)
    return [f.code for f in result.findings]


def test_a_recorded_keras2_run_that_printed_the_metric_is_not_reported(tmp_path):
    assert "TFD114" not in _loop_codes(tmp_path, _PRINTED)


def test_a_recorded_run_that_raised_there_or_a_pinned_release_keeps_tfd114(tmp_path):
    # The controls: the saved error is the rule's claim; a pin (2.15, tf.keras is Keras 2) is
    # where the notebook runs, whatever a past run did.
    assert "TFD114" in _loop_codes(tmp_path / "raised", _RAISED)
    pinned = _loop_codes(tmp_path / "pinned", _PRINTED, {"requirements.txt": "tensorflow==2.15.1\n"})
    assert "TFD114" in pinned
