"""TFD202 and samples each worker's process draws itself (issue 28, prec16 5(b), task prec19).

A multi-worker test or demo makes synthetic data where it runs: every worker's process draws its
own random samples (unseeded, or seeded by its task index) and builds its input from them, so
reading them whole reads nothing twice. Each shape has a control that stays reported: a constant
seed (every worker draws the same samples), a file list that every worker reads whole, shared
data with drawn noise added.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from fixer.engine import check_source

if TYPE_CHECKING:
    from pathlib import Path

_DATASET_FN = """
import json
import os

import numpy as np
import tensorflow as tf
{seed}
strategy = tf.distribute.MultiWorkerMirroredStrategy()
task_id = json.loads(os.environ["TF_CONFIG"])["task"]["index"]


def generate_samples(count):
    keys = np.random.randint(0, 1000, size=(count, 8)).astype(np.int64)
    labels = np.random.randint(0, 2, size=(count, 1))
    return keys, labels


def run(keys, labels, global_batch):
    def _dataset_fn(input_context):
        batch = input_context.get_per_replica_batch_size(global_batch)
        dataset = tf.data.Dataset.from_tensor_slices((keys, labels))
        return dataset.batch(batch)

    return strategy.distribute_datasets_from_function(_dataset_fn)


if __name__ == "__main__":
    {make}
    np.save(f"samples_{{task_id}}.npy", keys)
    run(keys, labels, 64)
"""

_GENERATED = "keys, labels = generate_samples(4096)"


def tfd202(source: str, path: str = "train.py") -> list[int]:
    findings = check_source(path, textwrap.dedent(source)).findings
    return [f.start.line for f in findings if f.code == "TFD202"]


def test_samples_each_worker_draws_unseeded_are_its_own():
    assert tfd202(_DATASET_FN.format(seed="", make=_GENERATED)) == []


def test_samples_drawn_with_a_generator_seeded_by_the_task_are_its_own():
    make = "rng = np.random.default_rng(task_id); keys, labels = rng.integers(0, 9, (64, 8)), rng.random((64, 1))"
    assert tfd202(_DATASET_FN.format(seed="", make=make)) == []


def test_control_a_constant_program_seed_makes_every_worker_draw_the_same():
    assert tfd202(_DATASET_FN.format(seed="np.random.seed(1234)", make=_GENERATED)) == [21]
    assert tfd202(_DATASET_FN.format(seed="tf.keras.utils.set_random_seed(0)", make=_GENERATED)) == [21]


def test_control_a_generator_with_a_constant_seed_draws_the_same_everywhere():
    make = "rng = np.random.default_rng(0); keys, labels = rng.integers(0, 9, (64, 8)), rng.random((64, 1))"
    assert tfd202(_DATASET_FN.format(seed="", make=make)) == [21]


def test_control_data_every_worker_loads_from_one_file_stays_reported():
    make = 'keys, labels = np.load("keys.npy"), np.load("labels.npy")'
    assert tfd202(_DATASET_FN.format(seed="", make=make)) == [21]


def test_control_shared_data_with_drawn_noise_added_stays_reported():
    make = 'keys = np.load("keys.npy") + np.random.normal(size=(64, 8)); labels = np.random.rand(64, 1)'
    assert tfd202(_DATASET_FN.format(seed="", make=make)) == [21]


def test_tf_random_draws_follow_their_seed():
    unseeded = "keys, labels = tf.random.uniform([64, 8]), tf.random.uniform([64, 1])"
    assert tfd202(_DATASET_FN.format(seed="", make=unseeded)) == []
    # An op seed without a global seed is combined with a fixed default: the same on every worker.
    op_seed = "keys, labels = tf.random.uniform([64, 8], seed=3), tf.random.uniform([64, 1], seed=4)"
    assert tfd202(_DATASET_FN.format(seed="", make=op_seed)) == [21]


def test_samples_a_worker_saves_under_its_task_index_are_its_own():
    # Made by a library this file cannot see, then kept as this worker's own (saved by task index).
    make = "keys, labels = synthetic.make_samples(4096); np.save(f'labels_{task_id}.npy', labels)"
    source = _DATASET_FN.format(seed="", make=make).replace("import json\n", "import json\n\nimport synthetic\n")
    assert tfd202(source) == []


def test_control_samples_saved_under_one_shared_name_stay_reported():
    make = "keys, labels = synthetic.make_samples(4096); np.save('labels.npy', labels)"
    source = _DATASET_FN.format(seed="", make=make).replace("import json\n", "import json\n\nimport synthetic\n")
    assert tfd202(source) == [23]
    # Only one of the two arrays kept per worker: the other may be the same everywhere.
    make = "keys, labels = synthetic.make_samples(4096); labels = synthetic.relabel(labels)"
    source = _DATASET_FN.format(seed="", make=make).replace("import json\n", "import json\n\nimport synthetic\n")
    assert tfd202(source) == [23]


_BUILT_BY_A_LIBRARY = """
import numpy as np
import tensorflow as tf

