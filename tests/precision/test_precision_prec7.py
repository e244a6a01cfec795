"""Regression tests for issue 28, ledger5 (task prec7): per-role checkpoint paths (TFD502) and
strategy steps that run in graph mode (TFD402).

Each test is a minimal program in our own words of a shape found in public code, with the
control that keeps the finding where it is right.
"""

from __future__ import annotations

import textwrap

from fixer.engine import check_source


def _codes(source: str, path: str = "train.py") -> list[str]:
    codes = [f.code for f in check_source(path, textwrap.dedent(source)).findings]
    assert "TFD000" not in codes  # a test program that does not parse proves nothing
    return codes


# TFD502: the chief saves to the real directory, every other worker to its own temporary one ------

_TRAINED = """
    import json
    import os
    import shutil
    import tempfile

    import tensorflow as tf

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile("sgd", "mse")
    model.fit(tf.data.Dataset.range(4), epochs=1)
    role = json.loads(os.environ["TF_CONFIG"])["task"]
    """


def test_other_workers_saving_into_their_own_mkdtemp_in_the_else_branch_is_not_tfd502():
    # The chief writes the platform's model folder; each other worker a folder mkdtemp() just
    # created for it (a name no other process gets), then removes it: no two writers share a path.
    source = _TRAINED + """
    if role["type"] == "chief":
        model.save(os.environ["MODEL_DIR"])
    else:
        scratch = tempfile.mkdtemp()
        model.save(os.path.join(scratch, "model.keras"))
        shutil.rmtree(scratch)
    """
    assert "TFD502" not in _codes(source)


def test_a_path_chosen_per_role_then_saved_once_is_not_tfd502():
    # The path variable is set in both arms of the chief test, one save follows.
    source = _TRAINED + """
    if role["type"] == "chief":
        destination = os.environ["MODEL_DIR"]
    else:
        destination = os.path.join(tempfile.mkdtemp(), "model.keras")
    model.save(destination)
    """
    assert "TFD502" not in _codes(source)


def test_a_temporary_directory_context_is_a_worker_s_own_path():
    source = _TRAINED + """
    if role["type"] == "chief":
        model.save(os.environ["MODEL_DIR"])
    else:
        with tempfile.TemporaryDirectory() as scratch:
            model.save(scratch + "/model.keras")
    """
    assert "TFD502" not in _codes(source)


def test_every_worker_saving_to_one_literal_path_is_still_tfd502():
    # The control: no role test, no per-worker part: the writes race.
    assert "TFD502" in _codes(_TRAINED + """
    model.save("/shared/model.keras")
    """)


def test_the_other_workers_sharing_one_fixed_folder_is_still_tfd502():
    # The else arm runs on every worker but the chief, all into one folder: they still race.
    source = _TRAINED + """
    if role["type"] == "chief":
        model.save(os.environ["MODEL_DIR"])
    else:
        model.save(os.path.join(tempfile.gettempdir(), "model.keras"))
    """
    assert "TFD502" in _codes(source)
