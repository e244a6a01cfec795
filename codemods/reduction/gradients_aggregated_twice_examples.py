"""Examples of TFD305 (gradients-aggregated-twice).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = tf.keras.optimizers.SGD(0.01)


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model, x, y)
            grads = tape.gradient(loss, model.trainable_variables)
            grads = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grads)
            grads, _ = tf.clip_by_global_norm(grads, 1.0)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))


        @tf.function
        def step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="Keras 3: all-reduce, clip, apply",
    ),
    Invalid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = tf_keras.optimizers.Adam()


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model, x, y)
            grads = tape.gradient(loss, model.trainable_variables)
            grads = tf.distribute.get_replica_context().all_reduce("sum", grads)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))


        @tf.function
        def step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        after="""
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = tf_keras.optimizers.Adam()


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model, x, y)
            grads = tape.gradient(loss, model.trainable_variables)
            grads = tf.distribute.get_replica_context().all_reduce("sum", grads)
            optimizer.apply_gradients(zip(grads, model.trainable_variables), experimental_aggregate_gradients=False)


        @tf.function
        def step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="tf-keras: the keyword is added",
    ),
    Invalid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = tf_keras.optimizers.SGD(0.1, momentum=0.9)


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model, x, y)
            grads = tape.gradient(loss, model.trainable_variables)
            ctx = tf.distribute.get_replica_context()
            summed = ctx.all_reduce(tf.distribute.ReduceOp.SUM, grads)
            clipped = [tf.clip_by_norm(g, 5.0) for g in summed]
            optimizer.apply_gradients(
                zip(clipped, model.trainable_variables),
            )


        @tf.function
        def step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        after="""
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = tf_keras.optimizers.SGD(0.1, momentum=0.9)


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model, x, y)
            grads = tape.gradient(loss, model.trainable_variables)
            ctx = tf.distribute.get_replica_context()
            summed = ctx.all_reduce(tf.distribute.ReduceOp.SUM, grads)
            clipped = [tf.clip_by_norm(g, 5.0) for g in summed]
            optimizer.apply_gradients(
                zip(clipped, model.trainable_variables), experimental_aggregate_gradients=False,
            )


        @tf.function
        def step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="tf-keras, through a comprehension",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = tf.keras.optimizers.Adam()


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model, x, y)
            grads = tape.gradient(loss, model.trainable_variables)
            grads = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grads)
            optimizer.apply_gradients(zip(grads, model.trainable_variables), skip_gradients_aggregation=True)


        @tf.function
        def step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="Keras 3 has no skip keyword",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = tf.keras.optimizers.Adam()


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model, x, y)
            grads = tape.gradient(loss, model.trainable_variables)
            grads = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grads)
            optimizer.apply_gradients(zip(grads, model.trainable_variables), experimental_aggregate_gradients=False)


        @tf.function
        def step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="Keras 3 has no experimental_aggregate_gradients",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = make_optimizer()


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model, x, y)
            grads = tape.gradient(loss, model.trainable_variables)
            reduced = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grads)
            for g, v in zip(reduced, model.trainable_variables):
                tf.debugging.check_numerics(g, v.name)
            optimizer.apply_gradients(zip(reduced, model.trainable_variables))


        @tf.function
        def step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="optimizer of unknown Keras: advice",
    ),
    Invalid(
        """
        import tensorflow as tf
        import keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = keras.optimizers.RMSprop()


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model, x, y)
            grads = tape.gradient(loss, model.trainable_variables)
            grads = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grads)
            grads = [tf.where(tf.math.is_finite(g), g, tf.zeros_like(g)) for g in grads]
            optimizer.apply_gradients(zip(grads, model.trainable_variables))


        @tf.function
        def step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="standalone Keras",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = tf.keras.optimizers.SGD()


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model, x, y)
            grads = tape.gradient(loss, model.trainable_variables)
            grads = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, tape.gradient(loss, model.trainable_variables))
            optimizer.apply_gradients(zip(grads, model.trainable_variables))


        @tf.function
        def step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="gradient taken inline in the all-reduce",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = tf.keras.optimizers.SGD(0.01)


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model, x, y)
            grads = tape.gradient(loss, model.trainable_variables)
            ctx = tf.distribute.get_replica_context()
            grads = ctx.all_reduce(tf.distribute.ReduceOp.SUM, grads)
            grads, _ = tf.clip_by_global_norm(grads, 1.0)
            grads = [g / ctx.num_replicas_in_sync for g in grads]
            optimizer.apply_gradients(zip(grads, model.trainable_variables))


        @tf.function
        def step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="divided by num_replicas_in_sync",
    ),
    Valid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = tf_keras.optimizers.SGD(0.01)


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model, x, y)
            grads = tape.gradient(loss, model.trainable_variables)
            grads = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grads)
            optimizer.apply_gradients(zip(grads, model.trainable_variables), experimental_aggregate_gradients=False)


        @tf.function
        def step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="tf-keras told to skip",
    ),
    Valid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = tf_keras.optimizers.SGD(0.01)


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model, x, y)
            grads = tape.gradient(loss, model.trainable_variables)
            grads = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grads)
            optimizer.apply_gradients(zip(grads, model.trainable_variables), skip_gradients_aggregation=True)


        @tf.function
        def step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="tf-keras skip_gradients_aggregation",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = tf.keras.optimizers.SGD(0.01)


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model, x, y)
            grads = tape.gradient(loss, model.trainable_variables)
            grads = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.MEAN, grads)
            for g, v in zip(grads, model.trainable_variables):
                v.assign_sub(0.01 * g)


        @tf.function
        def step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="all-reduced by hand, applied by hand",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = tf.keras.optimizers.SGD(0.01)


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model, x, y)
            grads = tape.gradient(loss, model.trainable_variables)
            norm = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, tf.linalg.global_norm(grads) ** 2)
            scale = tf.minimum(1.0, 1.0 / tf.sqrt(norm))
            optimizer.apply_gradients(zip([g * scale for g in grads], model.trainable_variables))


        @tf.function
        def step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="only the norm is all-reduced",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = tf.keras.optimizers.SGD(0.01)


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model, x, y)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            total = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grads)
            log_norm(total)


        @tf.function
        def step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="reduced after the update, for logging",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.OneDeviceStrategy("/gpu:0")
        optimizer = tf.keras.optimizers.SGD(0.01)


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model, x, y)
            grads = tape.gradient(loss, model.trainable_variables)
            grads = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grads)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))


        strategy.run(replica_step, args=(x, y))
        """,
        note="one replica",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = tf.keras.optimizers.SGD(0.01)


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model, x, y)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))


        @tf.function
        def step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="no manual all-reduce",
    ),
)
