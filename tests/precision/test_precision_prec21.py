"""Regression tests for issue 28 (prec21): shapes seen in public code, in our own words.

TFD101 in a notebook's model classes and on metrics of a custom loop, TFD101's rewrite where the
strategy may be None, TFD201 on a batch already split per replica, TFD106 on a `predict` that is
not Keras's. Each test has a control that keeps the finding where it is right.
"""

from __future__ import annotations

import textwrap

from checked_codes import codes_of

from fixer.engine import check_source

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


# A trainer class of a notebook: metrics made in `__init__` (outside any scope), updated in the
# replica function of a custom loop.
_TRAINER = """
    import tensorflow as tf

    class Trainer:
        def __init__(self, strategy, model):
            self.strategy = strategy
            self.model = model
            self.train_loss = tf.keras.metrics.Mean(name="train_loss")
            self.train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="train_accuracy")

        def replica_step(self, x, y):
            with tf.GradientTape() as tape:
                logits = self.model(x, training=True)
                loss = tf.nn.compute_average_loss(
                    tf.keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True)
                )
            grads = tape.gradient(loss, self.model.trainable_variables)
            self.model.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
            self.train_loss.update_state(loss)
            self.train_accuracy.update_state(y, logits)

        @tf.function
        def step(self, x, y):
            self.strategy.run(self.replica_step, args=(x, y))

    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
        model.compile(optimizer=tf.keras.optimizers.Adam())
    trainer = Trainer(strategy, model)
    """


def test_metrics_of_a_custom_loop_made_outside_the_scope_are_not_reported():
    assert "TFD101" not in codes_of(_TRAINER)


def test_a_metric_read_in_train_step_under_fit_stays_reported():
    # Control: the metric is made outside the scope and read by a `train_step` override that `fit`
    # runs on every replica.
    source = """
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy()
    tracker = tf.keras.metrics.Mean()

    class Regressor(tf.keras.Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = self.compute_loss(x=x, y=y, y_pred=self(x, training=True))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            tracker.update_state(loss)
            return {"loss": tracker.result()}

    with strategy.scope():
        model = Regressor()
        model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y)
    """
    assert "TFD101" in codes_of(source)


# Model classes of a notebook: an attention layer, an encoder layer that holds one, a model that
# holds encoder layers, made outside the scope and trained by a MirroredStrategy made after it. The
# step calls the model's `call` by name, so every layer's `call` runs in the replica function.
_MODEL_CLASSES = """
    import tensorflow as tf

    class Attention(tf.keras.layers.Layer):
        def __init__(self, units):
            super().__init__()
            self.query = tf.keras.layers.Dense(units)
            self.key = tf.keras.layers.Dense(units)

        def call(self, x):
            return tf.matmul(self.query(x), self.key(x), transpose_b=True)

    class EncoderLayer(tf.keras.layers.Layer):
        def __init__(self, units):
            super().__init__()
            self.attention = Attention(units)
            self.feed_forward = FeedForward(units)

        def call(self, x):
            return self.feed_forward(self.attention(x))

    class FeedForward(tf.keras.layers.Layer):
        def __init__(self, units):
            super().__init__()
            self.dense = tf.keras.layers.Dense(units)

        def call(self, x):
            return self.dense(x)

    class Encoder(tf.keras.Model):
        def __init__(self, units):
            super().__init__()
            self.first = EncoderLayer(units)
            self.second = EncoderLayer(units)

        def call(self, x):
            return self.second(self.first(x))

    encoder = Encoder(8)
    optimizer = tf.keras.optimizers.SGD()
    strategy = tf.distribute.MirroredStrategy()

    def replica_step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(encoder.call(x))
        grads = tape.gradient(loss, encoder.trainable_variables)
        optimizer.apply_gradients(zip(grads, encoder.trainable_variables))

    @tf.function
    def step(x):
        strategy.run(replica_step, args=(x,))
    """


def _tfd101_lines(source: str) -> list[int]:
    findings = check_source("train.py", textwrap.dedent(source)).findings
    return [f.start.line for f in findings if f.code == "TFD101"]


