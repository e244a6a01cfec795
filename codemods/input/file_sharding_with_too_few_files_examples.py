"""Examples of TFD205 (file-sharding-with-too-few-files).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from textwrap import indent

from fixer.rule import Invalid, Valid

# The helper the fix adds, indented as the examples' code is.
_HELPER = indent(
    '''

def _shard_by_data():
    """Dataset options that auto-shard by data: every worker reads the whole input and keeps its
    slice of each batch. Needed when the input has fewer files than the cluster has workers,
    where sharding by file fails. Added by distfix (TFD205).
    """
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    return options

''',
    " " * 8,
)

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        dataset = tf.data.TFRecordDataset("train.tfrecord").map(parse).batch(64)
        dist_dataset = strategy.experimental_distribute_dataset(dataset)
        """,
        after="""
        import tensorflow as tf
        """
        + _HELPER
        + """
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        dataset = tf.data.TFRecordDataset("train.tfrecord").with_options(_shard_by_data()).map(parse).batch(64)
        dist_dataset = strategy.experimental_distribute_dataset(dataset)
        """,
        note="one literal path, the default AUTO policy",
        range="4:11-4:52",
        message=(
            "1 file(s) for 2+ workers, sharded by file (AUTO policy, distributed at line 5): `Could not apply FILE "
            "based sharding`; use `AutoShardPolicy.DATA` or one file per worker"
        ),
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = build_model()
        dataset = tf.data.TFRecordDataset(["data/train-00000.tfrecord"]).map(parse).batch(64)
        model.fit(dataset, epochs=3)
        """,
        after="""
        import tensorflow as tf
        """
        + _HELPER
        + """
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = build_model()
        dataset = tf.data.TFRecordDataset(["data/train-00000.tfrecord"]).with_options(_shard_by_data()).map(parse).batch(64)
        model.fit(dataset, epochs=3)
        """,
        note="a one-element list trained with Keras fit",
    ),
    Invalid(
        """
        import tensorflow as tf

        TRAIN_FILE = "gs://bucket/train.csv"
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        lines = tf.data.TextLineDataset(TRAIN_FILE).skip(1).map(parse_line).batch(32)
        dist = strategy.experimental_distribute_dataset(lines)
        """,
        after="""
        import tensorflow as tf
        """
        + _HELPER
        + """
        TRAIN_FILE = "gs://bucket/train.csv"
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        lines = tf.data.TextLineDataset(TRAIN_FILE).with_options(_shard_by_data()).skip(1).map(parse_line).batch(32)
        dist = strategy.experimental_distribute_dataset(lines)
        """,
        note="a text file named by a module constant",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        files = tf.data.Dataset.list_files("data/train.tfrecord")
        dataset = files.interleave(tf.data.TFRecordDataset).batch(64)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        after="""
        import tensorflow as tf
        """
        + _HELPER
        + """
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        files = tf.data.Dataset.list_files("data/train.tfrecord").with_options(_shard_by_data())
        dataset = files.interleave(tf.data.TFRecordDataset).batch(64)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="list_files of a pattern without glob characters matches one file",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.FILE
        dataset = tf.data.TFRecordDataset("train.tfrecord").batch(64).with_options(options)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="the FILE policy set explicitly: advice (the options are the user's)",
    ),
    Invalid(
        """
        import json
        import os

        import tensorflow as tf

        os.environ["TF_CONFIG"] = json.dumps({
            "cluster": {"worker": ["10.0.0.1:2222", "10.0.0.2:2222", "10.0.0.3:2222"]},
            "task": {"type": "worker", "index": 0},
        })
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        dataset = tf.data.TFRecordDataset(["a.tfrecord", "b.tfrecord"]).batch(64)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        after="""
        import json
        import os

        import tensorflow as tf
        """
        + _HELPER
        + """
        os.environ["TF_CONFIG"] = json.dumps({
            "cluster": {"worker": ["10.0.0.1:2222", "10.0.0.2:2222", "10.0.0.3:2222"]},
            "task": {"type": "worker", "index": 0},
        })
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        dataset = tf.data.TFRecordDataset(["a.tfrecord", "b.tfrecord"]).with_options(_shard_by_data()).batch(64)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="2 files for the 3 workers of a literal TF_CONFIG",
        message=(
            "2 file(s) for 3 workers, sharded by file (AUTO policy, distributed at line 12): `Could not apply FILE "
            "based sharding`; use `AutoShardPolicy.DATA` or one file per worker"
        ),
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def make_dataset():
            return tf.data.TFRecordDataset("train.tfrecord").map(parse).shuffle(1000).batch(64)

        with strategy.scope():
            model = build_model()
        model.fit(make_dataset(), epochs=2)
        """,
        after="""
        import tensorflow as tf
        """
        + _HELPER
        + """
        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def make_dataset():
            return tf.data.TFRecordDataset("train.tfrecord").with_options(_shard_by_data()).map(parse).shuffle(1000).batch(64)

        with strategy.scope():
            model = build_model()
        model.fit(make_dataset(), epochs=2)
        """,
        note="built by a module function",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
        dataset = tf.data.FixedLengthRecordDataset("cifar/data_batch.bin", record_bytes=3073).batch(128)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        after="""
        import tensorflow as tf
        """
        + _HELPER
        + """
        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
        dataset = tf.data.FixedLengthRecordDataset("cifar/data_batch.bin", record_bytes=3073).with_options(_shard_by_data()).batch(128)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="the experimental strategy name, a fixed-length record file",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
        dataset = tf.data.TFRecordDataset("train.tfrecord").batch(64).with_options(options)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="sharded by data (the fix; measured: disjoint halves)",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        files = tf.data.Dataset.list_files("data/train-*.tfrecord")
        dataset = files.interleave(tf.data.TFRecordDataset).batch(64)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="a glob: how many files it matches is not in the source",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dataset = tf.data.TFRecordDataset("train.tfrecord").batch(64)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="one machine: MirroredStrategy does not shard by worker",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        dataset = tf.data.TFRecordDataset("train.tfrecord")
        dataset = dataset.shard(strategy.num_replicas_in_sync, task_index).batch(64)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="sharded by hand",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def dataset_fn(context):
            ds = tf.data.TFRecordDataset("train.tfrecord")
            return ds.shard(context.num_input_pipelines, context.input_pipeline_id).batch(32)

        dist = strategy.distribute_datasets_from_function(dataset_fn)
        """,
        note="distribute_datasets_from_function: no auto-sharding (measured: disjoint halves)",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        dataset = tf.data.TFRecordDataset(["a.tfrecord", "b.tfrecord"]).batch(64)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="2 files and no literal cluster: enough for 2 workers (measured: one file each)",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(64)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="an in-memory source falls back to sharding by data (measured)",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        dataset = tf.data.TFRecordDataset(train_files).batch(64)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="a file list the source does not spell out",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
        dataset = tf.data.TFRecordDataset("train.tfrecord").with_options(options).batch(64)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="auto-sharding off: every worker reads the file (TFD202's concern, not this rule's)",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        dataset = tf.data.TFRecordDataset("train.tfrecord").batch(64)
        for batch in dataset:
            print(batch)
        """,
        note="not distributed by the strategy",
    ),
    Valid(
        """
        import json
        import os

        import tensorflow as tf

        os.environ["TF_CONFIG"] = json.dumps({
            "cluster": {"worker": ["localhost:12345"]},
            "task": {"type": "worker", "index": 0},
        })
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        dataset = tf.data.TFRecordDataset("train.tfrecord").batch(64)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="a literal one-worker cluster: one file is enough",
    ),
    Valid(
        """
        import json
        import os

        import tensorflow as tf

        os.environ["TF_CONFIG"] = json.dumps({
            "cluster": {"chief": ["host0:2222"], "worker": ["host1:2222"]},
            "task": {"type": "chief", "index": 0},
        })
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        dataset = tf.data.TFRecordDataset(["a.tfrecord", "b.tfrecord"]).batch(64)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="a chief and a worker with 2 files: one file each",
    ),
)
