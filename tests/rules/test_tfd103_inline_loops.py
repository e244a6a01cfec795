"""TFD103 on training loops written inline: the tape and `apply_gradients` in the body of a loop
over batches, with no step function for `strategy.run` to run."""

from __future__ import annotations

import textwrap

import pytest

from fixer.engine import check_source


def tfd103(source: str) -> list:
    return [f for f in check_source("train.py", textwrap.dedent(source)).findings if f.code == "TFD103"]


FOUND = {
    "module-level loop over a dataset": """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
            optimizer = tf.keras.optimizers.Adam(1e-3)
            loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

        train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).batch(64)
        for epoch in range(5):
            for x, y in train_ds:
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
            print(epoch, float(loss))
    """,
    "loop in a train function given the strategy": """
        import tensorflow as tf

        def train(strategy, train_ds, epochs):
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                opt = tf.keras.optimizers.SGD(0.1)
            for epoch in range(epochs):
                for step, (x, y) in enumerate(train_ds):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(tf.square(model(x) - y))
                    grads = tape.gradient(loss, model.trainable_variables)
                    opt.apply_gradients(zip(grads, model.trainable_variables))
            return model

        if __name__ == "__main__":
            train(tf.distribute.MirroredStrategy(), make_dataset(), 3)
    """,
    "while loop reading next batches": """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            net = build_net()
            optimizer = tf.keras.optimizers.Adam()
        it = iter(dataset)
        step = 0
        while step < 1000:
            images, labels = next(it)
            with tf.GradientTape() as tape:
                loss = compute_loss(labels, net(images))
            optimizer.apply_gradients(zip(tape.gradient(loss, net.trainable_weights), net.trainable_weights))
            step += 1
    """,
}

NOT_FOUND = {
    "tutorial loop through strategy.run": """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
            optimizer = tf.keras.optimizers.Adam()

        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.keras.losses.mse(y, model(x)), global_batch_size=64)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        @tf.function
        def distributed_train_step(x, y):
            return strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(train_step, args=(x, y)), axis=None)

        for x, y in strategy.experimental_distribute_dataset(dataset):
            distributed_train_step(x, y)
    """,
    "model built outside any scope": """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        probe = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        probe_opt = tf.keras.optimizers.SGD(0.01)
        for x, y in calibration_ds:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(probe(x) - y))
            probe_opt.apply_gradients(zip(tape.gradient(loss, probe.trainable_variables), probe.trainable_variables))
    """,
    "gradient accumulation inside a replica step": """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()

        def step_fn(chunks):
            for chunk in chunks:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(chunk)) / strategy.num_replicas_in_sync
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

        @tf.function
        def run(chunks):
            strategy.run(step_fn, args=(chunks,))
    """,
    "one device strategy": """
        import tensorflow as tf

        strategy = tf.distribute.OneDeviceStrategy("/gpu:0")
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()
        for x, y in dataset:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    """,
}


@pytest.mark.parametrize("source", FOUND.values(), ids=FOUND.keys())
def test_inline_training_loop_is_found_once_with_advice(source):
    (finding,) = tfd103(source)
    assert "inline" in finding.message and ".run(train_step, args=(x, y))" in finding.message
    assert "experimental_distribute_dataset" in finding.message
    assert finding.fix is None or not finding.fix.edits


@pytest.mark.parametrize("source", NOT_FOUND.values(), ids=NOT_FOUND.keys())
def test_distributed_or_single_device_loop_is_not_reported(source):
    assert tfd103(source) == []


def test_function_holding_the_loop_is_not_called_a_step():
    (finding,) = tfd103(FOUND["loop in a train function given the strategy"])
    assert "`train` applies gradients" not in finding.message