def _line_of(source: str, text: str) -> int:
    lines = textwrap.dedent(source).splitlines()
    return next(number for number, line in enumerate(lines, start=1) if text in line)


def test_sub_layers_of_layer_classes_are_not_reported_and_the_model_class_once():
    lines = _tfd101_lines(_MODEL_CLASSES)
    for sub_layer in ("self.attention = Attention(units)", "self.feed_forward = FeedForward(units)"):
        assert _line_of(_MODEL_CLASSES, sub_layer) not in lines
    # Inside the model class: said once, at its first sub-layer (naming the model's construction).
    assert _line_of(_MODEL_CLASSES, "self.first = EncoderLayer(units)") in lines
    assert _line_of(_MODEL_CLASSES, "self.second = EncoderLayer(units)") not in lines
    # Control: the model's own construction outside the scope stays reported.
    assert _line_of(_MODEL_CLASSES, "encoder = Encoder(8)") in lines
    assert _line_of(_MODEL_CLASSES, "optimizer = tf.keras.optimizers.SGD()") in lines
    assert len(lines) == 3


# A trainer takes its strategy as a constructor parameter; the same notebook also builds it for a
# single device. State made in `__init__` outside the scope is a finding, but wrapping it in
# `with self.strategy.scope():` would call `None.scope()` on that path.
_TRAINER_WITH_OPTIONAL_STRATEGY = """
    import tensorflow as tf

    class Trainer:
        def __init__(self, strategy{default}):
            self.strategy = strategy
            self.scale = tf.Variable(1.0)

        def replica_step(self, x):
            x = x * self.scale  # read only: a replica write would withdraw the move (fix22h)
            return self.model(x)

        @tf.function
        def step(self, x):
            return self.strategy.run(self.replica_step, args=(x,))

        def build(self):
            with self.strategy.scope():
                self.model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

    strategy = tf.distribute.MirroredStrategy()
    trainer = Trainer(strategy)
    trainer.build()
    {single_device}
    """


def _tfd101_fixes(source: str) -> list[bool]:
    findings = check_source("train.py", textwrap.dedent(source)).findings
    return [f.fix is not None for f in findings if f.code == "TFD101"]


def test_no_scope_rewrite_when_the_strategy_may_be_none():
    default_none = _TRAINER_WITH_OPTIONAL_STRATEGY.format(default="=None", single_device="")
    passed_none = _TRAINER_WITH_OPTIONAL_STRATEGY.format(default="", single_device="single = Trainer(strategy=None)")
    tested = _TRAINER_WITH_OPTIONAL_STRATEGY.format(default="", single_device="").replace(
        "            self.strategy = strategy\n",
        "            self.strategy = strategy\n"
        "            if self.strategy is None:\n"
        "                print('one device')\n",
    )
    for source in (default_none, passed_none, tested):
        assert _tfd101_fixes(source) == [False]  # still reported, as advice


def test_the_scope_rewrite_stays_when_the_strategy_is_always_given():
    # Control: every caller passes a strategy and nothing says it may be None.
    assert _tfd101_fixes(_TRAINER_WITH_OPTIONAL_STRATEGY.format(default="", single_device="")) == [True]


def test_a_run_result_passed_through_a_step_function_is_not_a_whole_batch():
    # The step function hands its parameter to `strategy.run`; its only caller passes the
    # per-replica result of the splitting run.
    step = """
    @tf.function
    def predict(inputs):
        return strategy.run(predict_step, args=(inputs,))
"""
    split = _SPLIT_THEN_RUN.replace("    for rows in batches():", step + "\n    for rows in batches():")
    split = split.replace("outputs = strategy.run(predict_step, args=(rows,))", "outputs = predict(rows)")
    assert "TFD201" not in codes_of(split.format(rebind=_PICK_ROW))
    # Control: the whole generator batch through the same step function.
    assert "TFD201" in codes_of(split.format(rebind=""))
