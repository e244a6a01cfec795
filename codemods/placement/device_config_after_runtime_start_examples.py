"""Examples of TFD111 (device-config-after-runtime-start).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        gpus = tf.config.list_physical_devices("GPU")
        for gpu in gpus:
            tf.config.experimental.set_memory_growth(gpu, True)
        """,
        note="memory growth pasted below the strategy",
        range="7:5-7:56",
        message=(
            "`set_memory_growth` after line 3 started TensorFlow raises `RuntimeError: Physical devices cannot be "
            "modified after being initialized`; configure devices first"
        ),
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            try:
                for gpu in gpus:
                    tf.config.experimental.set_memory_growth(gpu, True)
            except RuntimeError as e:
                print(e)
        """,
        note="the GPU guide's try/except hides it",
        message=(
            "`set_memory_growth` after line 3 started TensorFlow: ignored behind the `except` (`Physical "
            "devices cannot be modified after being initialized`); configure devices first"
        ),
    ),
    Invalid(
        """
        import tensorflow as tf

        print("devices:", tf.config.list_logical_devices())
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
        strategy = tf.distribute.MirroredStrategy()
        """,
        note="listing logical devices starts the runtime",
    ),
    Invalid(
        """
        import tensorflow as tf

        scale = tf.constant(2.0)
        gpus = tf.config.list_physical_devices("GPU")
        tf.config.set_visible_devices(gpus[:2], "GPU")
        strategy = tf.distribute.MirroredStrategy()
        """,
        note="visible devices after a tensor",
    ),
    Invalid(
        """
        import tensorflow as tf

        def setup_devices():
            gpus = tf.config.list_physical_devices("GPU")
            tf.config.experimental.set_virtual_device_configuration(
                gpus[0], [tf.config.experimental.VirtualDeviceConfiguration(memory_limit=4096)] * 2
            )

        strategy = tf.distribute.MirroredStrategy()
        setup_devices()
        """,
        note="a setup function called after the strategy",
    ),
    Invalid(
        """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(1)])
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.experimental.set_memory_growth(gpus[0], True)
        strategy = tf.distribute.MirroredStrategy()
        """,
        note="after a built model",
    ),
    Invalid(
        """
        import tensorflow as tf

        def main():
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            for gpu in tf.config.list_physical_devices("GPU"):
                tf.config.experimental.set_memory_growth(gpu, True)
            train(strategy)

        main()
        """,
        note="inside main after the strategy",
    ),
    Invalid(
        """
        import tensorflow as tf

        dataset = tf.data.Dataset.range(10)
        try:
            tf.config.set_logical_device_configuration(
                tf.config.list_physical_devices("CPU")[0],
                [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()],
            )
        except Exception:
            pass
        strategy = tf.distribute.MirroredStrategy()
        """,
        note="after a dataset, any exception swallowed",
    ),
    Valid(
        """
        import tensorflow as tf

        gpus = tf.config.list_physical_devices("GPU")
        for gpu in gpus:
            tf.config.experimental.set_memory_growth(gpu, True)

        strategy = tf.distribute.MirroredStrategy()
        """,
        note="configured first",
    ),
    Valid(
        """
        import tensorflow as tf

        cpus = tf.config.list_physical_devices("CPU")
        tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration()] * 2)
        print(tf.config.list_logical_devices("CPU"))
        strategy = tf.distribute.MirroredStrategy()
        """,
        note="listing after configuring",
    ),
    Valid(
        """
        import tensorflow as tf

        tf.random.set_seed(0)
        tf.config.set_soft_device_placement(True)
        gpus = tf.config.list_physical_devices("GPU")
        tf.config.set_visible_devices(gpus[:1], "GPU")
        """,
        note="configuration calls do not start the runtime",
    ),
    Valid(
        """
        import tensorflow as tf

        for gpu in tf.config.list_physical_devices("GPU"):
            tf.config.experimental.set_memory_growth(gpu, True)

        strategy = tf.distribute.MirroredStrategy()

        for gpu in tf.config.list_physical_devices("GPU"):
            tf.config.experimental.set_memory_growth(gpu, True)
        """,
        note="the same memory growth again returns early",
    ),
    Valid(
        """
        import tensorflow as tf

        def configure():
            for gpu in tf.config.list_physical_devices("GPU"):
                tf.config.experimental.set_memory_growth(gpu, True)

        configure()
        strategy = tf.distribute.MirroredStrategy()
        """,
        note="a setup function called first",
    ),
    Valid(
        """
        import tensorflow as tf

        def build():
            return tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(1)])

        gpus = tf.config.list_physical_devices("GPU")
        tf.config.set_visible_devices(gpus[:1], "GPU")
        model = build()
        """,
        note="a function defined before, called after",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        print(tf.config.experimental.get_memory_growth(tf.config.list_physical_devices("GPU")[0]))
        """,
        note="reading the setting is not configuring",
    ),
    Valid(
        """
        import tensorflow as tf

        scale = tf.constant(2.0)
        gpus = tf.config.list_physical_devices("GPU")
        tf.config.set_visible_devices(gpus[:1], "GPU")
        """,
        note="no strategy in the program",
    ),
    Valid(
        """
        import os
        os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        """,
        note="devices chosen by the environment before import",
    ),
)
