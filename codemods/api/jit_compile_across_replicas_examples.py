"""Examples of TFD404 (jit-compile-across-replicas).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid
from fixer.types import Applicability

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
            model.compile(optimizer="adam", loss="mse", jit_compile=True)
        model.fit(features, labels, epochs=2)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
            model.compile(optimizer="adam", loss="mse")
        model.fit(features, labels, epochs=2)
        """,
        note="compile with XLA in the scope",
        range="6:49-6:65",
        applicability=Applicability.SAFE,
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            model.compile(
                optimizer="sgd",
                loss="mse",
                jit_compile=True,
            )
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            model.compile(
                optimizer="sgd",
                loss="mse",
            )
        """,
        note="last argument on its own line",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            model.compile(jit_compile=True, optimizer="sgd", loss="mse")
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            model.compile(optimizer="sgd", loss="mse")
        """,
        note="first argument",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def make_model():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer="sgd", loss="mse", jit_compile=True)
            return model

        with strategy.scope():
            model = make_model()
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def make_model():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer="sgd", loss="mse")
            return model

        with strategy.scope():
            model = make_model()
        """,
        note="factory called in the scope",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function(jit_compile=True)
        def distributed_step(batch):
            losses = strategy.run(replica_step, args=(batch,))
            return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def distributed_step(batch):
            losses = strategy.run(replica_step, args=(batch,))
            return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)
        """,
        note="XLA decorator on the outer step",
        message=(
            "`jit_compile=True` on `distributed_step`, which calls `strategy.run` of a MirroredStrategy, "
            "fails (`Trying to access resource ... from device ...`); remove it or use XLA per replica"
        ),
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])

        @tf.function(experimental_compile=True, reduce_retracing=True)
        def distributed_step(batch):
            strategy.run(replica_step, args=(batch,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])

        @tf.function(reduce_retracing=True)
        def distributed_step(batch):
            strategy.run(replica_step, args=(batch,))
        """,
        note="older experimental_compile",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def train_step(batch):
            strategy.run(replica_step, args=(batch,))

        train_step = tf.function(train_step, jit_compile=True)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def train_step(batch):
            strategy.run(replica_step, args=(batch,))

        train_step = tf.function(train_step)
        """,
        note="tf.function called on the step",
    ),
    Invalid(
        """
        import tensorflow as tf

        class Trainer:
            def __init__(self):
                self.strategy = tf.distribute.MirroredStrategy()
                self.step = tf.function(self.train_step, jit_compile=True)

            def train_step(self, batch):
                return self.strategy.run(self.replica_step, args=(batch,))
        """,
        after="""
        import tensorflow as tf

        class Trainer:
            def __init__(self):
                self.strategy = tf.distribute.MirroredStrategy()
                self.step = tf.function(self.train_step)

            def train_step(self, batch):
                return self.strategy.run(self.replica_step, args=(batch,))
        """,
        note="method compiled in __init__",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function(jit_compile=True)
        def forward(x):
            return model(x)

        def replica_step(x):
            return forward(x)

        @tf.function
        def distributed_step(x):
            return strategy.run(replica_step, args=(x,))
        """,
        note="XLA on the per-replica computation",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            model.compile(optimizer="sgd", loss="mse", jit_compile=False)
        """,
        note="XLA off",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            model.compile(optimizer="sgd", loss="mse", jit_compile="auto")
        """,
        note="Keras 3 default auto",
    ),
    Valid(
        """
        import tensorflow as tf

        model = build_model()
        model.compile(optimizer="sgd", loss="mse", jit_compile=True)
        """,
        note="no strategy",
    ),
    Valid(
        """
        import tensorflow as tf

        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="")
        strategy = tf.distribute.TPUStrategy(resolver)
        with strategy.scope():
            model = build_model()
            model.compile(optimizer="sgd", loss="mse", jit_compile=True)
        """,
        note="TPU: XLA is the normal path",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.OneDeviceStrategy("/gpu:0")

        @tf.function(jit_compile=True)
        def step(x):
            return strategy.run(replica_step, args=(x,))
        """,
        note="one device",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
        other = build_model()
        other.compile(optimizer="sgd", loss="mse", jit_compile=True)
        """,
        note="compile outside the scope of a model built outside",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        use_xla = flags.xla
        with strategy.scope():
            model = build_model()
            model.compile(optimizer="sgd", loss="mse", jit_compile=use_xla)
        """,
        note="flag from the command line",
    ),
)
