"""Examples of TFD105 (strategy-created-after-tf-ops).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        print(tf.config.list_logical_devices())
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        print(tf.config.list_logical_devices())
        """,
        note="logical devices listed first",
    ),
    Invalid(
        """
        import tensorflow as tf

        x_train = tf.random.normal((100, 10))
        y_train = tf.random.normal((100, 1))
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        x_train = tf.random.normal((100, 10))
        y_train = tf.random.normal((100, 1))
        """,
        note="data tensors first",
    ),
    Invalid(
        """
        import tensorflow as tf

        tf.random.set_seed(42)
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after="""
        import tensorflow as tf

        tf.random.set_seed(42)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
        """,
        note="a built model before, the seed is fine",
    ),
    Invalid(
        """
        import tensorflow as tf

        options = tf.distribute.experimental.CommunicationOptions()
        dataset = tf.data.Dataset.range(10)
        strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
        """,
        after="""
        import tensorflow as tf

        options = tf.distribute.experimental.CommunicationOptions()
        strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
        dataset = tf.data.Dataset.range(10)
        """,
        note="dataset before, options are configuration",
    ),
    Invalid(
        """
        import tensorflow as tf

        n = tf.constant(4)
        strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=make_options(n))
        """,
        after=None,
        note="depends on the op: advice",
    ),
    Invalid(
        """
        from tensorflow.distribute import MultiWorkerMirroredStrategy
        import tensorflow as tf

        w = tf.Variable(0.0)
        strategy = MultiWorkerMirroredStrategy()
        """,
        after="""
        from tensorflow.distribute import MultiWorkerMirroredStrategy
        import tensorflow as tf

        strategy = MultiWorkerMirroredStrategy()
        w = tf.Variable(0.0)
        """,
        note="imported class",
    ),
    Invalid(
        """
        import tensorflow as tf

        def main():
            gpus = tf.config.list_logical_devices("GPU")
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            return strategy
        """,
        after="""
        import tensorflow as tf

        def main():
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            gpus = tf.config.list_logical_devices("GPU")
            return strategy
        """,
        note="inside main",
    ),
    Invalid(
        """
        import tensorflow as tf

        tf.print("starting")
        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
        tf.print("starting")
        """,
        note="tf.print",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        x = tf.random.normal((4, 2))
        """,
        note="strategy first",
    ),
    Valid(
        """
        import tensorflow as tf

        gpus = tf.config.list_physical_devices("GPU")
        for gpu in gpus:
            tf.config.experimental.set_memory_growth(gpu, True)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        note="device configuration first",
    ),
    Valid(
        """
        import tensorflow as tf

        x = tf.constant(1)
        strategy = tf.distribute.MirroredStrategy()
        """,
        note="single-machine strategy",
    ),
    Valid(
        """
        import os
        import tensorflow as tf

        os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
        tf.get_logger().setLevel("ERROR")
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        note="logging setup",
    ),
    Valid(
        """
        import tensorflow as tf

        def make_data():
            return tf.random.normal((4, 2))

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        data = make_data()
        """,
        note="a function defined before but called after",
    ),
    Valid(
        """
        import tensorflow as tf

        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        note="logical device split is configuration",
    ),
    Valid(
        """
        import tensorflow as tf

        x = tf.constant(1)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()  # distfix: ignore[TFD105]
        """,
        note="suppressed",
    ),
    Valid(
        """
        import tensorflow as tf

        spec = tf.train.ClusterSpec({"worker": ["a:1", "b:1"]})
        resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(spec, task_type="worker", task_id=0)
        strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)
        """,
        note="cluster spec and resolver are configuration",
    ),
    Valid(
        """
        import numpy as np
        import tensorflow as tf

        data = np.random.normal(size=(4, 2))
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        note="numpy work is not TensorFlow",
    ),
    Invalid(
        """
        import tensorflow as tf


        def make_counter():
            return tf.Variable(0, trainable=False, dtype=tf.int64)


        counter = make_counter()
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after="""
        import tensorflow as tf


        def make_counter():
            return tf.Variable(0, trainable=False, dtype=tf.int64)


        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        counter = make_counter()
        """,
        note="a module function that creates a variable, called first",
    ),
    Invalid(
        """
        import tensorflow as tf

        mean = tf.constant([0.5, 0.5])


        def main():
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            return strategy


        if __name__ == "__main__":
            main()
        """,
        after=None,
        note="an op at module level before main() creates it: advice",
    ),
    Invalid(
        """
        import tensorflow as tf

        net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        net.compile(optimizer="sgd", loss="mse")
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after="""
        import tensorflow as tf

        net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        net.compile(optimizer="sgd", loss="mse")
        """,
        note="compile builds the model's variables",
    ),
    Invalid(
        """
        import keras
        import tensorflow as tf

        drop = keras.layers.Dropout(0.2)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after="""
        import keras
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        drop = keras.layers.Dropout(0.2)
        """,
        note="a Dropout layer creates its seed variable",
    ),
    Valid(
        """
        import tensorflow as tf

        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
        resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
        comm = tf.distribute.experimental.CommunicationOptions(implementation=tf.distribute.experimental.CommunicationImplementation.RING)
        strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver, communication_options=comm)
        """,
        note="dataset options, a resolver and communication options are configuration (measured)",
    ),
    Valid(
        """
        import tensorflow as tf

        print("TensorFlow", tf.__version__, tf.executing_eagerly())
        spec = tf.TensorSpec([None, 4], tf.float32)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        note="version, executing_eagerly and a TensorSpec start nothing (measured)",
    ),
    Valid(
        """
        import tensorflow as tf

        SCHEMA = {
            "pixels": tf.io.FixedLenFeature([784], tf.float32),
            "tags": tf.io.VarLenFeature(tf.string),
            "frames": tf.io.FixedLenSequenceFeature([3], tf.float32, allow_missing=True),
            "tokens": tf.io.RaggedFeature(tf.int64, partitions=[tf.io.RaggedFeature.RowLengths("lengths")]),
        }
        signature = [tf.RaggedTensorSpec([None, None], tf.int64), tf.SparseTensorSpec([None], tf.float32)]
        record_options = tf.io.TFRecordOptions(compression_type="GZIP")
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        note="parsing specs, type specs and option objects are descriptions: no runtime (measured)",
    ),
    Invalid(
        """
        import tensorflow as tf

        features = {"label": tf.io.FixedLenFeature([], tf.int64)}
        table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a"], [0]), -1)
        save_options = tf.saved_model.SaveOptions()
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after="""
        import tensorflow as tf

        features = {"label": tf.io.FixedLenFeature([], tf.int64)}
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a"], [0]), -1)
        save_options = tf.saved_model.SaveOptions()
        """,
        note="a lookup table starts the runtime; the feature spec before it does not",
    ),
    Valid(
        """
        import tensorflow as tf

        head = tf.keras.layers.Dense(10)
        loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.1, 1000, 0.9)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        note="an unbuilt layer, a loss and a schedule create no variables (measured)",
    ),
    Valid(
        """
        import tensorflow as tf


        def make_counter():
            return tf.Variable(0)


        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            counter = make_counter()
        """,
        note="a helper defined before but called after",
    ),
    Valid(
        """
        import tensorflow as tf


        def get_strategy(name):
            if name == "mirrored":
                return tf.distribute.MirroredStrategy()
            return tf.distribute.MultiWorkerMirroredStrategy()


        strategy = get_strategy("multi_worker")
        """,
        note="a branch that returns another strategy never runs before this one",
    ),
)
