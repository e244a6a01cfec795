"""Examples of TFD603 (malformed-cluster-spec).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import os
        os.environ["TF_CONFIG"] = "{'cluster': {'worker': ['w0:2222']}, 'task': {'type': 'worker', 'index': 0}}"
        """,
        note="single quotes are not JSON",
    ),
    Invalid(
        """
        import os
        os.environ["TF_CONFIG"] = '{"cluster": {"worker": ["w0:2222", "w1:2222"]}}'
        """,
        note="no task",
    ),
    Invalid(
        """
        import json
        import os
        os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["w0:2222", "w1:2222"]}, "task": {"type": "worker", "index": 5}})
        """,
        note="index out of range",
    ),
    Invalid(
        """
        import json
        import os
        os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["w0:2222", "w1:2222"]}, "task": {"type": "worker", "index": "first"}})
        """,
        note="index that is not a number",
    ),
    Invalid(
        """
        import json
        import os
        os.environ["TF_CONFIG"] = json.dumps({"cluster": {"workers": ["w0:2222"]}, "task": {"type": "workers", "index": 0}})
        """,
        count=2,
        note="unknown task type",
    ),
    Invalid(
        """
        import tensorflow as tf
        spec = tf.train.ClusterSpec({"worker": ["10.0.0.1", "10.0.0.2:22x2"]})
        """,
        count=2,
        note="missing and non-numeric port",
    ),
    Invalid(
        """
        import tensorflow as tf
        spec = tf.train.ClusterSpec({"worker": ["10.0.0.1:2222", "10.0.0.1:2222"]})
        """,
        note="duplicate address",
    ),
    Invalid(
        """
        import os
        os.environ["TF_CONFIG"] = ""
        """,
        note="empty",
    ),
    Valid(
        """
        import json
        import os
        os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["w0:2222", "w1:2222"]}, "task": {"type": "worker", "index": "1"}})
        """,
        note="a digit string index is taken for its number (benchmarks/probe_cluster_specs.py)",
    ),
    Valid(
        """
        import json
        import os
        os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["w0:2222", "w1:2222"]}, "task": {"type": "worker", "index": 1}})
        """,
        note="well formed",
    ),
    Valid(
        """
        import json
        import os
        os.environ["TF_CONFIG"] = json.dumps({
            "cluster": {"chief": ["c:2222"], "worker": ["w0:2222"], "ps": ["p:2222"]},
            "task": {"type": "chief", "index": 0},
        })
        """,
        note="chief worker ps",
    ),
    Valid(
        """
        import tensorflow as tf
        spec = tf.train.ClusterSpec({"worker": ["localhost:12345", "localhost:23456"]})
        """,
        note="local cluster with distinct ports",
    ),
    Valid(
        """
        import os
        os.environ["TF_CONFIG"] = build_config()
        """,
        note="not a literal",
    ),
    Valid(
        """
        import tensorflow as tf
        spec = tf.train.ClusterSpec(cluster_dict)
        """,
        note="cluster from a variable",
    ),
    Valid(
        """
        import json
        config = json.loads('{"cluster": {}}')
        """,
        note="not set as TF_CONFIG",
    ),
    Valid(
        """
        import os
        os.environ["TF_CONFIG"] = '{"cluster": {"worker": ["w0:1"]}}'  # distfix: ignore[TFD603]
        """,
        note="suppressed",
    ),
    Valid(
        """
        import json
        import os
        os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["[::1]:2222", "[::1]:2223"]}, "task": {"type": "worker", "index": 0}})
        """,
        note="IPv6 loopback with ports",
    ),
    Invalid(
        '''
        import os

        os.environ["TF_CONFIG"] = """{
            "cluster": {"worker": ["h0:2222", "h1:2222"],},
            "task": {"type": "worker", "index": 0}
        }"""
        ''',
        note="trailing comma, named as such",
    ),
    Invalid(
        """
        import tensorflow as tf

        spec = tf.train.ClusterSpec(cluster={"worker": ["h0:2222", "h0:2222"]})
        """,
        note="the cluster keyword is the spec",
    ),
    Valid(
        """
        import tensorflow as tf

        spec = tf.train.ClusterSpec(workers=["h1:2222", "h2:2222"])
        """,
        note="an unknown keyword is TFD604's, not a spec",
    ),
    Valid(
        """
        import tensorflow as tf

        def evaluator_config(model_dir):
            # The evaluator runs beside the training cluster, not in it: it is given no cluster.
            return tf.estimator.RunConfig(model_dir=model_dir).replace(cluster_spec=tf.train.ClusterSpec({}))
        """,
        note="a deliberately empty cluster is valid and describes no cluster to check",
    ),
    Invalid(
        """
        import tensorflow as tf

        spec = tf.train.ClusterSpec({"worker": []})
        """,
        note="a job with no address is still a defect",
    ),
    Invalid(
        """
        import tensorflow as tf

        spec = tf.train.ClusterSpec({"worker": ["localhost:5000", "127.0.0.1:5000", "localhost:5001"]})
        """,
        note="a duplicate loopback address is a duplicate too (TFD602 explains the loopback side)",
    ),
    Invalid(
        """
        import os

        os.environ["TF_CONFIG"] = '{"cluster": {"worker": ["[::1]:7000", "[::1]:7000"]}, "task": {"type": "worker", "index": 1}}'
        """,
        note="the same IPv6 loopback address twice",
    ),
)
