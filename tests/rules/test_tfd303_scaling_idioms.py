"""TFD303 on how people really scale (or fail to scale) a loss: a per-example vector divided by
the replica count, and a loss helper summed with regularization and auxiliary terms."""

from __future__ import annotations

import textwrap

import pytest

from fixer.engine import check_source, fix_source

HEADER = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
    optimizer = tf.keras.optimizers.Adam()
"""

FOOTER = """

@tf.function
def distributed_train_step(features, labels):
    per_replica_losses = strategy.run(train_step, args=(features, labels))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_losses, axis=None)
"""


def program(body: str) -> str:
    return HEADER + textwrap.dedent(body) + FOOTER


def tfd303(body: str) -> list:
    return [f for f in check_source("train.py", program(body)).findings if f.code == "TFD303"]


FOUND = {
    "loss object without reduction divided by replicas": """
        bce = tf.keras.losses.BinaryCrossentropy(from_logits=True, reduction=tf.keras.losses.Reduction.NONE)

        def train_step(features, labels):
            with tf.GradientTape() as tape:
                predictions = model(features, training=True)
                loss = bce(labels, predictions) / strategy.num_replicas_in_sync
            gradients = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, model.trainable_variables))
            return loss
    """,
    "functional per-example loss over a float count": """
        def train_step(features, labels):
            with tf.GradientTape() as tape:
                per_example = tf.keras.losses.sparse_categorical_crossentropy(labels, model(features), from_logits=True)
                loss = per_example / tf.cast(strategy.num_replicas_in_sync, tf.float32)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
    """,
    "helper plus regularization plus an auxiliary mean": """
        def compute_loss(labels, logits):
            return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))

        def train_step(features, labels):
            with tf.GradientTape() as tape:
                logits = model(features, training=True)
                smoothness = 0.01 * tf.reduce_mean(tf.square(logits))
                loss = compute_loss(labels, logits) + sum(model.losses) + smoothness
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
    """,
    "weighted helper terms with a named constant": """
        AUX_WEIGHT = 0.3

        def main_loss(y, p):
            return tf.reduce_mean(tf.square(y - p))

        def train_step(features, labels):
            with tf.GradientTape() as tape:
                out = model(features, training=True)
                total = main_loss(labels, out) + AUX_WEIGHT * main_loss(labels, out[:, :1])
            grads = tape.gradient(total, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return total
    """,
    "replica sum over the replica count": """
        def train_step(features, labels):
            with tf.GradientTape() as tape:
                per_token = tf.keras.losses.sparse_categorical_crossentropy(labels, model(features), from_logits=True)
                loss = tf.reduce_sum(per_token) / tf.cast(strategy.num_replicas_in_sync, tf.float32)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
    """,
}

NOT_FOUND = {
    "tutorial compute_average_loss": """
        loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")

        def train_step(features, labels):
            with tf.GradientTape() as tape:
                per_example_loss = loss_object(labels, model(features, training=True))
                loss = tf.nn.compute_average_loss(per_example_loss, global_batch_size=64)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
    """,
    "mean divided by replicas plus scaled regularization": """
        def compute_loss(labels, logits):
            return tf.reduce_mean(tf.keras.losses.mse(labels, logits))

        def train_step(features, labels):
            with tf.GradientTape() as tape:
                logits = model(features, training=True)
                loss = compute_loss(labels, logits) / strategy.num_replicas_in_sync
                loss += tf.nn.scale_regularization_loss(sum(model.losses))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
    """,
    "helper already averaging over the global batch": """
        GLOBAL_BATCH = 128

        def compute_loss(labels, logits):
            per_example = tf.keras.losses.mse(labels, logits)
            return tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)

        def train_step(features, labels):
            with tf.GradientTape() as tape:
                logits = model(features, training=True)
                loss = compute_loss(labels, logits) + tf.nn.scale_regularization_loss(model.losses)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
    """,
    "replica sum over the global batch": """
        GLOBAL_BATCH_SIZE = 64 * strategy.num_replicas_in_sync

        def train_step(features, labels):
            with tf.GradientTape() as tape:
                per_example = tf.keras.losses.mse(labels, model(features))
                loss = tf.reduce_sum(per_example) / GLOBAL_BATCH_SIZE
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
    """,
    "replica sum over the replica count times the batch": """
        def train_step(features, labels):
            with tf.GradientTape() as tape:
                per_example = tf.keras.losses.mse(labels, model(features))
                loss = tf.reduce_sum(per_example) / (64 * strategy.num_replicas_in_sync)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
    """,
    "weight that is a tensor": """
        def train_step(features, labels, sample_weight):
            with tf.GradientTape() as tape:
                logits = model(features, training=True)
                loss = sample_weight * tf.reduce_mean(tf.square(labels - logits))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
    """,
}


@pytest.mark.parametrize("body", FOUND.values(), ids=FOUND.keys())
def test_unscaled_loss_is_found(body):
    assert len(tfd303(body)) == 1


@pytest.mark.parametrize("body", NOT_FOUND.values(), ids=NOT_FOUND.keys())
def test_scaled_or_unknown_loss_is_not_reported(body):
    assert tfd303(body) == []


def test_vector_divided_by_replicas_is_averaged_not_divided_twice():
    fixed = fix_source("train.py", program(FOUND["loss object without reduction divided by replicas"]), unsafe=True).fixed_text
    assert "loss = tf.nn.compute_average_loss(bce(labels, predictions))\n" in fixed
    assert "num_replicas_in_sync" not in fixed


def test_helper_sum_is_divided_term_by_term():
    fixed = fix_source("train.py", program(FOUND["helper plus regularization plus an auxiliary mean"]), unsafe=True).fixed_text
    divide = " / tf.distribute.get_replica_context().num_replicas_in_sync"
    expected = (
        f"loss = compute_loss(labels, logits){divide} + tf.nn.scale_regularization_loss(sum(model.losses))"
        f" + smoothness{divide}\n"
    )
    assert expected in fixed
    assert "return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))\n" in fixed


def test_replica_sum_over_replicas_gets_advice_naming_the_missing_batch():
    (finding,) = tfd303(FOUND["replica sum over the replica count"])
    assert "batch size is missing" in finding.message
    assert finding.fix is None or not finding.fix.edits
