"""TFD103 needs variables the strategy made: a name only re-bound in the scope is not one.

The shape it got wrong (ledger23a class 1, five findings): the model and its optimizer are built
outside the scope, the scope block says `model = model` and defines the step, and the loop calls
the step directly. The self-assignment creates nothing; the model's variables are plain ones on the
default strategy (benchmarks/probe_ledger23a_premises.py, case 1), so "updates the strategy's
variables" is false. TFD101 reports where the model is built instead.
"""

from __future__ import annotations

from fixer.config import Config
from fixer.engine import check_source

ONLY = Config(select=("TFD103",))

STEP = (
    "    @tf.function\n"
    "    def step(net, a, b):\n"
    "        with tf.GradientTape() as tape:\n"
    "            loss = tf.reduce_mean((net(a) - b) ** 2)\n"
    "        opt.apply_gradients(zip(tape.gradient(loss, net.trainable_variables), net.trainable_variables))\n"
    "for a, b in data:\n"
    "    step(net, a, b)\n"
)
BUILT_OUTSIDE = (
    "import tensorflow as tf\n"
    "strategy = tf.distribute.MirroredStrategy()\n"
    "net = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(5,))])\n"
    "opt = tf.keras.optimizers.SGD(0.1)\n"
    "with strategy.scope():\n"
    "    net = net\n"
    "    held = opt\n"
)
BUILT_INSIDE = (
    "import tensorflow as tf\n"
    "strategy = tf.distribute.MirroredStrategy()\n"
    "with strategy.scope():\n"
    "    net = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(5,))])\n"
    "    opt = tf.keras.optimizers.SGD(0.1)\n"
    "    same = net\n"
)


def _codes(source: str) -> list[str]:
    return [f.code for f in check_source("train.py", source, ONLY).findings]


def test_a_model_only_re_bound_in_the_scope_is_not_the_strategys():
    assert _codes(BUILT_OUTSIDE + STEP) == []


def test_a_model_built_in_the_scope_and_stepped_directly_is_reported():
    assert _codes(BUILT_INSIDE + STEP) == ["TFD103"]


def test_an_alias_of_a_model_built_in_the_scope_keeps_its_origin():
    assert _codes(BUILT_INSIDE + STEP.replace("step(net, a, b)\n", "step(same, a, b)\n")) == ["TFD103"]
