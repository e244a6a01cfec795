"""Issue 28, ledger7a classes 2 and 3 and TFD502's wrong fix (task prec14): a save path made
per worker with the worker's own number, the strategy a local factory returns for the argument
it is called with, and the per-worker path helper on a strategy without a cluster resolver.

Each program is a minimal shape written for this suite; each wrong finding has a control that
stays reported.
"""

from __future__ import annotations

import json
import textwrap

from fixer.config import Config
from fixer.engine import check_source, fix_source
from fixer.notebook import analyse_notebook


def _codes(source: str, path: str = "train.py", select: str = "TFD502") -> list[str]:
    return [f.code for f in check_source(path, textwrap.dedent(source)).findings if f.code == select]


def _lines(source: str, select: str) -> list[int]:
    return [f.line for f in check_source("train.py", textwrap.dedent(source)).findings if f.code == select]


def _messages(source: str, select: str) -> list[str]:
    return [f.message for f in check_source("train.py", textwrap.dedent(source)).findings if f.code == select]


def _fixed(source: str) -> str:
    result = fix_source("train.py", textwrap.dedent(source), unsafe=True)
    return result.fixed_text or textwrap.dedent(source)


_TRAINED = """
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
        model.compile("sgd", "mse")
    model.fit(x, y)
"""


def _worker_script(number: str, save: str) -> str:
    """A worker that puts ``number`` into TF_CONFIG's task index, trains, and runs ``save``."""
    return (
        "import json, os\nimport tensorflow as tf\n\n"
        + number
        + "\nos.environ['TF_CONFIG'] = json.dumps({'cluster': {'worker': ['a:1', 'b:1']},"
        + " 'task': {'type': 'worker', 'index': worker_number}})\n"
        + textwrap.dedent(_TRAINED)
        + save
        + "\n"
    )


# Class 2: a path that carries the worker's own number is per worker ---------------------------


def test_a_path_concatenated_with_the_tf_config_task_index_is_per_worker():
    source = _worker_script("worker_number = 1", "model.save('mymodel' + str(worker_number) + '.keras')")
    assert _codes(source) == []


def test_the_task_index_in_an_f_string_a_format_a_percent_and_a_join_is_per_worker():
    for save in (
        "model.save(f'/tmp/model_{worker_number}.keras')",
        "model.save('/tmp/model_{}.keras'.format(worker_number))",
        "model.save('/tmp/model_%d.keras' % worker_number)",
        "model.save(os.path.join('/tmp', str(worker_number), 'model.keras'))",
    ):
        assert _codes(_worker_script("worker_number = 1", save)) == [], save


def test_a_path_variable_built_from_the_task_index_is_per_worker():
    source = _worker_script("worker_number = 1", "path = '/tmp/mymodel' + str(worker_number)\nmodel.save_weights(path)")
    assert _codes(source) == []


def test_a_task_index_given_through_a_tf_config_dict_variable_is_per_worker():
    source = """
        import json, os
        import tensorflow as tf

        n = int(os.environ.get("N", "0"))
        config = {"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": n}}
        os.environ["TF_CONFIG"] = json.dumps(config)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
            model.compile("sgd", "mse")
        model.fit(x, y)
        model.save("/tmp/out_" + str(n) + ".keras")
        """
    assert _codes(source) == []


def test_a_notebook_sets_the_number_in_one_cell_and_saves_in_a_later_one():
    # Cells join in order: the same binding of the number reaches the TF_CONFIG and the save.
    source = _worker_script("worker_number = 3", "model.save('mymodel' + str(worker_number))")
    assert _codes(source) == []


def test_a_number_read_from_a_worker_number_environment_variable_is_per_worker():
    # A launcher that starts one process per worker gives each its number in the environment.
    source = """
        import os
        import tensorflow as tf

        number = os.environ["WORKER_NUMBER"]
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
            model.compile("sgd", "mse")
        model.fit(x, y)
        model.save("/tmp/mymodel" + number)
        """
    assert _codes(source) == []


def test_control_a_constant_path_every_worker_saves_stays_reported():
    # Not under /tmp: the cluster's hosts `a` and `b` are distinct, and a temporary folder would be
    # each host's own (prec25, ledger9a class 3); `/data` may be a mount they share.
    source = _worker_script("worker_number = 1", "model.save('/data/shared/model.keras')")
    assert _codes(source) == ["TFD502"]


def test_control_a_number_that_is_not_the_task_index_stays_reported():
    # `epochs` is never TF_CONFIG's index: every worker builds the same name from it. (Under a folder
    # the hosts may share: a relative path is each host's own when every task has a host, prec28.)
    source = _worker_script("worker_number = 1\nepochs = 5", "model.save('/data/model_' + str(epochs) + '.keras')")
    assert _codes(source) == ["TFD502"]


def test_control_an_environment_variable_that_is_not_a_worker_number_stays_reported():
    source = """
        import os
        import tensorflow as tf

        out = os.environ["OUTPUT_DIR"]
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
            model.compile("sgd", "mse")
        model.fit(x, y)
        model.save(out + "/model.keras")
        """
    assert _codes(source) == ["TFD502"]


