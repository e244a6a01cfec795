"""Examples of TFD605 (tf-config-set-after-strategy).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import json
        import os
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": 0}})
        """,
        note="assigned on the next line",
    ),
    Invalid(
        """
        import json
        import os
        import sys
        import tensorflow as tf

        def main():
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            hosts = sys.argv[1].split(",")
            os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": hosts}, "task": {"type": "worker", "index": int(sys.argv[2])}})
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        """,
        note="inside a function, built from the command line",
    ),
    Invalid(
        """
        import os
        import tensorflow as tf

        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
        if "CLUSTER" in os.environ:
            os.environ["TF_CONFIG"] = os.environ["CLUSTER"]
        """,
        note="the experimental name, assigned in a later if",
    ),
    Invalid(
        """
        import os
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        os.environ.update({"TF_CONFIG": open("cluster.json").read()})
        """,
        note="through os.environ.update",
    ),
    Invalid(
        """
        import os
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        os.environ.setdefault("TF_CONFIG", '{"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": 1}}')
        """,
        note="through setdefault",
    ),
    Invalid(
        """
        import os
        from tensorflow.distribute import MultiWorkerMirroredStrategy

        strategy = MultiWorkerMirroredStrategy()
        os.putenv("TF_CONFIG", os.environ["CLUSTER_JSON"])
        """,
        note="imported class, os.putenv",
    ),
    Invalid(
        """
        import json
        import os
        import tensorflow as tf

        for attempt in range(3):
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with open("cluster.json") as handle:
                os.environ["TF_CONFIG"] = handle.read()
        """,
        note="later in a loop body, inside a with",
    ),
    Invalid(
        """
        import os
        import tensorflow as tf

        resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
        strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)
        os.environ["TF_CONFIG"] = os.environ["SM_TF_CONFIG"]
        """,
        note="with a TF_CONFIG resolver passed in",
    ),
    Invalid(
        """
        import json
        import os
        import tensorflow as tf

        def train(index):
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            try:
                os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": index}})
            except OSError:
                pass
        """,
        note="inside a later try",
    ),
    Valid(
        """
        import json
        import os
        import tensorflow as tf

        os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": 0}})
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        note="TF_CONFIG first",
    ),
    Valid(
        """
        import os
        import tensorflow as tf

        if os.environ.get("LOCAL"):
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
        else:
            os.environ["TF_CONFIG"] = os.environ["CLUSTER"]
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        note="the early strategy is in the other branch",
    ),
    Valid(
        """
        import os
        import subprocess
        import sys
        import tensorflow as tf

        def worker():
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            return strategy

        def launch(config):
            env = dict(os.environ)
            os.environ["TF_CONFIG"] = config
            subprocess.Popen([sys.executable, __file__])
        """,
        note="the assignment is in another function (a launcher)",
    ),
    Valid(
        """
        import os
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        os.environ["TF_CONFIG"] = os.environ["CLUSTER"]
        """,
        note="MirroredStrategy never reads TF_CONFIG",
    ),
    Valid(
        """
        import os
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        print(os.environ.get("TF_CONFIG"))
        """,
        note="TF_CONFIG only read afterwards",
    ),
    Valid(
        """
        import os
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        os.environ.pop("TF_CONFIG", None)
        """,
        note="TF_CONFIG removed afterwards, not set",
    ),
    Valid(
        """
        import os
        import tensorflow as tf

        def build():
            return tf.distribute.MultiWorkerMirroredStrategy()

        os.environ["TF_CONFIG"] = os.environ["CLUSTER"]
        strategy = build()
        """,
        note="the construction in a function called after the assignment",
    ),
    Valid(
        """
        import os
        import tensorflow as tf

        class Trainer:
            def __init__(self):
                self.strategy = tf.distribute.MultiWorkerMirroredStrategy()

        os.environ["TF_CONFIG"] = os.environ["CLUSTER"]
        trainer = Trainer()
        """,
        note="the construction in a method run after the assignment",
    ),
    Valid(
        """
        import os
        import tensorflow as tf

        os.environ["OTHER"] = "1"
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        os.environ["CUDA_VISIBLE_DEVICES"] = "0"
        """,
        note="other variables afterwards",
    ),
    Invalid(
        """
        import os
        import tensorflow as tf

        def make():
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            os.environ["TF_CONFIG"] = os.environ["CLUSTER"]
            return strategy

        backup = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        note="a strategy created elsewhere afterwards does not take the function's late assignment",
    ),
    Valid(
        """
        import json
        import os
        import tensorflow as tf

        os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": 0}})
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

        # Second reproduction, pasted below the first.
        os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["c:1", "d:1"]}, "task": {"type": "worker", "index": 1}})
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        note="two programs one after the other, each setting TF_CONFIG before its strategy",
    ),
    Valid(
        """
        import os
        import tensorflow as tf

        local = tf.distribute.MultiWorkerMirroredStrategy()
        print(local.num_replicas_in_sync)

        os.environ["TF_CONFIG"] = os.environ["CLUSTER"]
        clustered = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        note="a single-worker run, then a second program whose strategy follows its TF_CONFIG",
    ),
    Valid(
        """
        import os
        import tensorflow as tf

        os.environ["TF_CONFIG"] = os.environ["CLUSTER"]
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        os.environ["TF_CONFIG"] = os.environ["EVAL_CLUSTER"]
        """,
        note="TF_CONFIG was already set when the strategy read it; the later value is for something else",
    ),
)
