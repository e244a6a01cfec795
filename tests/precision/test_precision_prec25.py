"""Issue 28, ledger9a classes 1, 3, 4 and 5 and TFD501's wording (task prec25): a `Sequential`
of weightless layers made outside the scope (TFD101), saves to local paths of a cluster whose
tasks each run on their own host or that only the chief reaches (TFD502), IPython's line escapes
in notebooks (TFD000), and what really repeats when the data are sharded before the shuffle
(TFD501).

Each program is a minimal shape written for this suite; each wrong finding has a control that
stays reported.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from fixer.config import Config
from fixer.engine import check_source
from fixer.magics import mask_cell
from fixer.notebook import analyse_notebook
from fixer.runner import Job, run
from tests.precision.test_precision_prec22 import _TRAINED as _PREC22_TRAINED
from tests.precision.test_precision_prec22 import _tfd502_lines

if TYPE_CHECKING:
    from pathlib import Path

# Class 1: a Sequential of layers with no weights ----------------------------------------------

_AUGMENTED = """\
import tensorflow as tf
from tensorflow.keras import layers

strategy = tf.distribute.MirroredStrategy()
augment = tf.keras.Sequential([{layers}], name="augment")
augment(tf.zeros((1, 32, 32, 3)))
with strategy.scope():
    inputs = layers.Input((32, 32, 3))
    outputs = layers.Dense(3)(layers.GlobalAveragePooling2D()(augment(inputs)))
    model = tf.keras.Model(inputs, outputs)
    model.compile("adam", "mse")
model.fit(x, y)
"""


def _tfd101_lines(source: str) -> list[int]:
    return [f.start.line for f in check_source("train.py", source).findings if f.code == "TFD101"]


@pytest.mark.parametrize(
    "layers",
    [
        "layers.RandomRotation(0.1), layers.RandomTranslation(0.1, 0.1), layers.RandomFlip(), layers.RandomContrast(1)",
        "layers.RandomZoom(0.1), layers.RandomCrop(28, 28)",
        "layers.Rescaling(1 / 255), layers.Resizing(36, 36), layers.CenterCrop(32, 32)",
        "tf.keras.Input((32, 32, 3)), tf.keras.layers.experimental.preprocessing.RandomFlip('horizontal')",
    ],
)
def test_a_sequential_of_weightless_layers_outside_the_scope_is_not_reported(layers):
    assert _tfd101_lines(_AUGMENTED.format(layers=layers)) == []


@pytest.mark.parametrize(
    "layers",
    [
        "layers.RandomFlip(), layers.Dense(3)",
        "layers.Rescaling(1 / 255), layers.Conv2D(8, 3)",
        "layers.RandomFlip(), layers.BatchNormalization()",
        "layers.Normalization()",
        "layers.Embedding(10, 4)",
    ],
)
def test_a_sequential_holding_a_layer_with_weights_stays_reported(layers):
    assert _tfd101_lines(_AUGMENTED.format(layers=layers)) == [5]


def test_a_weightless_sequential_grown_with_a_dense_layer_stays_reported():
    source = _AUGMENTED.format(layers="layers.RandomFlip()").replace(
        "augment(tf.zeros", "augment.add(layers.Dense(3))\naugment(tf.zeros"
    )
    assert _tfd101_lines(source) == [5]


# Class 3: every task of the cluster on a host of its own ---------------------------------------

# prec22's trained MWMS model, with the imports these programs use.
_TRAINED = _PREC22_TRAINED.replace("import argparse\nimport os\n", "import json\nimport os\nimport sys\n")


def _cluster(chief: str, *workers: str) -> str:
    return json.dumps({"cluster": {"chief": [chief], "worker": list(workers)}, "task": {"type": "worker", "index": 0}})


_OWN_HOSTS = _cluster("10.0.0.5:2222", "10.0.0.6:2222", "10.0.0.7:2222")
_ONE_HOST_PORTS = _cluster("10.0.0.5:2222", "10.0.0.5:2223", "10.0.0.5:2224")
_LOCALHOST = _cluster("localhost:2222", "127.0.0.1:2223")


def _launched_lines(root: Path, tf_config: str, save: str, quote: str = "'") -> list[int]:
    (root / "train.py").write_text(_TRAINED + save + "\n")
    word = f"'{tf_config}'" if quote == "'" else '"' + tf_config.replace('"', '\\"') + '"'
    (root / "run.sh").write_text(f"#!/bin/sh\nexport TF_CONFIG={word}\npython train.py\n")
    (result,) = list(run([root / "train.py"], Job(use_cache=False, project_roots=(str(root),)), jobs=1))
    return [f.start.line for f in result.findings if f.code == "TFD502"]


@pytest.mark.parametrize("quote", ["'", '"'])
def test_a_local_path_when_the_launcher_puts_every_task_on_its_own_host_is_per_worker(tmp_path, quote):
    assert _launched_lines(tmp_path, _OWN_HOSTS, "model.save('/tmp/my_model')", quote) == []


@pytest.mark.parametrize("tf_config", [_ONE_HOST_PORTS, _LOCALHOST, _cluster("<chief-ip>:2222", "<worker-ip>:2222")])
def test_a_local_path_of_a_one_host_or_placeholder_cluster_stays_reported(tmp_path, tf_config):
    assert _launched_lines(tmp_path, tf_config, "model.save('/tmp/my_model')") == [_save_line(_TRAINED) + 1]


def test_a_bucket_of_a_cluster_on_its_own_hosts_stays_reported(tmp_path):
    assert _launched_lines(tmp_path, _OWN_HOSTS, "model.save('gs://bucket/model')") == [_save_line(_TRAINED) + 1]


def _set_in_script(cluster: str) -> str:
    return _TRAINED.replace("strategy =", f"os.environ['TF_CONFIG'] = json.dumps({cluster})\nstrategy =", 1)


def test_a_local_path_when_the_script_sets_a_cluster_of_own_hosts_is_per_worker():
    cluster = "{'cluster': {'worker': ['host-a:2222', 'host-b:2222']}, 'task': {'type': 'worker', 'index': 0}}"
    assert _tfd502_lines(_set_in_script(cluster) + "model.save('/tmp/m')\n") == []


def test_a_local_path_when_the_script_sets_a_one_host_cluster_stays_reported():
    cluster = "{'cluster': {'worker': ['host-a:2222', 'host-a:2223']}, 'task': {'type': 'worker', 'index': 0}}"
    source = _set_in_script(cluster) + "model.save('/tmp/m')\n"
    assert _tfd502_lines(source) == [_save_line(source)]


def _save_line(source: str) -> int:
    return len(source.splitlines())


# Class 4: a save only the chief reaches --------------------------------------------------------

_IS_CHIEF = """\
def _is_chief(strategy):
    resolver = strategy.cluster_resolver
    return resolver is None or (resolver.task_type == "chief" and resolver.task_id == 0)


