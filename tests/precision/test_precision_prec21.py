"""Regression tests for issue 28 (prec21): shapes seen in public code, in our own words.

TFD101 in a notebook's model classes and on metrics of a custom loop, TFD101's rewrite where the
strategy may be None, TFD201 on a batch already split per replica, TFD106 on a `predict` that is
not Keras's. Each test has a control that keeps the finding where it is right.
"""

from __future__ import annotations

from checked_codes import codes_of

# A Python generator gives whole batches; a first `strategy.run` picks each replica's row.
_SPLIT_THEN_RUN = """
    import numpy as np
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy()

    def batches():
        for start in range(0, 64, 8):
            yield np.arange(start, start + 8)

    def predict_step(rows):
        return rows * 2

    for rows in batches():
        rows = tf.constant(rows)
{rebind}
        outputs = strategy.run(predict_step, args=(rows,))
    """

_PICK_ROW = """
        @tf.function
        def pick():
            context = tf.distribute.get_replica_context()
            return rows[context.replica_id_in_sync_group]

        rows = strategy.run(pick)"""


def test_a_name_rebound_to_a_run_result_holds_per_replica_values():
    assert "TFD201" not in codes_of(_SPLIT_THEN_RUN.format(rebind=_PICK_ROW))


def test_a_whole_generator_batch_handed_to_run_stays_reported():
    # Control: without the splitting run, every replica gets the whole batch.
    assert "TFD201" in codes_of(_SPLIT_THEN_RUN.format(rebind=""))


# A training step whose detector is a parameter: its class (a Keras Layer of a library, here
# unknown) names its own forward pass `predict`, legal in replica context.
_DETECTOR_STEP = """
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy()
    {build}

    def train_step(detector, images, shapes):
        def replica_fn(images, shapes):
            with tf.GradientTape() as tape:
                outputs = detector.predict(images, shapes)
                loss = tf.reduce_sum(outputs)
            return loss

        return strategy.run(replica_fn, args=(images, shapes))

    train_step(detector, images, shapes)
    """


def test_predict_on_an_unknown_parameter_is_not_keras_predict():
    assert "TFD106" not in codes_of(_DETECTOR_STEP.format(build="detector = build_detector()"))


def test_predict_on_a_library_layer_is_not_reported():
    # The detector class comes from a library and subclasses a Keras Layer, not a Model.
    built = "from detection_lib import Detector\n    detector = Detector()"
    assert "TFD106" not in codes_of(_DETECTOR_STEP.format(build=built))


def test_predict_on_a_keras_model_in_a_replica_function_stays_reported():
    # Controls: constructed as a Keras model, loaded as one, and a parameter annotated as one.
    built = "detector = tf.keras.Sequential([tf.keras.layers.Dense(1)])"
    assert "TFD106" in codes_of(_DETECTOR_STEP.format(build=built))
    loaded = "detector = tf.keras.models.load_model('detector.keras')"
    assert "TFD106" in codes_of(_DETECTOR_STEP.format(build=loaded))
    annotated = _DETECTOR_STEP.format(build="").replace(
        "def train_step(detector, images", "def train_step(detector: tf.keras.Model, images"
    )
    assert "TFD106" in codes_of(annotated)
