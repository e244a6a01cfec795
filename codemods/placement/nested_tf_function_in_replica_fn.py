"""TFD107: `@tf.function` on an overridden Keras `train_step` under tf-keras, inside a strategy."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.prefilter import STRATEGY
from fixer.rule import Rule
from fixer.tf.keras_flavour import keras_flavour, keras_module, legacy_keras
from fixer.tf.keras_models import keras_model_base
from fixer.types import Applicability, Edit

if TYPE_CHECKING:
    from fixer.context import RuleContext

_TF_FUNCTION = "tensorflow.function"


class NestedTfFunctionInReplicaFn(Rule):
    """
    ## What it does
    Finds `@tf.function` on a `train_step` that overrides tf-keras' in a module that uses a
    `tf.distribute` strategy.

    ## Why is this bad in distributed training?
    tf-keras runs `train_step` on every replica inside its own `tf.function`; the extra
    `tf.function` makes the optimizer's cross-replica update (`merge_call`) happen while a nested
    graph is being defined. Measured on TensorFlow 2.21 with tf-keras 2.21 under
    `MirroredStrategy` (with one replica as with two), SGD and Adam alike, `fit` raises
    `RuntimeError: merge_call called while defining a new graph or a tf.function. [...] If you
    are subclassing a tf.keras.Model, please avoid decorating overridden methods test_step and
    train_step in tf.function.` Without a strategy the same model trains.

    Not reported, because it was measured harmless on TensorFlow 2.21: the same decorated
    `train_step` under Keras 3 (identical weights to the undecorated one, 2 replicas, SGD and
    Adam), and a replica function decorated with `@tf.function` given to `strategy.run` (eager or
    compiled outer step; forward pass, `apply_gradients` with SGD and a built Adam, an
    `all_reduce`, a mirrored `assign_add`), under Keras 3 and tf-keras alike; and a decorated
    `test_step` that updates no variable through the optimizer (`evaluate` ran with tf-keras).

    ## Fix safety
    Unsafe: the decorator is removed. Keras compiles `train_step` itself (unless
    `run_eagerly=True`, which the decorator was overriding), so the step computes the same
    thing. A decorator with a comment on its line is left alone (advice only).

    ## Known limits
    - tf-keras (Keras 2) is `tf_keras`, `TF_USE_LEGACY_KERAS=1`, or a project pinned below
      TensorFlow 2.16; a Keras 3 `train_step` is not reported.
    - Only modules that use a `tf.distribute` strategy are checked.

    ## Runtime evidence
    `distfix validate` on a tf-keras script shows the `runs` check failing with the error above.

    Measured on TensorFlow 2.21 with 2 replicas (`benchmarks/probe_training_step_placement.py`,
    output in `docs/probes.md`): the decorated override raises the `merge_call` error above in
    `fit` under tf-keras; under Keras 3 it trains to the weights of the undecorated one; without
    a strategy it trains under both.

    ## References
    - https://www.tensorflow.org/guide/keras/customizing_what_happens_in_fit
    - https://www.tensorflow.org/api_docs/python/tf/distribute/ReplicaContext#merge_call
    """

    code = "TFD107"
    name = "nested-tf-function-in-replica-fn"
    message = "`@tf.function` on an overridden tf-keras `train_step` raises under a strategy"
    fix_title = "Remove the `@tf.function` decorator (Keras compiles train_step itself)"
    applicability = Applicability.UNSAFE
    triggers = ("train_step",)
    needs = (STRATEGY,)

    def check(self, ctx: RuleContext) -> None:
        if not ctx.tf.strategies.module_has_strategy:
            return
        legacy = legacy_keras(ctx.tf)
        for func in ctx.index.functions_by_name.get("train_step", []):
            owner = ctx.index.method_class(func)
            base = keras_model_base(ctx.index, ctx.tf.names, owner) if owner is not None else None
            decorator = next((d for d in func.decorators if self._is_tf_function(ctx, d)), None)
            if base is None or decorator is None:
                continue
            if keras_flavour(keras_module(ctx.tf, base), legacy, ctx.tf.target) != 2:
                continue
            ctx.report(
                decorator,
                "`@tf.function` on an overridden tf-keras `train_step`: under a strategy `fit` raises `merge_call "
                "called while defining a new graph or a tf.function`; Keras already compiles train_step",
                edits=_remove_line(ctx, decorator),
            )

    @staticmethod
    def _is_tf_function(ctx: RuleContext, decorator: cst.Decorator) -> bool:
        expr = decorator.decorator
        target = expr.func if isinstance(expr, cst.Call) else expr
        return ctx.tf.names.qualified(target) == _TF_FUNCTION


def _remove_line(ctx: RuleContext, decorator: cst.Decorator) -> list[Edit] | None:
    """The edit that deletes the decorator's line, or None when the line holds more than it."""
    code_range = ctx.range(decorator)
    if code_range.start.line != code_range.end.line:
        return None
    line = ctx.textmap.line_text(code_range.start.line)
    if line.strip() != ctx.source(decorator).strip():
        return None
    start = ctx.textmap.line_starts[code_range.start.line - 1]
    return [Edit(start, ctx.textmap.line_end(code_range.end.line), "")]