"""


@pytest.mark.parametrize(
    "leave", ["sys.exit()", "sys.exit(0)", "exit()", "os._exit(0)", "print('not the chief')\n    sys.exit()"]
)
def test_a_save_after_the_other_workers_exit_is_not_reported(leave):
    source = _TRAINED + f"if not _is_chief(strategy):\n    {leave}\nmodel.save('gs://bucket/model')\n"
    assert _tfd502_lines(_IS_CHIEF + source) == []


def test_a_save_in_a_function_after_a_return_of_the_other_workers_is_not_reported():
    source = _TRAINED + "def finish():\n    if not _is_chief(strategy):\n        return\n    model.save('/tmp/m')\n"
    assert _tfd502_lines(_IS_CHIEF + source + "finish()\n") == []


@pytest.mark.parametrize(
    "before",
    [
        "",
        "if not _is_chief(strategy):\n    print('not the chief')\n",
        "if _is_chief(strategy):\n    sys.exit()\n",
        "def exit():\n    pass\n\n\nif not _is_chief(strategy):\n    exit()\n",
    ],
)
def test_a_save_every_worker_reaches_stays_reported(before):
    source = _IS_CHIEF + _TRAINED + before + "model.save('gs://bucket/model')\n"
    assert _tfd502_lines(source) == [_save_line(source)]


# Class 5: IPython's call escapes in notebook cells ----------------------------------------------

_STRATEGY_CELL = "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\n"
# A variable made outside the scope and updated in the replica function: TFD101 whatever the Keras.
_TRAIN_CELL = """\
counter = tf.Variable(0.0)


def step(x):
{escape}    counter.assign_add(x)


