"""TFD403's Keras 3 loss-scaling rewrite drops `g = opt.get_unscaled_gradients(g)` lines; it never
leaves a block without a statement (an `if` body made only of such lines keeps a `pass`)."""

from __future__ import annotations

import ast
import textwrap
from typing import TYPE_CHECKING

from fixer.config import Config
from fixer.engine import fix_source

if TYPE_CHECKING:
    from pathlib import Path

_HEAD = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = build_model()
    optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.01))


def replica_step(x, y, mixed):
    with tf.GradientTape() as tape:
        loss = compute_loss(y, model(x))
        loss = optimizer.get_scaled_loss(loss)
    head = tape.gradient(loss, model.trainable_variables[:1])
    tail = tape.gradient(loss, model.trainable_variables[1:])
    if mixed:
"""
_TAIL = """\
    optimizer.apply_gradients(zip(head + tail, model.trainable_variables))
"""


def _fixed(tmp_path: Path, body: str) -> str:
    path = tmp_path / "train.py"
    text = _HEAD + textwrap.indent(textwrap.dedent(body), " " * 8) + _TAIL
    path.write_text(text)
    result = fix_source(str(path), text, Config(select=("TFD403",)), unsafe=True)
    assert result.reverted is None
    assert result.fixed_text is not None
    ast.parse(result.fixed_text)
    again = fix_source(str(path), result.fixed_text, Config(select=("TFD403",)), unsafe=True)
    assert again.fixed_text is None  # idempotent
    return result.fixed_text


def test_a_block_of_only_dropped_lines_keeps_a_pass(tmp_path: Path):
    body = """\
    head = optimizer.get_unscaled_gradients(head)
    tail = optimizer.get_unscaled_gradients(tail)
    """
    fixed = _fixed(tmp_path, body)
    assert "    if mixed:\n        pass\n    optimizer.apply_gradients" in fixed
    assert "get_unscaled_gradients" not in fixed
    assert "loss = optimizer.scale_loss(loss)" in fixed


def test_a_block_with_another_statement_loses_only_the_dropped_lines(tmp_path: Path):
    body = """\
    head = optimizer.get_unscaled_gradients(head)
    tail = optimizer.get_unscaled_gradients(tail)
    tf.print("unscaled")
    """
    fixed = _fixed(tmp_path, body)
    assert '    if mixed:\n        tf.print("unscaled")\n    optimizer.apply_gradients' in fixed
    assert "pass" not in fixed
