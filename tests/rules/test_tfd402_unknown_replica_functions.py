"""TFD402 when the module cannot tell which function `strategy.run` runs: an element of a list of
steps a builder of another module compiled, a step handed in as a parameter, the result of a
call. Such a step may be a `tf.function` (TF then runs the replicas in one graph), so the rule
stays silent; a plain def of the module run eagerly in a loop stays reported."""

from __future__ import annotations

from pathlib import Path

from fixer.config import Config
from fixer.engine import check_source

BUILDER = """\
import tensorflow as tf


def build_step(model, optimizer):
    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(model(x))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))

    return step
"""

HEADER = """\
import tensorflow as tf

from steps import build_step

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    models = [tf.keras.Sequential([tf.keras.layers.Dense(1)]) for _ in range(2)]
    optimizer = tf.keras.optimizers.SGD()
data = strategy.experimental_distribute_dataset(tf.data.Dataset.range(8).batch(4))
"""


def _codes(tmp_path: Path, main: str) -> list[str]:
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "steps.py").write_text(BUILDER)
    path = tmp_path / "train.py"
    path.write_text(main)
    return [f.code for f in check_source(str(path), main, Config(select=("TFD402",))).findings]


def test_an_element_of_a_list_of_built_steps_is_not_reported(tmp_path: Path):
    main = HEADER + """
fns = [build_step(m, optimizer) for m in models]
for x in data:
    for i in range(len(fns)):
        strategy.run(fns[i], args=(x,))
"""
    assert _codes(tmp_path, main) == []


def test_the_variable_of_a_loop_over_built_steps_is_not_reported(tmp_path: Path):
    main = HEADER + """
for step_fn in [build_step(m, optimizer) for m in models]:
    for x in data:
        strategy.run(step_fn, args=(x,))
"""
    assert _codes(tmp_path, main) == []


def test_a_step_passed_in_as_a_parameter_is_not_reported(tmp_path: Path):
    main = HEADER + """

def run_steps(step_fn, dataset):
    for x in dataset:
        strategy.run(step_fn, args=(x,))


run_steps(build_step(models[0], optimizer), data)
"""
    assert _codes(tmp_path, main) == []


def test_a_name_bound_to_a_builder_call_is_not_reported(tmp_path: Path):
    main = HEADER + """
train_step = build_step(models[0], optimizer)
for x in data:
    strategy.run(train_step, args=(x,))
"""
    assert _codes(tmp_path, main) == []


def test_control_a_local_factory_of_plain_steps_stays_reported(tmp_path: Path):
    # A call of this module's own factory resolves to the def it returns: a plain Python step.
    main = HEADER + """

def make_step(model):
    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(model(x))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))

    return step


for x in data:
    strategy.run(make_step(models[0]), args=(x,))
"""
    assert _codes(tmp_path, main) == ["TFD402"]


def test_control_a_plain_def_run_eagerly_in_a_loop_stays_reported(tmp_path: Path):
    main = HEADER + """

def replica_step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(models[0](x))
    grads = tape.gradient(loss, models[0].trainable_variables)
    optimizer.apply_gradients(zip(grads, models[0].trainable_variables))


for x in data:
    strategy.run(replica_step, args=(x,))
"""
    assert _codes(tmp_path, main) == ["TFD402"]
