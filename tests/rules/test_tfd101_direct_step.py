"""TFD101 offers its move only where the moved model then runs under its strategy.

The shape it got wrong (ledger23a, 13 wrong rewrites): a model and its optimizer are built outside
the scope, the scope block only re-binds the model (`model = model`) and defines a `tf.function`
step, and the epoch loop calls that step directly. Moving the model's construction into the scope
makes the first step raise where the script ran (Keras 2: the optimizer's slots are made under
another strategy; Keras 3: TypeError), and even with the optimizer moved too Keras 3 raises outside
`strategy.run` (benchmarks/probe_ledger23a_premises.py, cases 2-3). The finding stays, with advice.
"""

from __future__ import annotations

from fixer.config import Config
from fixer.engine import check_source

ONLY = Config(select=("TFD101",))

HEAD = (
    "import tensorflow as tf\n"
    "strategy = tf.distribute.MirroredStrategy()\n"
    "net = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(5,))])\n"
    "net.summary()\n"
    "opt = tf.keras.optimizers.SGD(0.1)\n"
)
DIRECT_STEP = (
    "with strategy.scope():\n"
    "    net = net\n"
    "    @tf.function\n"
    "    def step(net, a, b):\n"
    "        with tf.GradientTape() as tape:\n"
    "            loss = tf.reduce_mean((net(a) - b) ** 2)\n"
    "        opt.apply_gradients(zip(tape.gradient(loss, net.trainable_variables), net.trainable_variables))\n"
    "for a, b in data:\n"
    "    step(net, a, b)\n"
)
RUN_STEP = (
    "with strategy.scope():\n"
    "    @tf.function\n"
    "    def step(a, b):\n"
    "        with tf.GradientTape() as tape:\n"
    "            loss = tf.reduce_mean((net(a) - b) ** 2)\n"
    "        opt.apply_gradients(zip(tape.gradient(loss, net.trainable_variables), net.trainable_variables))\n"
    "for a, b in data:\n"
    "    strategy.run(step, args=(a, b))\n"
)
FIT = 'with strategy.scope():\n    net.compile(optimizer="sgd", loss="mse")\nnet.fit(x, y)\n'


def _model_finding(source: str):
    findings = [f for f in check_source("train.py", source, ONLY).findings if f.start.line == 3]
    assert len(findings) == 1, findings
    return findings[0]


def test_a_model_whose_step_is_called_directly_keeps_its_finding_without_the_move():
    finding = _model_finding(HEAD + DIRECT_STEP)
    assert finding.fix is None
    assert "`strategy.run`" in finding.message and "optimizer" in finding.message


def test_a_model_whose_step_runs_through_strategy_run_is_still_moved():
    assert _model_finding(HEAD + RUN_STEP).fix is not None


def test_a_model_trained_with_fit_is_still_moved():
    assert _model_finding(HEAD + FIT).fix is not None
