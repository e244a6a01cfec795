"""Examples of TFD108 (per-replica-value-used-as-tensor).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def train_step(x):
            return strategy.run(replica_step, args=(x,))

        for x in dist_dataset:
            loss = train_step(x)
            print("loss", loss.numpy())
        """,
        note="numpy of a step returning run",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        for x in dist_dataset:
            losses = strategy.run(replica_step, args=(x,))
            total += float(losses)
        """,
        note="float of a run result",
    ),
    Invalid(
        """
        import numpy as np
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        history = []
        for x in dist_dataset:
            history.append(np.mean(strategy.run(replica_step, args=(x,))))
        """,
        note="np.mean of run",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def train_step(x):
            per_replica = strategy.run(replica_step, args=(x,))
            return per_replica

        loss = train_step(batch)
        print(f"loss {loss:.4f}")
        """,
        note="formatted, returned through a name",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def train_step(x):
            losses = strategy.run(replica_step, args=(x,))
            return tf.reduce_mean(losses)
        """,
        note="tf op on the run result in the step",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        for x in dist_dataset:
            loss, accuracy = strategy.run(replica_step, args=(x,))
            print(int(accuracy))
        """,
        note="unpacked tuple",
    ),
    Invalid(
        """
        import tensorflow as tf


        class Trainer:
            def __init__(self):
                self.strategy = tf.distribute.MirroredStrategy()

            @tf.function
            def step(self, x):
                return self.strategy.run(self.replica_step, args=(x,))

            def train(self, dataset):
                for x in dataset:
                    self.losses.append(self.step(x).numpy())
        """,
        note="method returning run",
    ),
    Invalid(
        """
        import tensorflow as tf

        def evaluate(strategy: tf.distribute.Strategy, batches):
            for batch in batches:
                outputs = strategy.run(predict_step, args=(batch,))
                scores = outputs[0].numpy()
        """,
        note="an element of the result",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def distributed_step(x):
            return strategy.run(replica_step, args=(x,))

        train_step = tf.function(distributed_step)
        for x in dist_dataset:
            print(train_step(x).numpy())
        """,
        note="step compiled by a tf.function call",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def train_step(x):
            per_replica = strategy.run(replica_step, args=(x,))
            return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

        loss = train_step(batch)
        print(f"loss {loss:.4f}", float(loss), loss.numpy())
        """,
        note="reduced in the step",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        for x in dist_dataset:
            losses = strategy.run(replica_step, args=(x,))
            losses = strategy.reduce("SUM", losses, axis=None)
            print(float(losses))
        """,
        note="name rebound to the reduce",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        for x in dist_dataset:
            losses = strategy.run(replica_step, args=(x,))
            print([float(v) for v in strategy.experimental_local_results(losses)])
        """,
        note="local results",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.OneDeviceStrategy("/gpu:0")

        for x in dataset:
            loss = strategy.run(replica_step, args=(x,))
            print(float(loss))
        """,
        note="one replica: run returns the tensor",
    ),
    Valid(
        """
        import ray

        executor = ray.train.Executor()
        result = executor.run(train_fn, args=[config])
        print(float(result))
        """,
        note="not a strategy",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_step(x):
            inner = model(x)
            return float(tf.reduce_sum(inner).numpy())

        for x in dist_dataset:
            losses = strategy.run(replica_step, args=(x,))
            print(losses)
        """,
        note="print shows every replica, numpy inside the replica fn",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def train_step(x):
            return strategy.run(replica_step, args=(x,))

        for x in dist_dataset:
            loss = train_step(x)
            loss = tf.nest.map_structure(lambda t: t, strategy.experimental_local_results(loss))
            tf.print(train_step(x))
        """,
        note="nest and tf.print accept PerReplica",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def train_step(x):
            if fast:
                return strategy.reduce("SUM", strategy.run(replica_step, args=(x,)), axis=None)
            return strategy.run(replica_step, args=(x,))

        print(float(train_step(x)))
        """,
        note="a step that returns run on one path only",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def train_step(x):
            return strategy.run(replica_step, args=(x,))

        def train_step(x):
            return strategy.reduce("SUM", strategy.run(replica_step, args=(x,)), axis=None)

        print(float(train_step(x)))
        """,
        note="step redefined later (notebook cells) to reduce",
    ),
)
