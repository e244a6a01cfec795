"""TFD203 on the batch shapes real scripts take: a global batch computed and left unused, `fit` on
arrays with a per-worker `batch_size`, a worker count turned into text."""

from __future__ import annotations

import textwrap

from fixer.engine import check_source


def tfd203(source: str) -> list[tuple[int, str]]:
    found = check_source("train.py", textwrap.dedent(source)).findings
    return [(f.start.line, f.message) for f in found if f.code == "TFD203"]


_UNUSED_GLOBAL = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
BATCH_SIZE = 64
GLOBAL_BATCH_SIZE = BATCH_SIZE * strategy.num_replicas_in_sync
dataset = tf.data.Dataset.range(1024).batch({size})
dist_dataset = strategy.experimental_distribute_dataset(dataset)
{tail}
"""


def test_a_global_batch_computed_and_never_used_is_reported_at_the_batch():
    found = tfd203(_UNUSED_GLOBAL.format(size="BATCH_SIZE", tail=""))
    assert [line for line, _ in found] == [7]
    assert "`GLOBAL_BATCH_SIZE`" in found[0][1] and "never used" in found[0][1]


def test_batching_with_the_global_batch_is_not_reported():
    assert tfd203(_UNUSED_GLOBAL.format(size="GLOBAL_BATCH_SIZE", tail="")) == []


def test_a_global_batch_used_elsewhere_is_not_guessed():
    tail = "print(GLOBAL_BATCH_SIZE)"
    assert tfd203(_UNUSED_GLOBAL.format(size="BATCH_SIZE", tail=tail)) == []


_FIT_ARRAYS = """
import numpy as np
import tensorflow as tf

strategy = tf.distribute.{strategy}()
per_worker_batch_size = 64
x = np.zeros((1024, 8))
y = np.zeros((1024, 1))
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
model.fit(x, y, batch_size={size}, epochs=1)
"""


def test_fit_on_arrays_with_a_per_worker_batch_under_multi_worker_is_reported():
    found = tfd203(_FIT_ARRAYS.format(strategy="MultiWorkerMirroredStrategy", size="per_worker_batch_size"))
    assert [line for line, _ in found] == [12]
    assert "Keras `fit`" in found[0][1]


def test_fit_on_arrays_with_the_global_batch_is_not_reported():
    size = "per_worker_batch_size * strategy.num_replicas_in_sync"
    assert tfd203(_FIT_ARRAYS.format(strategy="MultiWorkerMirroredStrategy", size=size)) == []


def test_a_per_worker_name_under_mirrored_strategy_is_not_reported():
    # One worker: "per worker" is the whole batch, as the rule reads it for datasets too.
    assert tfd203(_FIT_ARRAYS.format(strategy="MirroredStrategy", size="per_worker_batch_size")) == []


_TEXT_COUNT = """
import os
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
num_workers = {count}
global_batch_size = 64 * num_workers
dataset = tf.data.Dataset.range(1024).batch(global_batch_size)
dist = strategy.experimental_distribute_dataset(dataset)
"""


def test_a_worker_count_turned_into_text_by_str_is_reported():
    found = tfd203(_TEXT_COUNT.format(count='str(len(os.environ.get("WORKERS", "a,b").split(",")))'))
    assert [line for line, _ in found] == [8]
    assert "`num_workers` is text" in found[0][1]


def test_a_worker_count_turned_into_text_by_format_is_reported():
    assert [line for line, _ in tfd203(_TEXT_COUNT.format(count='"{}".format(strategy.num_replicas_in_sync)'))] == [8]


def test_a_worker_count_in_an_f_string_is_reported():
    assert [line for line, _ in tfd203(_TEXT_COUNT.format(count='f"{strategy.num_replicas_in_sync}"'))] == [8]


def test_a_numeric_worker_count_is_not_reported():
    assert tfd203(_TEXT_COUNT.format(count="int(str(strategy.num_replicas_in_sync))")) == []
