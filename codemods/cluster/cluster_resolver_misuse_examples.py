"""Examples of TFD604 (cluster-resolver-misuse).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        worker_addresses = ["10.0.0.1:2222", "10.0.0.2:2222"]
        cluster_resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
            workers=worker_addresses
        )
        """,
        after=None,
        note="seed 004 workers keyword, no task index",
    ),
    Invalid(
        """
        import tensorflow as tf

        def make_resolver(hosts, task_index):
            return tf.distribute.cluster_resolver.SimpleClusterResolver(workers=hosts)
        """,
        after="""
        import tensorflow as tf

        def make_resolver(hosts, task_index):
            return tf.distribute.cluster_resolver.SimpleClusterResolver(tf.train.ClusterSpec({"worker": hosts}), task_type="worker", task_id=task_index)
        """,
        note="task index parameter in reach",
    ),
    Invalid(
        """
        from tensorflow.distribute.cluster_resolver import SimpleClusterResolver
        import tensorflow as tf

        rank = int(os.environ["RANK"])
        resolver = SimpleClusterResolver(worker=["a:1", "b:1"])
        """,
        after="""
        from tensorflow.distribute.cluster_resolver import SimpleClusterResolver
        import tensorflow as tf

        rank = int(os.environ["RANK"])
        resolver = SimpleClusterResolver(tf.train.ClusterSpec({"worker": ["a:1", "b:1"]}), task_type="worker", task_id=rank)
        """,
        note="imported class and rank variable",
    ),
    Invalid(
        """
        import tensorflow as tf
        resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver(cluster_spec=spec)
        """,
        note="TFConfig resolver takes no cluster spec",
    ),
    Invalid(
        """
        import tensorflow as tf
        resolver = tf.distribute.cluster_resolver.SimpleClusterResolver()
        """,
        note="missing cluster spec",
    ),
    Invalid(
        """
        import tensorflow as tf
        spec = tf.train.ClusterSpec({"worker": hosts}, task_index=0)
        """,
        note="ClusterSpec takes no task",
    ),
    Invalid(
        """
        import tensorflow as tf
        resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver("worker", 0, "grpc", None, "extra")
        """,
        note="too many positional arguments",
    ),
    Invalid(
        """
        import tensorflow.compat.v2 as tf
        resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(spec, task="worker")
        """,
        note="compat alias and a misspelled keyword",
    ),
    Valid(
        """
        import tensorflow as tf
        resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
            tf.train.ClusterSpec({"worker": hosts}), task_type="worker", task_id=1, rpc_layer="grpc"
        )
        """,
        note="the working form",
    ),
    Valid(
        """
        import tensorflow as tf
        resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
        """,
        note="TF_CONFIG resolver",
    ),
    Valid(
        """
        import tensorflow as tf
        resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver(task_type="worker", task_id=0)
        """,
        note="explicit task",
    ),
    Valid(
        """
        import tensorflow as tf
        spec = tf.train.ClusterSpec({"worker": ["a:1", "b:1"]})
        """,
        note="ClusterSpec dict",
    ),
    Valid(
        """
        import tensorflow as tf
        resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(spec, "", "worker", 0)
        """,
        note="positional arguments in range",
    ),
    Valid(
        """
        import tensorflow as tf
        resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(**settings)
        """,
        note="keyword unpacking cannot be checked",
    ),
    Valid(
        """
        class SimpleClusterResolver:
            def __init__(self, workers):
                self.workers = workers

        resolver = SimpleClusterResolver(workers=["a:1"])
        """,
        note="a class of the project with the same name",
    ),
    Valid(
        """
        import tensorflow as tf
        resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(workers=hosts)  # distfix: ignore[TFD604]
        """,
        note="suppressed",
    ),
    Invalid(
        """
        from tensorflow.distribute.cluster_resolver import SimpleClusterResolver

        resolver = SimpleClusterResolver(worker=HOSTS, task_type="worker", task_id=1, rpc_layer="grpc")
        """,
        after="""
        from tensorflow.distribute.cluster_resolver import SimpleClusterResolver
        import tensorflow as tf

        resolver = SimpleClusterResolver(tf.train.ClusterSpec({"worker": HOSTS}), task_type="worker", task_id=1, rpc_layer="grpc")
        """,
        note="worker keyword with the task given: fixed, tensorflow imported",
    ),
    Invalid(
        """
        import tensorflow as tf

        spec = tf.train.ClusterSpec(workers=["h1:2222", "h2:2222"])
        """,
        after="""
        import tensorflow as tf

        spec = tf.train.ClusterSpec({"worker": ["h1:2222", "h2:2222"]})
        """,
        note="ClusterSpec with a job keyword",
    ),
    Invalid(
        """
        import tensorflow as tf

        resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(spec, task_type="worker", task_index=0)
        """,
        after="""
        import tensorflow as tf

        resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(spec, task_type="worker", task_id=0)
        """,
        note="task_index is task_id",
    ),
    Invalid(
        """
        import tensorflow as tf

        resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(workers=hosts, chief=["c:1"], task_id=0)
        """,
        note="several jobs and no task type: advice",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.experimental.ParameterServerStrategy()
        """,
        note="ParameterServerStrategy without a resolver",
    ),
    Valid(
        """
        import tensorflow as tf

        resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
        strategy = tf.distribute.ParameterServerStrategy(resolver)
        """,
        note="ParameterServerStrategy with its resolver",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.compat.v1.distribute.experimental.ParameterServerStrategy()
        """,
        note="the TensorFlow 1 class takes no resolver",
    ),
)
