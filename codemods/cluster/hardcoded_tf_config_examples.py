"""Examples of TFD601 (hardcoded-tf-config).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one. Each is
checked alone, where no launcher is known to set TF_CONFIG, so each is advice; the rewrites
these examples showed are checked in a project with such a launcher
(tests/rules/test_tfd601_rewrite_with_launcher.py).
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid
from fixer.types import Applicability

EXAMPLES = (
    Invalid(
        '''
        import os
        import tensorflow as tf

        os.environ['TF_CONFIG'] = """
        {
            "cluster": {
                "worker": ["10.0.0.1:2222", "10.0.0.2:2222"]
            },
            "task": {"type": "worker", "index": 0}
        }
        """
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        ''',
        after=None,
        note="seed 004 triple-quoted string",
        range="4:1-11:4",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import json
        import os
        import tensorflow as tf

        tf_config = {"cluster": {"worker": ["host1:2222", "host2:2222"]}, "task": {"type": "worker", "index": 1}}
        os.environ["TF_CONFIG"] = json.dumps(tf_config)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after=None,
        note="json.dumps of a named dict",
        range="6:1-6:48",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import json
        from os import environ
        import tensorflow as tf

        environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": 0}})
        strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
        """,
        after=None,
        note="environ imported, strategy with options",
        range="5:1-5:115",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import os as operating_system
        import tensorflow as tf

        PORT = 2222
        operating_system.environ.update({"TF_CONFIG": f'{{"cluster": {{"worker": ["w0:{PORT}", "w1:{PORT}"]}}, "task": {{"type": "worker", "index": 0}}}}'})
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after=None,
        note="update with an f-string of literals",
        range="5:1-5:149",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import os
        import tensorflow as tf

        os.environ.setdefault("TF_CONFIG", '{"cluster": {"worker": ["w0:1", "w1:1"]}, "task": {"type": "worker", "index": 0}}')
        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
        """,
        after=None,
        note="setdefault with the experimental class",
        range="4:1-4:120",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import os
        import tensorflow as tf

        os.putenv("TF_CONFIG", '{"cluster": {"worker": ["w0:1"]}, "task": {"type": "worker", "index": 0}}')
        """,
        after=None,
        note="putenv without a strategy",
        range="4:1-4:100",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import os
        import tensorflow as tf

        def main():
            os.environ["TF_CONFIG"] = '{"cluster": {"worker": ["w0:1", "w1:1"]}, "task": {"type": "worker", "index": 0}}'
            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
            strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)
        """,
        after=None,
        note="in a function, resolver already given",
        range="5:5-5:114",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import os
        import tensorflow as tf

        if True: os.environ["TF_CONFIG"] = '{"cluster": {"worker": ["w0:1"]}, "task": {"type": "worker", "index": 0}}'
        """,
        after=None,
        note="on a compound line: advice",
        range="4:10-4:111",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Valid(
        """
        import json
        import os
        import tensorflow as tf

        def main(args):
            os.environ["TF_CONFIG"] = json.dumps(
                {"cluster": {"worker": args.workers}, "task": {"type": "worker", "index": args.index}}
            )
        """,
        note="built from command-line flags",
    ),
    Valid(
        """
        import os
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy(
            cluster_resolver=tf.distribute.cluster_resolver.TFConfigClusterResolver()
        )
        """,
        note="read from the environment",
    ),
    Valid(
        """
        import os

        os.environ["TF_CONFIG"] = os.environ["CLUSTER_SPEC"]
        """,
        note="copied from another variable",
    ),
    Valid(
        """
        import os

        config = os.environ.get("TF_CONFIG", "{}")
        """,
        note="read not written",
    ),
    Valid(
        """
        import os

        os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
        """,
        note="another variable",
    ),
    Valid(
        """
        import json
        import os
        import sys

        workers = sys.argv[1].split(",")
        os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": workers}, "task": {"type": "worker", "index": int(sys.argv[2])}})
        """,
        note="from sys.argv",
    ),
    Valid(
        """
        import os

        os.environ.pop("TF_CONFIG", None)
        """,
        note="removed",
    ),
    Valid(
        """
        import os

        os.environ["TF_CONFIG"] = '{"cluster": {"worker": ["w0:1"]}, "task": {"type": "worker", "index": 0}}'  # distfix: ignore[TFD601]
        """,
        note="suppressed",
    ),
    Invalid(
        """
        import json
        import os

        import tensorflow as tf

        os.environ["TF_CONFIG"] = json.dumps(dict(cluster=dict(worker=["n1:2222", "n2:2222"]), task=dict(type="worker", index=0)))
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after=None,
        note="json.dumps of dict(...) calls",
        range="6:1-6:123",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import json
        import os

        import tensorflow as tf

        os.environ.update({
            "TF_CPP_MIN_LOG_LEVEL": "2",
            "TF_CONFIG": json.dumps({"cluster": {"worker": ["g1:4000", "g2:4000"]}, "task": {"type": "worker", "index": 1}}),
        })
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after=None,
        note="update() with another variable: only the TF_CONFIG key goes",
        range="6:1-9:3",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import os

        import tensorflow as tf

        os.environ.update(TF_CONFIG='{"cluster": {"worker": ["n1:1", "n2:1"]}, "task": {"type": "worker", "index": 0}}', NCCL_DEBUG="WARN")
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after=None,
        note="update() keywords: only TF_CONFIG goes",
        range="5:1-5:132",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import json
        import os

        import tensorflow as tf


        def configure():
            spec = {"cluster": {"worker": ["a.example:2222", "b.example:2222"]}, "task": {"type": "worker", "index": 0}}
            os.environ["TF_CONFIG"] = json.dumps(spec)


        configure()
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after=None,
        note="the only statement of a function: pass remains",
        range="9:5-9:47",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import os

        import tensorflow as tf

        os.environ["TF_CONFIG"] = '{"cluster": {"worker": ["n1:2222", "n2"]}, "task": {"type": "worker", "index": 0}}'
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after=None,
        note="a cluster no launcher can carry is kept: advice",
        range="5:1-5:111",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import json
        import os

        import tensorflow as tf

        cfg = {"cluster": {"worker": ["n1:2222", "n2:2222"]}, "task": {"type": "worker", "index": 0}}
        cfg["task"]["index"] = 1
        os.environ["TF_CONFIG"] = json.dumps(cfg)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after=None,
        note="a literal changed by a literal item assignment",
        range="8:1-8:42",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Valid(
        """
        import json
        import os

        import tensorflow as tf

        cfg = {"cluster": {"worker": ["n1:2222", "n2:2222"]}, "task": {"type": "worker", "index": 0}}
        cfg["task"]["index"] = args.task_index
        os.environ["TF_CONFIG"] = json.dumps(cfg)
        """,
        note="the index set from flags afterwards",
    ),
    Valid(
        """
        import json
        import os

        cfg = {"cluster": {"worker": ["n1:2222", "n2:2222"]}, "task": {"type": "worker"}}
        fill_task(cfg)
        os.environ["TF_CONFIG"] = json.dumps(cfg)
        """,
        note="handed to a function that may fill it",
    ),
    Valid(
        """
        import json
        import os

        cfg = {"cluster": {"worker": ["n1:2222", "n2:2222"]}}
        cfg.update(task={"type": "worker", "index": int(os.environ["RANK"])})
        os.environ["TF_CONFIG"] = json.dumps(cfg)
        """,
        note="updated from the environment",
    ),
    Invalid(
        """
        import os
        import tensorflow as tf

        os.environ.setdefault(
            "TF_CONFIG",
            '{"cluster": {"worker": ["node-a:2000", "node-b:2000"]}, '
            '"task": {"type": "worker", "index": 1}}',
        )
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after=None,
        note="setdefault with implicitly concatenated strings over several lines",
        range="4:1-8:2",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import os
        import tensorflow as tf

        os.environ.pop("TF_CONFIG", None)
        os.environ["TF_CONFIG"] = ('{"cluster": {"chief": ["c0:3000"], "worker": ["w0:3000"]}, '
                                   '"task": {"type": "chief", "index": 0}}')
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after=None,
        note="a pop that made room for it would erase the launcher's TF_CONFIG: removed too",
        range="5:1-6:69",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import json
        import os
        import tensorflow as tf


        def configure():
            if "TF_CONFIG" in os.environ:
                del os.environ["TF_CONFIG"]
            previous = os.environ.pop("TF_CONFIG", None)
            os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["p:1", "q:1"]}, "task": {"type": "worker", "index": 0}})
            return previous


        configure()
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after=None,
        note="a guarded del goes; a pop whose value is kept reads instead of deleting",
        range="10:5-10:122",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Valid(
        """
        import os
        import tensorflow as tf

        os.environ.pop("TF_CONFIG", None)
        strategy = tf.distribute.MirroredStrategy()
        """,
        note="TF_CONFIG cleared for a single-machine run, nothing hard-coded",
    ),
    Invalid(
        """
        import os
        import tensorflow as tf

        os.environ["TF_CONFIG"] = '{"cluster": {"worker": ["localhost:4000", "localhost:4000"]}, "task": {"type": "worker", "index": 0}}'
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after=None,
        note="a duplicate loopback address is a TFD603 defect: kept, advice",
        range="4:1-4:130",
        applicability=Applicability.DISPLAY_ONLY,
    ),
)