strategy.run(step, args=(1.0,))
"""


def _notebook_codes(*cells: str) -> list[str]:
    data = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c} for c in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    result = analyse_notebook("train.ipynb", json.dumps(data), Config(), fix=False, unsafe=False)
    return sorted(f.code for f in result.findings)


@pytest.mark.parametrize(
    "escape",
    [
        "    , or (...) pairs if labeled=False\n",  # a stray comment fragment: a tuple of strings
        "    ,print a b\n",
        "    ;print a b\n",
        "    /print counter\n",
        "    ;\n",
    ],
)
def test_a_call_escape_ipython_compiles_leaves_the_cell_checked(escape):
    from IPython.core.inputtransformer2 import TransformerManager

    cell = _TRAIN_CELL.format(escape=escape)
    compile(TransformerManager().transform_cell(cell), "<cell>", "exec")  # IPython runs it
    assert _notebook_codes(_STRATEGY_CELL, cell) == ["TFD101"]


def test_a_slash_without_a_name_is_a_syntax_error_as_in_ipython():
    from IPython.core.inputtransformer2 import TransformerManager

    cell = _TRAIN_CELL.format(escape="    / 2\n")
    with pytest.raises(SyntaxError):
        compile(TransformerManager().transform_cell(cell), "<cell>", "exec")
    assert _notebook_codes(_STRATEGY_CELL, cell) == ["TFD000"]


def test_an_escape_inside_brackets_or_a_string_is_left_alone():
    cell = "pairs = (1,\n, 2)\n"
    assert mask_cell(cell)[0] == cell
    text = "doc = '''\n, a\n'''\n"
    assert mask_cell(text)[0] == text


def test_the_same_line_in_a_python_file_stays_a_syntax_error():
    source = _STRATEGY_CELL + _TRAIN_CELL.format(escape="    , or (...) pairs if labeled=False\n")
    assert [f.code for f in check_source("train.py", source).findings] == ["TFD000"]


# TFD501: a shuffle after the shard repeats nothing; name what does repeat -----------------------

_SEEDED = """\
import tensorflow as tf

tf.random.set_seed(1)
strategy = tf.distribute.MultiWorkerMirroredStrategy()


def dataset_fn(ctx):
    ds = tf.data.Dataset.range(64).shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
    return ds.shuffle(64, seed=1).batch(8)


dist = strategy.distribute_datasets_from_function(dataset_fn)
"""


def _tfd501_messages(source: str) -> list[str]:
    return [f.message for f in check_source("train.py", source).findings if f.code == "TFD501"]


def test_one_seed_with_only_a_shuffle_after_the_shard_is_not_reported():
    assert _tfd501_messages(_SEEDED) == []


def test_one_seed_with_random_draws_in_the_replica_function_names_them_not_the_shuffle():
    source = (
        _SEEDED
        + "\n\ndef replica_fn(x):\n    return x + tf.random.uniform([])\n\n\nstrategy.run(replica_fn, args=(1.0,))\n"
    )
    (message,) = _tfd501_messages(source)
    assert "random draws in replica and dataset functions" in message
    assert "shuffle" not in message


def test_a_launcher_filling_the_task_index_from_a_shell_variable_still_names_its_hosts(tmp_path):
    templated = _OWN_HOSTS.replace('"index": 0', '"index": $1')
    assert _launched_lines(tmp_path, templated, "model.save('/tmp/my_model')", '"') == []


def test_a_templated_launcher_of_one_host_stays_reported(tmp_path):
    templated = _ONE_HOST_PORTS.replace('"index": 0', '"index": $1')
    assert _launched_lines(tmp_path, templated, "model.save('/tmp/my_model')", '"') == [_save_line(_TRAINED) + 1]


def test_a_save_after_the_other_workers_exit_is_tfd503s_chief_only_save():
    source = _IS_CHIEF + _TRAINED + "if not _is_chief(strategy):\n    sys.exit()\nmodel.save('gs://bucket/model')\n"
    (finding,) = [f for f in check_source("train.py", source).findings if f.code == "TFD503"]
    assert finding.message.startswith("only the chief reaches this save (the others return or exit before it)")


def test_a_non_temporary_absolute_path_of_a_cluster_on_its_own_hosts_stays_reported(tmp_path):
    # `/data` on several machines is often one network mount: the writes may still race.
    assert _launched_lines(tmp_path, _OWN_HOSTS, "model.save('/data/my_model')") == [_save_line(_TRAINED) + 1]
