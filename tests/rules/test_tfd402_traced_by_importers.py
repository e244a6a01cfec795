"""TFD402 on a library helper that calls `strategy.run` and that the project only calls from
`tf.function` steps of other modules (fixer/tf/importers.py, `Use.compiled`). Each such call
traces the helper into the caller's graph, so nothing runs replica after replica; one eager
caller, or no caller in sight, keeps the finding.

Each test writes a small project of our own and checks it as `distfix check FOLDER` would.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fixer.runner import Job, run

HELPER = """\
import tensorflow as tf


def distributed_step(strategy, model, optimizer, batch):
    def replica_step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(model(x))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return strategy.run(replica_step, args=(batch,))
"""

HEADER = """\
import tensorflow as tf

{import_line}

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD()
data = iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(64).batch(4)))
"""

COMPILED_LOOP = """
@tf.function
def train_many(iterator, steps):
    for _ in tf.range(steps):
        {call}(strategy, model, optimizer, next(iterator))


train_many(data, tf.constant(8))
"""

WRAPPED_AT_RUN_TIME = """
def train_once(iterator):
    {call}(strategy, model, optimizer, next(iterator))


train_once = tf.function(train_once)
for _ in range(8):
    train_once(data)
"""

EAGER_LOOP = """
for _ in range(8):
    {call}(strategy, model, optimizer, next(data))
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def _tfd402(project: Path, name: str = "lib/steps.py") -> list:
    job = Job(use_cache=False, project_roots=(str(project),))
    results = run(sorted(project.rglob("*.py")), job, jobs=1)
    (result,) = [r for r in results if Path(r.path) == project / name]
    return [f for f in result.findings if f.code == "TFD402"]


def _caller(body: str, style: str = "from") -> str:
    if style == "from":
        import_line, call = "from lib.steps import distributed_step", "distributed_step"
    else:
        import_line, call = "from lib import steps", "steps.distributed_step"
    return HEADER.format(import_line=import_line) + body.format(call=call)


@pytest.mark.parametrize("style", ["from", "module"])
def test_a_helper_every_caller_compiles_is_not_reported(tmp_path, style):
    _write(
        tmp_path,
        {
            "lib/__init__.py": "",
            "lib/steps.py": HELPER,
            "train_a.py": _caller(COMPILED_LOOP, style),
            "train_b.py": _caller(WRAPPED_AT_RUN_TIME, style),
        },
    )
    assert _tfd402(tmp_path) == []


def test_one_eager_caller_keeps_the_finding(tmp_path):
    _write(
        tmp_path,
        {
            "lib/__init__.py": "",
            "lib/steps.py": HELPER,
            "train_a.py": _caller(COMPILED_LOOP),
            "train_eager.py": _caller(EAGER_LOOP),
        },
    )
    (finding,) = _tfd402(tmp_path)
    assert "`distributed_step`, which is not a `tf.function`" in finding.message


def test_no_caller_in_sight_keeps_the_finding(tmp_path):
    _write(tmp_path, {"lib/__init__.py": "", "lib/steps.py": HELPER})
    assert len(_tfd402(tmp_path)) == 1


def test_a_call_in_its_own_module_keeps_the_finding(tmp_path):
    own_loop = HELPER + "\n\ndef train(strategy, model, optimizer, batches):\n"
    own_loop += "    for batch in batches:\n        distributed_step(strategy, model, optimizer, batch)\n"
    _write(tmp_path, {"lib/__init__.py": "", "lib/steps.py": own_loop, "train_a.py": _caller(COMPILED_LOOP)})
    assert len(_tfd402(tmp_path)) == 1
