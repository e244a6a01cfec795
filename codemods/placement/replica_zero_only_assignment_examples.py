"""Examples of TFD102 (replica-zero-only-assignment).

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

        def initialize_var(var):
            if tf.distribute.get_replica_context().replica_id_in_sync_group == 0:  # Only chief worker
                var.assign(tf.constant([1.0]))

        with strategy.scope():
            mirrored_var = tf.Variable(tf.zeros([1]))
            strategy.run(initialize_var, args=(mirrored_var,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def initialize_var(var):
            var.assign(tf.constant([1.0]))

        with strategy.scope():
            mirrored_var = tf.Variable(tf.zeros([1]))
            strategy.run(initialize_var, args=(mirrored_var,))
        """,
        note="seed 001 guard dropped",
        range="6:8-6:73",
        applicability=Applicability.UNSAFE,
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(v):
            ctx = tf.distribute.get_replica_context()
            rid = ctx.replica_id_in_sync_group
            if rid == 0:
                v.assign([5.0, 7.0])
                v.assign_add([1.0, 1.0])

        strategy.run(replica_fn, args=(v,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(v):
            ctx = tf.distribute.get_replica_context()
            rid = ctx.replica_id_in_sync_group
            v.assign([5.0, 7.0])
            v.assign_add([1.0, 1.0])

        strategy.run(replica_fn, args=(v,))
        """,
        note="replica id through locals",
        range="8:8-8:16",
        applicability=Applicability.UNSAFE,
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def step():
            def replica_fn():
                if tf.distribute.get_replica_context().replica_id_in_sync_group == 0:
                    counter.assign_add(1)
                    tf.print("replica 0 counted")
            strategy.run(replica_fn)
        """,
        after=None,
        note="other code under the guard: advice",
        range="8:12-8:77",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(v):
            ctx = tf.distribute.get_replica_context()
            if ctx.replica_id_in_sync_group != 0:
                pass
            else:
                v.assign(1.0)

        strategy.run(replica_fn, args=(v,))
        """,
        after=None,
        note="guard with else",
        range="7:8-7:41",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def replica_fn(v):
            if strategy.cluster_resolver.task_id == 0:
                v.assign(tf.ones([2]))

        strategy.run(replica_fn, args=(v,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def replica_fn(v):
            v.assign(tf.ones([2]))

        strategy.run(replica_fn, args=(v,))
        """,
        note="task id of the chief worker",
        range="6:8-6:46",
        applicability=Applicability.UNSAFE,
    ),
    Invalid(
        """
        import tensorflow as tf


        class Loop:
            def __init__(self, strategy):
                self.strategy = strategy
                self.is_chief = True

            def init_fn(self):
                if self.is_chief:
                    self.table.assign(self.initial)

            def run(self):
                self.strategy.run(self.init_fn, args=())
        """,
        after="""
        import tensorflow as tf


        class Loop:
            def __init__(self, strategy):
                self.strategy = strategy
                self.is_chief = True

            def init_fn(self):
                self.table.assign(self.initial)

            def run(self):
                self.strategy.run(self.init_fn, args=())
        """,
        note="chief flag in a method",
        range="10:12-10:25",
        applicability=Applicability.UNSAFE,
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        INITIAL = tf.constant([0.5, 0.5])

        def load(v):
            if tf.distribute.get_replica_context().replica_id_in_sync_group == 0:
                v.assign(INITIAL * 2.0)

        def replica_fn(v):
            load(v)
            return v.read_value()

        strategy.run(replica_fn, args=(v,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        INITIAL = tf.constant([0.5, 0.5])

        def load(v):
            v.assign(INITIAL * 2.0)

        def replica_fn(v):
            load(v)
            return v.read_value()

        strategy.run(replica_fn, args=(v,))
        """,
        note="helper called by the replica fn, module-level constant value",
        range="8:8-8:73",
        applicability=Applicability.UNSAFE,
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            latest = tf.Variable(0.0, trainable=False)

        def record(value):
            if tf.distribute.get_replica_context().replica_id_in_sync_group == 0:
                latest.assign(value)

        def replica_fn(x):
            err = tf.reduce_mean(tf.abs(x))
            record(err)
            return err

        strategy.run(replica_fn, args=(x,))
        """,
        after=None,
        note="the value differs per replica: dropping the guard would be wrong, advice",
        range="8:8-8:73",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(total):
            r = tf.distribute.get_replica_context()
            tf.cond(
                tf.math.equal(r.replica_id_in_sync_group, 0),
                lambda: stats.assign_add(tf.ones([4])),
                lambda: tf.identity(stats),
            )
            return total

        strategy.run(replica_fn, args=(total,))
        """,
        after=None,
        note="tf.cond on the replica id: advice",
        range="7:5-11:6",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        strategy.run(
            lambda v: v.assign(1.0) if tf.distribute.get_replica_context().replica_id_in_sync_group == 0 else v,
            args=(v,),
        )
        """,
        after=None,
        note="conditional expression in a lambda",
        range="5:15-5:104",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(v):
            v.assign([5.0, 7.0])

        strategy.run(replica_fn, args=(v,))
        """,
        note="every replica assigns",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            v = tf.Variable([0.0, 0.0])
        v.assign([5.0, 7.0])
        """,
        note="cross-replica assign",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            if tf.distribute.get_replica_context().replica_id_in_sync_group == 0:
                tf.print("replica 0 sees", x)
            return x

        strategy.run(replica_fn, args=(x,))
        """,
        note="logging on replica 0",
    ),
    Valid(
        """
        import tensorflow as tf

        resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
        if resolver.task_id == 0:
            model.save("/models/final")
        """,
        note="outside any replica function",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(v, step):
            if step == 0:
                v.assign(1.0)

        strategy.run(replica_fn, args=(v, 0))
        """,
        note="guard on the step not the replica",
    ),
    Valid(
        """
        def init(task_id, cache):
            if task_id == 0:
                cache.assign(1)

        init(0, cache)
        """,
        note="no strategy",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(v):
            if tf.distribute.get_replica_context().replica_id_in_sync_group == 0:  # distfix: ignore[TFD102]
                v.assign(1.0)

        strategy.run(replica_fn, args=(v,))
        """,
        note="suppressed",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(v):
            ctx = tf.distribute.get_replica_context()
            v.assign(tf.cast(ctx.replica_id_in_sync_group, tf.float32))

        strategy.run(replica_fn, args=(v,))
        """,
        note="replica id used as a value",
    ),
    Valid(
        """
        import tensorflow as tf

        device = tf.distribute.OneDeviceStrategy("/gpu:0")
        with device.scope():
            best = tf.Variable(1e9)

        def replica_fn(loss):
            if tf.distribute.get_replica_context().replica_id_in_sync_group == 0:
                best.assign(tf.minimum(best, loss))
            return loss

        device.run(replica_fn, args=(loss,))
        """,
        note="OneDeviceStrategy: one replica",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            r = tf.distribute.get_replica_context()
            return tf.cond(tf.equal(r.replica_id_in_sync_group, 0), lambda: x * 2.0, lambda: x)

        strategy.run(replica_fn, args=(x,))
        """,
        note="tf.cond on the replica id that assigns nothing",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            initialized = tf.Variable(False, trainable=False)

        def replica_fn(batch):
            ctx = tf.distribute.get_replica_context()
            initialized.assign(True) if ctx.replica_id_in_sync_group == 0 else None
            return batch

        @tf.function
        def step(batch):
            return strategy.run(replica_fn, args=(batch,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            initialized = tf.Variable(False, trainable=False)

        def replica_fn(batch):
            ctx = tf.distribute.get_replica_context()
            initialized.assign(True)
            return batch

        @tf.function
        def step(batch):
            return strategy.run(replica_fn, args=(batch,))
        """,
        note="conditional expression statement with a constant: the guard is dropped",
        range="9:5-9:76",
        applicability=Applicability.UNSAFE,
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(loss):
            last_loss.assign(loss) if tf.distribute.get_replica_context().replica_id_in_sync_group == 0 else None
            return loss

        strategy.run(replica_fn, args=(loss,))
        """,
        after=None,
        note="conditional expression assigning a per-replica value: advice",
        range="6:5-6:106",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            rid = tf.distribute.get_replica_context().replica_id_in_sync_group
            _ = rid == 0 and seen.assign_add(1)
            return x

        strategy.run(replica_fn, args=(x,))
        """,
        after=None,
        note="`rid == 0 and v.assign_add(...)`: advice",
        range="7:9-7:40",
        applicability=Applicability.DISPLAY_ONLY,
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            table = tf.Variable(tf.zeros((100, 8)))


        def load(weights):
            if tf.distribute.get_replica_context().replica_id_in_sync_group == 0:
                table.assign(weights)


        initial = tf.ones((100, 8))


        def replica_init():
            load(initial)


        strategy.run(replica_init)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            table = tf.Variable(tf.zeros((100, 8)))


        def load(weights):
            table.assign(weights)


        initial = tf.ones((100, 8))


        def replica_init():
            load(initial)


        strategy.run(replica_init)
        """,
        note="a helper's parameter given a module-level tensor at every call: same on every replica",
        range="9:8-9:73",
        applicability=Applicability.UNSAFE,
    ),
)
