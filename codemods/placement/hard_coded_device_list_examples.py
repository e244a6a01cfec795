"""Examples of TFD112 (hard-coded-device-list).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3"])
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        """,
        note="four CPUs written into a script that makes no logical devices",
        range="3:43-3:83",
        message=(
            "`MirroredStrategy` given 4 CPUs: without logical CPUs they are one device, so the replicas share "
            "`CPU:0` and hang at the first all-reduce; omit the list or make logical CPUs"
        ),
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy(devices=["/cpu:0", "/cpu:1"])
        """,
        note="the devices keyword",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy(devices=("/device:CPU:0", "/device:CPU:1"))
        """,
        note="a tuple",
    ),
    Invalid(
        """
        import tensorflow as tf

        DEVICES = ["/gpu:0", "/cpu:0"]
        strategy = tf.distribute.MirroredStrategy(DEVICES)
        """,
        note="the list bound to a name first",
    ),
    Invalid(
        """
        from tensorflow.distribute import MirroredStrategy

        strategy = MirroredStrategy(["/cpu:0", "/cpu:1"])
        """,
        note="imported class",
    ),
    Invalid(
        """
        import tensorflow as tf

        def make_strategy():
            return tf.distribute.MirroredStrategy(
                devices=["/job:localhost/replica:0/task:0/device:GPU:0", "/job:localhost/replica:0/task:0/device:CPU:0"],
                cross_device_ops=tf.distribute.HierarchicalCopyAllReduce(),
            )
        """,
        note="in a factory, with other arguments",
    ),
    Invalid(
        """
        import tensorflow as tf

        mirrored = tf.distribute.MirroredStrategy(["GPU:0", "GPU:0"])
        dist = mirrored.experimental_distribute_dataset(tf.data.Dataset.range(8).batch(4))
        """,
        note="short device names, one GPU twice (raises when built)",
    ),
    Invalid(
        """
        import tensorflow as tf

        cpus = ["/cpu:0", "/cpu:1"]
        strategy = tf.distribute.MirroredStrategy(devices=cpus)
        """,
        note="keyword given a name holding the list",
    ),
    Valid(
        """
        import tensorflow as tf

        # how to pick devices, shown and then replaced before anything uses it
        strategy = tf.distribute.MirroredStrategy(devices=["/gpu:0", "/gpu:1"])
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        """,
        note="a strategy that nothing uses before it is rebound places no variable",
    ),
    Invalid(
        """
        import tensorflow as tf

        print(tf.config.list_physical_devices("GPU"))
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/gpu:0"])
        """,
        note="a CPU beside a GPU is wrong on every machine, whatever the program reads",
    ),
    Valid(
        """
        import os

        os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])
        """,
        note="distinct GPUs: right on the machine that has them, whatever the script around them",
    ),
    Valid(
        """
        import argparse

        import tensorflow as tf

        parser = argparse.ArgumentParser()
        parser.add_argument("--two_gpus", action="store_true")
        args = parser.parse_args()
        strategy = tf.distribute.get_strategy()
        if args.two_gpus:
            strategy = tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])
        """,
        note="the GPU list is asked for on the command line",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1", "/gpu:2", "/gpu:3"])
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        """,
        note="four distinct GPUs: right on the machine they name (an author's timing run), only a smaller one hangs",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        """,
        note="every visible device",
    ),
    Valid(
        """
        import tensorflow as tf

        gpus = tf.config.list_logical_devices("GPU")
        strategy = tf.distribute.MirroredStrategy([gpu.name for gpu in gpus])
        """,
        note="derived from the machine's devices",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy(["/gpu:0"])
        """,
        note="one device: a deliberate single-device run",
    ),
    Valid(
        """
        import tensorflow as tf

        def build(devices):
            return tf.distribute.MirroredStrategy(devices)
        """,
        note="the list comes from the caller",
    ),
    Valid(
        """
        import tensorflow as tf

        n = 4
        strategy = tf.distribute.MirroredStrategy([f"/gpu:{i}" for i in range(n)])
        """,
        note="a comprehension is computed, not a literal list",
    ),
    Valid(
        """
        import tensorflow as tf

        devices = ["/gpu:0", "/gpu:1"]
        if tf.config.list_physical_devices("GPU") == []:
            devices = ["/cpu:0"]
        strategy = tf.distribute.MirroredStrategy(devices)
        """,
        note="two bindings may reach the use",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.experimental.CentralStorageStrategy(["/gpu:0", "/gpu:1"])
        """,
        note="only MirroredStrategy is checked",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy(cross_device_ops=tf.distribute.ReductionToOneDevice())
        """,
        note="no device list",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy(["/gpu:0", FLAGS.second_device])
        """,
        note="a device named at run time",
    ),
    Valid(
        """
        import tensorflow as tf

        def create_mirrored_strategy():
            if tf.config.list_logical_devices("GPU"):
                return tf.distribute.MirroredStrategy(["cpu:0", "gpu:0"])
            return tf.distribute.MirroredStrategy(["cpu:0"])
        """,
        note="chosen after asking which devices exist",
    ),
    Valid(
        """
        import tensorflow as tf

        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
        strategy = tf.distribute.MirroredStrategy(["cpu:0", "cpu:1"])
        """,
        note="the program makes the devices it lists",
    ),
)
