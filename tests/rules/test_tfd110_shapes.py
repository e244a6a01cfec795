"""TFD110 on the shapes of the evidence threads and of the public trees that accumulate correctly."""

from __future__ import annotations

from dataclasses import replace

from fixer.config import Config
from fixer.engine import check_source

# keras-team/keras#17429 and tensorflow/tensorflow#59487 (written afresh): a train_step override
# whose tf.cond branch is a method of the model, on a counter variable the model owns.
METHOD_BRANCH = """\
import tensorflow as tf


class AccumulatingModel(tf.keras.Model):
    def __init__(self, steps, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.steps = tf.constant(steps)
        self.counter = tf.Variable(0, trainable=False)

    def train_step(self, data):
        self.counter.assign_add(1)
        x, y = data
        with tf.GradientTape() as tape:
            loss = self.compiled_loss(y, self(x, training=True))
        self.add_to_sums(tape.gradient(loss, self.trainable_variables))
        tf.cond(tf.equal(self.counter, self.steps), self.apply_sums, lambda: None)
        return {"loss": loss}

    def add_to_sums(self, grads):
        pass

    def apply_sums(self):
        self.optimizer.apply_gradients(zip(self.sums, self.trainable_variables))


strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = AccumulatingModel(4, inputs=inputs, outputs=outputs)
    model.compile(optimizer="adam", loss="mse")
model.fit(x_train, y_train, epochs=2)
"""

# A trainer that decides on its configuration (TensorFlowTTS's shape): Python values, resolved
# when the step is traced.
CONFIG_DECIDES = """\
import tensorflow as tf


class Trainer:
    def __init__(self, strategy, config):
        self._strategy = strategy
        self.config = config

    def _one_step_forward(self, batch):
        gradients = self.compute(batch)
        if self.config["gradient_accumulation_steps"] == 1:
            self._optimizer.apply_gradients(zip(gradients, self._model.trainable_variables))
        else:
            self._accumulate(gradients)

    @tf.function
    def _one_step(self, batch):
        self._strategy.run(self._one_step_forward, args=(batch,))


trainer = Trainer(tf.distribute.MirroredStrategy(), {"gradient_accumulation_steps": 1})
"""


def _findings(source: str):
    return check_source("train.py", source, replace(Config(), select=("TFD110",))).findings


def test_a_method_given_to_tf_cond_in_train_step_is_reported():
    [finding] = _findings(METHOD_BRANCH)
    assert finding.start.line == 16
    assert "`fit` has no step of yours to decide in" in finding.message


def test_a_configuration_value_decides_at_trace_time():
    assert _findings(CONFIG_DECIDES) == []
