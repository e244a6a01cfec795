"""TFD403's loss-scaling finding on code that also runs Keras 2, whose LossScaleOptimizer has
`get_scaled_loss` and no `scale_loss` (benchmarks/probe_keras3_removed_api.py; issue 28, ledger11b's
fp class 1 and wrong fix 2): a module written against Keras 2's optimizer is not reported, and a
package that still supports a TensorFlow before 2.16 gets advice without the rewrite."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.config import Config
from fixer.engine import check_source

if TYPE_CHECKING:
    from pathlib import Path

STEP = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = build_model()
    optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.01))

def replica_step(x, y):
    with tf.GradientTape() as tape:
        scaled = optimizer.get_scaled_loss(compute_loss(y, model(x)))
    grads = optimizer.get_unscaled_gradients(tape.gradient(scaled, model.trainable_variables))
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
"""

OWN_OPTIMIZER = """

class ClippedSGD(tf.keras.optimizers.SGD):
    def _resource_apply_dense(self, grad, var, apply_state=None):
        return super()._resource_apply_dense(tf.clip_by_value(grad, -1.0, 1.0), var, apply_state)
"""


def _findings(source: str) -> list:
    return check_source("train.py", source, Config(select=("TFD403",))).findings


def test_a_module_overriding_keras2_optimizer_hooks_is_keras2_code():
    assert _findings(STEP + OWN_OPTIMIZER) == []


def test_control_the_same_step_without_the_hooks_is_reported_with_the_rewrite():
    findings = _findings(STEP)
    assert [f.code for f in findings] == ["TFD403", "TFD403"]
    assert findings[0].fix is not None


def _package(root: Path, requirement: str) -> list:
    (root / ".git").mkdir(parents=True)
    (root / "setup.py").write_text(f"from setuptools import setup\nsetup(install_requires=[{requirement!r}])\n")
    (root / "lib").mkdir()
    (root / "lib" / "__init__.py").write_text("")
    path = root / "lib" / "trainer.py"
    path.write_text(STEP)
    return check_source(str(path), STEP, Config(select=("TFD403",))).findings


def test_advice_without_the_rewrite_where_the_package_still_supports_keras_2(tmp_path: Path):
    findings = _package(tmp_path, "tensorflow>=2.7.0")
    assert [f.code for f in findings] == ["TFD403", "TFD403"]
    assert all(f.fix is None for f in findings)
    assert "once TF 2.7 (Keras 2: no `scale_loss`) is no longer supported" in findings[0].message


def test_control_a_floor_of_2_16_keeps_the_rewrite(tmp_path: Path):
    findings = _package(tmp_path, "tensorflow>=2.16")
    assert [f.code for f in findings] == ["TFD403", "TFD403"]
    assert findings[0].fix is not None
