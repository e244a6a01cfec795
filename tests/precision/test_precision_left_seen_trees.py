"""Regression tests for issue 28 on the ledger's seen trees (branch prec5): the wrong findings left.

Minimal programs in our own words of the shapes those trees have, each with a control that keeps
the finding where the mistake is real.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from fixer.config import Config
from fixer.engine import check_source


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))


def _codes(path: Path) -> list[str]:
    result = check_source(str(path), path.read_text(), Config())
    assert result.error is None, result.error
    codes = [f.code for f in result.findings]
    assert "TFD000" not in codes  # a program that does not parse proves nothing
    return codes


# `tf` handed on by the project's own package (TensorFlowASR) -------------------------------------

_TRAINER = """
    import keras
    {import_tf}

    class Trainer:
        def __init__(self, strategy, run_eagerly=False):
            self.strategy = strategy
            with strategy.scope():
                self.w = tf.Variable(1.0)
            self.train = {train}

        def _step(self, x):
            self.w.assign_add(x)

        def _train(self, x):
            self.strategy.run(self._step, args=(x,))
    """

_WRAPPED = "self._train if run_eagerly else tf.function(self._train)"


def test_a_step_wrapped_by_tf_function_taken_from_the_projects_package_is_not_tfd402(tmp_path):
    _write(
        tmp_path,
        {
            "speech/__init__.py": "import tensorflow as tf  # handed on to the modules\n",
            "speech/models/__init__.py": "",
            "speech/models/trainer.py": _TRAINER.format(import_tf="from speech import tf", train=_WRAPPED),
            "speech/models/relative.py": _TRAINER.format(import_tf="from .. import tf", train=_WRAPPED),
        },
    )
    assert "TFD402" not in _codes(tmp_path / "speech/models/trainer.py")
    assert "TFD402" not in _codes(tmp_path / "speech/models/relative.py")


def test_tf_handed_on_through_two_project_modules_is_followed(tmp_path):
    _write(
        tmp_path,
        {
            "speech/__init__.py": "from speech.compat import tf\n",
            "speech/compat.py": "import tensorflow as tf\n",
            "speech/trainer.py": _TRAINER.format(import_tf="from speech import tf", train=_WRAPPED),
        },
    )
    assert "TFD402" not in _codes(tmp_path / "speech/trainer.py")


def test_a_step_never_wrapped_is_still_tfd402_through_the_projects_tf(tmp_path):
    _write(
        tmp_path,
        {
            "speech/__init__.py": "import tensorflow as tf\n",
            "speech/trainer.py": _TRAINER.format(import_tf="from speech import tf", train="self._train"),
        },
    )
    assert "TFD402" in _codes(tmp_path / "speech/trainer.py")


def test_a_project_tf_that_is_not_tensorflow_is_not_taken_for_it(tmp_path):
    _write(
        tmp_path,
        {
            "speech/__init__.py": "from speech import tools as tf\n",
            "speech/tools.py": "def function(f):\n    return f\n",
            "speech/trainer.py": _TRAINER.format(import_tf="from speech import tf", train=_WRAPPED),
        },
    )
    assert "TFD402" in _codes(tmp_path / "speech/trainer.py")


# An evaluation metric made outside the scope, then made again in it under the same name (ml-training). The state is a
# tf.Variable: a Keras metric updated in a custom loop's replica function counts every replica wherever it was made
# (benchmarks/probe_ledger8b_premises.py), so it is not TFD101's; the question here is which binding reaches the step.

_EVALUATION = """
    import tensorflow as tf

    def main():
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
        data = tf.data.Dataset.from_tensor_slices(([[1.0, 2.0, 3.0]], [1.0])).batch(1)

        total = tf.Variable(0.0)  # inline evaluation, eagerly, on this process
        for features, labels in data:
            total.assign_add(tf.reduce_sum(model(features)))
        print(total.numpy())
    {before}
        with strategy.scope():
            total = tf.Variable(0.0)  # the distributed evaluation's own state
    {after}
    """

_EVAL_STEP = """
        @tf.function
        def eval_step(features, labels):
            def replica_fn(features, labels):
                total.assign_add(tf.reduce_sum(model(features)))
            strategy.run(replica_fn, args=(features, labels))

        for features, labels in strategy.experimental_distribute_dataset(data):
            eval_step(features, labels)
"""


def test_a_metric_made_again_in_the_scope_before_the_distributed_step_is_defined_is_not_tfd101():
    source = _EVALUATION.format(before="", after=_EVAL_STEP)
    assert "TFD101" not in _codes_of(source)


def test_a_distributed_step_defined_before_the_metric_is_made_again_still_reads_the_first_one():
    # The step may run before the rebinding: the metric made outside the scope reaches it.
    source = _EVALUATION.format(before=_EVAL_STEP, after="")
    assert "TFD101" in _codes_of(source)


def _codes_of(source: str) -> list[str]:
    codes = [f.code for f in check_source("train.py", textwrap.dedent(source)).findings]
    assert "TFD000" not in codes
    return codes
