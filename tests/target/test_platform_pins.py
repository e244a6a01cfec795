"""A notebook platform's per-notebook metadata pinning a notebook to the image of its first
publication (`docker_image_pinning_type` "original"): with a date, the notebook runs at most the
newest TensorFlow on PyPI by then (fixer/target/release_dates.py); without one (a kernel id only),
no release can be told: unknown, not the newest."""

from __future__ import annotations

import datetime
import json
from typing import TYPE_CHECKING

from fixer.target import target_for
from fixer.target.release_dates import newest_released_by

if TYPE_CHECKING:
    from pathlib import Path

TRACK_META = """\
track = dict(author_username='someone', course_name='TPUs')

lessons = [dict(topic='flowers on TPU')]

notebooks = [
    dict(
        filename='tpu_tutorial.ipynb',
        lesson_idx=0,
        type='tutorial',
        docker_image_pinning_type='original',
        first_published='2020-06-16',
    ),
    dict(filename='tpu_exercise.ipynb', lesson_idx=0, type='exercise', scriptid=4567890,
         docker_image_pinning_type='original'),
    dict(filename='fresh.ipynb', lesson_idx=1, type='tutorial', docker_image_pinning_type='latest',
         first_published='2020-06-16'),
]
"""

NOTEBOOK = json.dumps(
    {
        "cells": [{"cell_type": "code", "metadata": {}, "source": ["import tensorflow as tf\n"], "outputs": []}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
)


def _track(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    (root / "tpus").mkdir()
    (root / "tpus" / "track_meta.py").write_text(TRACK_META)
    raw = root / "tpus" / "raw"
    raw.mkdir()
    for name in ("tpu_tutorial.ipynb", "tpu_exercise.ipynb", "fresh.ipynb", "unlisted.ipynb"):
        (raw / name).write_text(NOTEBOOK)
    return raw


def test_release_dates_give_the_newest_release_out_by_a_day():
    assert newest_released_by(datetime.date(2020, 6, 16)) == (2, 2)
    assert newest_released_by(datetime.date(2020, 7, 27)) == (2, 3)
    assert newest_released_by(datetime.date(2019, 10, 1)) == (2, 0)
    assert newest_released_by(datetime.date(2016, 1, 1)) is None


def test_a_dated_original_image_pin_gives_the_release_of_that_day(tmp_path: Path):
    target = target_for(_track(tmp_path) / "tpu_tutorial.ipynb")
    assert target.version == (2, 2) and target.keras == 2
    assert not target.has("tensorflow.distribute.TPUStrategy")  # from 2.3: the rename would break there
    assert target.tensorflow_from is not None and "2020-06-16" in target.tensorflow_from.text


def test_an_undated_original_image_pin_is_an_unknown_release(tmp_path: Path):
    target = target_for(_track(tmp_path) / "tpu_exercise.ipynb")
    assert target.version_unknown and not target.assumed


def test_controls_the_latest_image_and_an_unlisted_notebook_keep_the_folders_target(tmp_path: Path):
    raw = _track(tmp_path)
    for name in ("fresh.ipynb", "unlisted.ipynb"):
        assert target_for(raw / name).assumed


def test_a_kaggle_kernel_metadata_file_pins_its_code_file(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    metadata = {"id": "someone/flowers-on-tpu", "code_file": "flowers.ipynb", "docker_image_pinning_type": "original"}
    (tmp_path / "kernel-metadata.json").write_text(json.dumps(metadata))
    (tmp_path / "flowers.ipynb").write_text(NOTEBOOK)
    (tmp_path / "other.ipynb").write_text(NOTEBOOK)
    assert target_for(tmp_path / "flowers.ipynb").version_unknown
    assert not target_for(tmp_path / "flowers.ipynb").assumed
    assert target_for(tmp_path / "other.ipynb").assumed


def test_the_notebooks_own_install_still_wins(tmp_path: Path):
    raw = _track(tmp_path)
    installing = json.loads(NOTEBOOK)
    installing["cells"].insert(
        0, {"cell_type": "code", "metadata": {}, "source": ["!pip install tensorflow==2.4.1\n"], "outputs": []}
    )
    (raw / "tpu_tutorial.ipynb").write_text(json.dumps(installing))
    assert target_for(raw / "tpu_tutorial.ipynb").version == (2, 4)