import data_utils

strategy = tf.distribute.MultiWorkerMirroredStrategy()


def main(global_batch):
    samples = {make}

    def _dataset_fn(input_context):
        return data_utils.to_dataset(*samples, batch=global_batch)

    return strategy.distribute_datasets_from_function(_dataset_fn)
"""


def test_drawn_samples_a_library_helper_turns_into_a_dataset_are_each_worker_own():
    make = "np.random.randint(0, 9, size=(64, 8)), np.random.rand(64, 1)"
    assert tfd202(_BUILT_BY_A_LIBRARY.format(make=make)) == []


def test_control_loaded_samples_a_library_helper_turns_into_a_dataset_stay_reported():
    make = 'np.load("keys.npy"), np.load("labels.npy")'
    assert tfd202(_BUILT_BY_A_LIBRARY.format(make=make)) == [13]


_FILES = """
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
files = tf.io.gfile.glob("gs://bucket/train-*.tfrecord")


def _dataset_fn(input_context):
    return tf.data.TFRecordDataset(files).batch(8)


dataset = strategy.distribute_datasets_from_function(_dataset_fn)
"""


def test_control_a_file_list_every_worker_reads_whole_stays_reported():
    assert tfd202(_FILES) == [9]


# Samples made by a helper of another module of the project --------------------------------------

_SCRIPT = """
import numpy as np
import tensorflow as tf

import sample_utils

strategy = tf.distribute.MultiWorkerMirroredStrategy()


def _dataset_fn(input_context):
    keys, labels = sample_utils.make_samples(1024)
    return tf.data.Dataset.from_tensor_slices((keys, labels)).batch(8)


dataset = strategy.distribute_datasets_from_function(_dataset_fn)
"""

_UNSEEDED_HELPER = """
import numpy as np


def make_samples(count):
    keys = np.random.randint(0, 100, size=(count, 4))
    return keys, np.random.rand(count, 1)
"""


def _project(tmp_path: Path, helper: str) -> list[int]:
    (tmp_path / "sample_utils.py").write_text(textwrap.dedent(helper), encoding="utf-8")
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(_SCRIPT), encoding="utf-8")
    return tfd202(_SCRIPT, str(script))


def test_samples_an_imported_helper_draws_unseeded_are_each_worker_own(tmp_path):
    assert _project(tmp_path, _UNSEEDED_HELPER) == []


def test_control_an_imported_helper_that_seeds_with_a_constant_stays_reported(tmp_path):
    seeded = _UNSEEDED_HELPER.replace("    keys =", "    np.random.seed(42)\n    keys =")
    assert _project(tmp_path, seeded) == [12]


def test_control_an_imported_helper_that_loads_a_file_stays_reported(tmp_path):
    loading = """
    import numpy as np


    def make_samples(count):
        return np.load("keys.npy")[:count], np.load("labels.npy")[:count]
    """
    assert _project(tmp_path, loading) == [12]


# A plain dataset every worker iterates into its training step ------------------------------------

_LOOP = """
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.1)


def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))


features, targets = {data}
for x, y in tf.data.Dataset.from_tensor_slices((features, targets)).batch(8):
    train_step(x, y)
"""


def test_a_loop_over_samples_the_worker_draws_itself_is_not_reported():
    assert tfd202(_LOOP.format(data="np.random.rand(256, 4), np.random.rand(256, 1)")) == []


def test_control_a_loop_over_one_file_every_worker_reads_stays_reported():
    assert tfd202(_LOOP.format(data='np.load("x.npy"), np.load("y.npy")')) == [19]
