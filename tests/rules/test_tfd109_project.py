"""TFD109 and the shared optimizer-ready helper on whole scripts: the Keras the project runs, the
seed scripts, and the fixes of the other rules that create or move an optimizer."""

from __future__ import annotations

from pathlib import Path

from fixer.config import Config
from fixer.engine import check_source, fix_source

SEEDS = Path(__file__).resolve().parents[1] / "data" / "seeds"

SCRIPT = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.Adam()


def replica_step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(model(x))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


@tf.function
def step(x):
    strategy.run(replica_step, args=(x,))
"""


def _codes(path: Path, text: str) -> list[str]:
    return [f.code for f in check_source(str(path), text, Config(select=("TFD109",))).findings]


def test_a_project_pinned_below_tensorflow_2_16_runs_keras_2(tmp_path: Path):
    current, pinned = tmp_path / "current", tmp_path / "pinned"
    for project, requirement in ((current, "tensorflow>=2.16\n"), (pinned, "tensorflow>=2.12,<2.16\n")):
        (project / ".git").mkdir(parents=True)
        (project / "requirements.txt").write_text(requirement)
    assert _codes(current / "train.py", SCRIPT) == ["TFD109"]
    assert _codes(pinned / "train.py", SCRIPT) == []


def test_seed_002_fix_wraps_and_builds_the_optimizer():
    path = SEEDS / "seed_002.py"
    fixed = fix_source(str(path), path.read_text(encoding="utf-8"), unsafe=True)
    assert "with strategy.scope():\n    optimizer = tf.keras.optimizers.Adam(learning_rate=0.001)\n    optimizer.build([W, b])\n" in fixed.fixed_text
    assert not {f.code for f in check_source(str(path), fixed.fixed_text).findings} & {"TFD101", "TFD109"}


def test_compiling_an_eager_step_builds_an_unbuilt_model_with_plain_sgd():
    """Plain SGD needs nothing on a built model, but a model built by a compiled step's forward
    pass fails the same way (measured): TFD402's `@tf.function` brings the builds along."""
    source = """\
import tensorflow as tf

features = tf.random.normal((32, 3))
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.1)


def replica_step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(model(x))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


def step(x):
    strategy.run(replica_step, args=(x,))


for _ in range(10):
    step(features)
"""
    fixed = fix_source("eager.py", source, Config(select=("TFD402",)), unsafe=True).fixed_text
    assert "    optimizer = tf.keras.optimizers.SGD(0.1)\n    model.build((None, 3))\n    optimizer.build(model.trainable_variables)\n" in fixed
    assert "@tf.function\ndef step(x):" in fixed
