"""Examples of TFD602 (loopback-address-in-cluster).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import json
        import os
        os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["localhost:2222", "10.0.0.2:2222"]}, "task": {"type": "worker", "index": 0}})
        """,
        note="localhost beside a remote host",
    ),
    Invalid(
        """
        import tensorflow as tf
        spec = tf.train.ClusterSpec({"chief": ["127.0.0.1:2222"], "worker": ["gpu-node-1:2222"]})
        """,
        note="chief on 127.0.0.1",
    ),
    Invalid(
        """
        import tensorflow as tf
        spec = tf.train.ClusterSpec({"worker": ["localhost:2222", "localhost:2222"]})
        """,
        note="same loopback port twice",
    ),
    Invalid(
        """
        import os
        os.environ["TF_CONFIG"] = '{"cluster": {"worker": ["0.0.0.0:5000", "node2:5000"]}, "task": {"type": "worker", "index": 1}}'
        """,
        note="0.0.0.0 in a string",
    ),
    Invalid(
        """
        import os
        CONFIG = '{"cluster": {"worker": ["127.0.0.2:1", "w1.corp.internal:1"]}, "task": {"type": "worker", "index": 0}}'
        os.environ.update({"TF_CONFIG": CONFIG})
        """,
        note="127.0.0.2 through a constant",
    ),
    Invalid(
        """
        import os
        os.putenv("TF_CONFIG", '{"cluster": {"worker": ["[::1]:2222", "10.1.1.1:2222"]}, "task": {"type": "worker", "index": 0}}')
        """,
        note="IPv6 loopback",
    ),
    Invalid(
        """
        from tensorflow.train import ClusterSpec
        spec = ClusterSpec({"worker": ["localhost:3000", "host-b:3000"], "ps": ["localhost:4000"]})
        """,
        note="imported ClusterSpec",
    ),
    Invalid(
        """
        import json
        import os
        cfg = {"cluster": {"worker": ["localhost:1", "localhost:1", "localhost:2"]}, "task": {"type": "worker", "index": 0}}
        os.environ["TF_CONFIG"] = json.dumps(cfg)
        """,
        note="repeated loopback port in a dict",
    ),
    Valid(
        """
        import tensorflow as tf
        spec = tf.train.ClusterSpec({"worker": ["localhost:2222", "localhost:2223"]})
        """,
        note="all loopback, distinct ports",
    ),
    Valid(
        """
        import tensorflow as tf
        spec = tf.train.ClusterSpec({"worker": ["10.0.0.1:2222", "10.0.0.2:2222"]})
        """,
        note="all remote",
    ),
    Valid(
        """
        import json
        import os
        os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["127.0.0.1:5000", "127.0.0.1:5001"]}, "task": {"type": "worker", "index": 0}})
        """,
        note="local test cluster",
    ),
    Valid(
        """
        import tensorflow as tf
        spec = tf.train.ClusterSpec({"worker": hosts})
        """,
        note="hosts from a variable",
    ),
    Valid(
        """
        import os
        os.environ["TF_CONFIG"] = make_config("localhost")
        """,
        note="built by a function",
    ),
    Valid(
        """
        servers = ["localhost:2222", "db.example.com:5432"]
        """,
        note="not a cluster spec",
    ),
    Valid(
        """
        import tensorflow as tf
        spec = tf.train.ClusterSpec({"worker": ["localhost:2222", "h2:2222"]})  # distfix: ignore[TFD602]
        """,
        note="suppressed",
    ),
    Valid(
        """
        import tensorflow as tf
        spec = tf.train.ClusterSpec({"worker": ["localhost.corp.internal:2222", "h2:2222"]})
        """,
        note="a real host whose name starts with localhost",
    ),
)