# TFD502's fix: the per-worker helper needs a cluster resolver ----------------------------------

_UNCALLED_FACTORY = """
    import tensorflow as tf

    def make_cluster_strategy():
        return tf.distribute.MultiWorkerMirroredStrategy()

    strategy = {strategy}
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
        model.compile("sgd", "mse")
    model.fit(x, y)
    model.save("/tmp/out/model.keras")
    """


def test_the_helper_is_not_offered_for_a_one_machine_strategy_at_the_save():
    # A MirroredStrategy has no cluster resolver (None, benchmarks/probe_single_machine_cluster_resolver.py):
    # the rewritten save would have raised AttributeError.
    source = _UNCALLED_FACTORY.format(strategy="tf.distribute.MirroredStrategy()")
    assert _codes(source) == ["TFD502"]
    assert "_worker_path" not in _fixed(source)


def test_control_the_helper_is_offered_for_a_multi_worker_strategy_at_the_save():
    source = _UNCALLED_FACTORY.format(strategy="make_cluster_strategy()")
    fixed = _fixed(source)
    assert "_worker_path(" in fixed and "if resolver is None:" in fixed


# Class 3: the strategy a local factory returns for the argument it is called with -------------

# The save is not under /tmp: hosts `a` and `b` are distinct, and a temporary folder would be each
# host's own (prec25, ledger9a class 3), which is not what these tests are about.
_FACTORY = """
    import json, os, sys
    import tensorflow as tf

    cluster = {{"worker": ["a:1", "b:1"]}}
    os.environ["TF_CONFIG"] = json.dumps({{"cluster": cluster, "task": {{"type": "worker", "index": 0}}}})

    def create_strategy(mode="local"):
        print(tf.test.is_built_with_cuda(), tf.config.list_physical_devices("GPU"))
        if mode == "cpu":
            return tf.distribute.OneDeviceStrategy("/cpu:0")
        if mode == "local":
            return tf.distribute.MirroredStrategy()
        if mode == "multi":
            return tf.distribute.MultiWorkerMirroredStrategy()
        raise ValueError(mode)

    data = tf.data.Dataset.range(8)
    strategy = create_strategy({argument})
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
        model.compile("sgd", "mse")
    model.fit(x, y)
    model.save("/data/export/model.keras")
    """


def test_a_factory_called_with_its_single_machine_default_saves_in_one_process():
    source = _FACTORY.format(argument="")
    assert _codes(source, select="TFD502") == []
    assert _codes(source, select="TFD105") == []


def test_a_factory_called_with_a_single_machine_constant():
    source = _FACTORY.format(argument='mode="cpu"')
    assert _codes(source, select="TFD502") == []
    assert _codes(source, select="TFD105") == []


def test_control_a_factory_called_with_the_multi_worker_constant_stays_reported():
    source = _FACTORY.format(argument='"multi"')
    assert _codes(source, select="TFD502") == ["TFD502"]
    assert _codes(source, select="TFD105") == ["TFD105"]


def test_control_a_factory_called_with_an_unknown_mode_stays_reported():
    source = _FACTORY.format(argument="sys.argv[1]")
    assert _codes(source, select="TFD502") == ["TFD502"]
    assert _codes(source, select="TFD105") == ["TFD105"]


def test_a_factory_passed_as_a_value_may_run_with_any_argument():
    # `launch(create_strategy)` may call it with "multi": its multi-worker arm stays possible.
    source = _FACTORY.format(argument="") + "launch(create_strategy)\n"
    assert _codes(source, select="TFD502") == ["TFD502"]


# TFD105 names the earlier op where the reader sees it -------------------------------------------


def test_in_a_notebook_the_earlier_op_is_named_by_cell_and_line():
    cells = [
        "import json, os\nimport tensorflow as tf\n"
        "os.environ['TF_CONFIG'] = json.dumps({'cluster': {'worker': ['a:1', 'b:1']},"
        " 'task': {'type': 'worker', 'index': 0}})\n",
        "print('data')\nx = tf.constant(1)\n",
        "def build():\n    return tf.distribute.MultiWorkerMirroredStrategy()\n\nstrategy = build()\n",
    ]
    notebook = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None} for c in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    result = analyse_notebook("nb.ipynb", json.dumps(notebook), Config(), fix=False, unsafe=False)
    messages = [f.message for f in result.findings if f.code == "TFD105"]
    assert len(messages) == 1 and messages[0].endswith("(TensorFlow already runs at cell 2, line 2)")


def test_in_a_script_the_earlier_op_is_named_by_line():
    source = """
        import tensorflow as tf

        x = tf.constant(1)

        def build():
            return tf.distribute.MultiWorkerMirroredStrategy()

        strategy = build()
        """
    messages = _messages(source, "TFD105")
    assert len(messages) == 1 and "(TensorFlow already runs at line 4)" in messages[0]
