"""TFD101 on a subclassed Keras model that enters `strategy.scope()` inside `call()`: reported at
the construction that must change, not at the state its `__init__` makes."""

from __future__ import annotations

import textwrap

from fixer.engine import check_source

_PROGRAM = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1)
        self.scale = tf.Variable(1.0)

    def {method}(self, x):
        with strategy.scope():
            return self.dense(x) * self.scale


{construction}
model.compile(optimizer="sgd", loss="mse")
model.fit(tf.zeros((8, 4)), tf.zeros((8, 1)), epochs=1)
"""


def tfd101(method: str = "call", construction: str = "model = Net()") -> list[tuple[int, str]]:
    source = textwrap.dedent(_PROGRAM).format(method=method, construction=construction)
    return [(f.start.line, f.message) for f in check_source("train.py", source).findings if f.code == "TFD101"]


def test_the_construction_outside_the_scope_is_reported_not_the_init():
    found = tfd101()
    assert [line for line, _ in found] == [18]
    assert found[0][1].startswith("`Net` enters `strategy.scope()` in `call()`")


def test_a_model_without_state_of_its_own_is_reported_at_its_construction_too():
    source = textwrap.dedent(_PROGRAM).format(method="call", construction="model = Net()").replace(
        "        self.scale = tf.Variable(1.0)\n", ""
    ).replace(" * self.scale", "")
    assert [f.start.line for f in check_source("train.py", source).findings if f.code == "TFD101"] == [17]


def test_a_construction_inside_the_scope_is_not_reported_here():
    # The inner scope still raises then (measured); that is not this construction's finding.
    construction = "with strategy.scope():\n    model = Net()"
    assert [m for _, m in tfd101(construction=construction) if "in `call()`" in m] == []


def test_a_scope_entered_in_another_method_keeps_the_previous_finding():
    found = tfd101(method="scaled")
    assert all("in `call()`" not in message for _, message in found)
