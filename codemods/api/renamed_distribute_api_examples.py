"""Examples of TFD401 (renamed-distribute-api).

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

        @tf.function
        def step(batch):
            return strategy.experimental_run_v2(replica_fn, args=(batch,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def step(batch):
            return strategy.run(replica_fn, args=(batch,))
        """,
        note="experimental_run_v2",
        range="7:21-7:40",
        message="`experimental_run_v2` is removed in TensorFlow 2.21 (`AttributeError`); use `run`",
        applicability=Applicability.SAFE,
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dist = strategy.experimental_distribute_datasets_from_function(make_dataset)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dist = strategy.distribute_datasets_from_function(make_dataset)
        """,
        note="datasets from function",
        range="4:17-4:63",
        applicability=Applicability.SAFE,
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        note="experimental MWMS",
        range="3:12-3:66",
        applicability=Applicability.SAFE,
    ),
    Invalid(
        """
        import tensorflow.compat.v2 as tf2

        resolver = tf2.distribute.cluster_resolver.TPUClusterResolver(tpu="")
        strategy = tf2.distribute.experimental.TPUStrategy(resolver)
        """,
        after="""
        import tensorflow.compat.v2 as tf2

        resolver = tf2.distribute.cluster_resolver.TPUClusterResolver(tpu="")
        strategy = tf2.distribute.TPUStrategy(resolver)
        """,
        note="compat v2 alias TPUStrategy",
        range="4:12-4:51",
        applicability=Applicability.SAFE,
    ),
    Invalid(
        """
        from tensorflow.distribute.experimental import MultiWorkerMirroredStrategy

        strategy = MultiWorkerMirroredStrategy()
        """,
        after=None,
        note="from import: ImportError on TensorFlow 2.21",
        range="1:6-1:40",
        message="`from tensorflow.distribute.experimental import MultiWorkerMirroredStrategy` raises `ImportError` on "
        "TensorFlow 2.21; use `tf.distribute.MultiWorkerMirroredStrategy` after `import tensorflow as tf`",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        from tensorflow.distribute import MirroredStrategy

        strategy = MirroredStrategy()
        """,
        after=None,
        note="stale import of a current name",
        range="1:6-1:27",
        message="`from tensorflow.distribute import MirroredStrategy` raises `ImportError` on TensorFlow 2.21; "
        "use `tf.distribute.MirroredStrategy` after `import tensorflow as tf`",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import tensorflow as tf

        class Trainer:
            def __init__(self, strategy: tf.distribute.Strategy):
                self.strategy = strategy

            def train_step(self, batch):
                return self.strategy.experimental_run_v2(self.step_fn, args=(batch,))
        """,
        after="""
        import tensorflow as tf

        class Trainer:
            def __init__(self, strategy: tf.distribute.Strategy):
                self.strategy = strategy

            def train_step(self, batch):
                return self.strategy.run(self.step_fn, args=(batch,))
        """,
        note="strategy held on self",
        range="8:30-8:49",
        applicability=Applicability.SAFE,
    ),
    Invalid(
        """
        import tensorflow as tf

        options = tf.distribute.experimental.CommunicationOptions(
            implementation=tf.distribute.experimental.CollectiveCommunication.RING
        )
        """,
        after="""
        import tensorflow as tf

        options = tf.distribute.experimental.CommunicationOptions(
            implementation=tf.distribute.experimental.CommunicationImplementation.RING
        )
        """,
        note="CollectiveCommunication",
        range="4:20-4:70",
        applicability=Applicability.SAFE,
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy(
            communication=tf.distribute.experimental.CommunicationImplementation.RING
        )
        """,
        after=None,
        note="keyword only the experimental class takes",
        range="3:12-3:66",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        from tensorflow.distribute import experimental as dx

        strategy = dx.MultiWorkerMirroredStrategy()
        """,
        after=None,
        note="module alias without a current spelling",
        range="3:12-3:42",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def step(batch):
            return strategy.run(replica_fn, args=(batch,))
        """,
        note="current run",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        note="current MWMS",
    ),
    Valid(
        """
        class Legacy:
            def experimental_run_v2(self, fn):
                return fn()

        Legacy().experimental_run_v2(print)
        """,
        note="unrelated object with the same method",
    ),
    Valid(
        """
        import tensorflow as tf

        options = tf.distribute.experimental.CommunicationOptions(
            implementation=tf.distribute.experimental.CommunicationImplementation.NCCL
        )
        """,
        note="current experimental API",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.experimental.CentralStorageStrategy()
        """,
        note="still experimental",
    ),
    Valid(
        """
        # strategy.experimental_run_v2(fn) was renamed to strategy.run(fn)
        import tensorflow as tf
        """,
        note="mentioned in a comment",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dist = strategy.distribute_datasets_from_function(make_dataset)
        """,
        note="current datasets from function",
    ),
    Valid(
        """
        from mylib.distribute.experimental import MultiWorkerMirroredStrategy

        strategy = MultiWorkerMirroredStrategy()
        """,
        note="another library",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        strategy.experimental_run_v2(fn)  # distfix: ignore[TFD401]
        """,
        note="suppressed",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy(
            tf.distribute.experimental.CollectiveCommunication.NCCL
        )
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy(
            tf.distribute.experimental.CommunicationImplementation.NCCL
        )
        """,
        count=2,
        note="positional communication: the class is not renamed, its argument is",
        range="3:12-3:66",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        iterator = strategy.make_dataset_iterator(train_dataset)
        """,
        note="the TensorFlow 1 input method: advice, no edit",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        loss = strategy.experimental_run(train_step, iterator)
        """,
        note="the TensorFlow 1 step method: advice, no edit",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.compat.v1.distribute.MirroredStrategy()
        iterator = strategy.make_dataset_iterator(train_dataset)
        """,
        note="a tf.compat.v1 strategy's own method",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        strategy.orig_make_dataset_iterator = strategy.make_dataset_iterator
        strategy.make_dataset_iterator = make_iterator
        """,
        note="a method patched, not called",
    ),
)
