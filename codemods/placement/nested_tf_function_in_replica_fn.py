"""TFD107: `@tf.function` on an overridden Keras `train_step` under tf-keras, inside a strategy."""

from __future__ import annotations

from pathlib import Path

import libcst as cst

from fixer.tf.keras_flavour import keras_flavour, keras_module, legacy_keras
from fixer.tf.keras_models import keras_model_base
from fixer.context import RuleContext
from fixer.prefilter import STRATEGY
from fixer.rule import Invalid, Rule, Valid
from fixer.tf.project import pinned_below
from fixer.types import Applicability, Edit

_TF_FUNCTION = "tensorflow.function"


class NestedTfFunctionInReplicaFn(Rule):
    """
    ## What it does
    Finds `@tf.function` on a `train_step` that overrides tf-keras' (Keras 2: `tf_keras`,
    `TF_USE_LEGACY_KERAS=1`, or a project pinned below TensorFlow 2.16) in a module that uses a
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

    ## Runtime evidence
    `distfix validate` on a tf-keras script shows the `runs` check failing with the error above.

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

    examples = (
        Invalid(
            """
            import os
            os.environ["TF_USE_LEGACY_KERAS"] = "1"
            import tensorflow as tf


            class Model(tf.keras.Model):
                @tf.function
                def train_step(self, data):
                    x, y = data
                    with tf.GradientTape() as tape:
                        loss = self.compiled_loss(y, self(x, training=True))
                    self.optimizer.minimize(loss, self.trainable_variables, tape=tape)
                    return {"loss": loss}


            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = Model()
            """,
            after="""
            import os
            os.environ["TF_USE_LEGACY_KERAS"] = "1"
            import tensorflow as tf


            class Model(tf.keras.Model):
                def train_step(self, data):
                    x, y = data
                    with tf.GradientTape() as tape:
                        loss = self.compiled_loss(y, self(x, training=True))
                    self.optimizer.minimize(loss, self.trainable_variables, tape=tape)
                    return {"loss": loss}


            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = Model()
            """,
            note="legacy Keras switch",
        ),
        Invalid(
            """
            import tensorflow as tf
            import tf_keras


            class Net(tf_keras.Model):
                @tf.function(jit_compile=True)
                def train_step(self, data):
                    return super().train_step(data)


            strategy = tf.distribute.MirroredStrategy()
            """,
            after="""
            import tensorflow as tf
            import tf_keras


            class Net(tf_keras.Model):
                def train_step(self, data):
                    return super().train_step(data)


            strategy = tf.distribute.MirroredStrategy()
            """,
            note="tf_keras base, decorator with arguments",
        ),
        Invalid(
            """
            import tensorflow as tf
            from tf_keras import Model


            class Net(Model):
                # compiled for speed
                @tf.function
                @some_logger
                def train_step(self, data):
                    return super().train_step(data)


            def main(strategy: tf.distribute.Strategy):
                with strategy.scope():
                    Net().compile()
            """,
            after="""
            import tensorflow as tf
            from tf_keras import Model


            class Net(Model):
                # compiled for speed
                @some_logger
                def train_step(self, data):
                    return super().train_step(data)


            def main(strategy: tf.distribute.Strategy):
                with strategy.scope():
                    Net().compile()
            """,
            note="comment above kept, other decorator kept",
        ),
        Invalid(
            """
            import tf_keras as keras
            import tensorflow as tf
            from tensorflow import function


            class Base(keras.Model):
                pass


            class Net(Base):
                @function
                def train_step(self, data):
                    return super().train_step(data)


            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            """,
            after="""
            import tf_keras as keras
            import tensorflow as tf
            from tensorflow import function


            class Base(keras.Model):
                pass


            class Net(Base):
                def train_step(self, data):
                    return super().train_step(data)


            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            """,
            note="subclass of a local model class, imported function",
        ),
        Invalid(
            """
            import os
            os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
            import tensorflow as tf


            class Net(tf.keras.Model):
                @tf.function  # keep
                def train_step(self, data):
                    return super().train_step(data)


            strategy = tf.distribute.MirroredStrategy()
            """,
            after=None,
            note="comment on the decorator line: advice",
        ),
        Invalid(
            """
            import os
            os.environ["TF_USE_LEGACY_KERAS"] = "true"
            import tensorflow as tf
            from tensorflow.keras import Model


            class Net(Model):
                @tf.function
                def train_step(self, data):
                    return super().train_step(data)

                @tf.function
                def call(self, x):
                    return x


            strategy = tf.distribute.MirroredStrategy()
            """,
            after="""
            import os
            os.environ["TF_USE_LEGACY_KERAS"] = "true"
            import tensorflow as tf
            from tensorflow.keras import Model


            class Net(Model):
                def train_step(self, data):
                    return super().train_step(data)

                @tf.function
                def call(self, x):
                    return x


            strategy = tf.distribute.MirroredStrategy()
            """,
            note="only train_step, not call",
        ),
        Invalid(
            """
            import tensorflow as tf
            import tf_keras


            class GAN(tf_keras.Sequential):
                @tf.function
                def train_step(self, batch):
                    return {}


            class Runner:
                def __init__(self):
                    self.strategy = tf.distribute.MirroredStrategy()
            """,
            after="""
            import tensorflow as tf
            import tf_keras


            class GAN(tf_keras.Sequential):
                def train_step(self, batch):
                    return {}


            class Runner:
                def __init__(self):
                    self.strategy = tf.distribute.MirroredStrategy()
            """,
            note="Sequential subclass, strategy on self",
        ),
        Invalid(
            """
            import tensorflow.compat.v2 as tf
            import tf_keras


            class Net(tf_keras.models.Model):
                @tf.function()
                def train_step(self, data):
                    return super().train_step(data)


            strategy = tf.distribute.TPUStrategy(resolver)
            """,
            after="""
            import tensorflow.compat.v2 as tf
            import tf_keras


            class Net(tf_keras.models.Model):
                def train_step(self, data):
                    return super().train_step(data)


            strategy = tf.distribute.TPUStrategy(resolver)
            """,
            note="compat.v2 alias, TPUStrategy",
        ),
        Valid(
            """
            import tensorflow as tf


            class Net(tf.keras.Model):
                @tf.function
                def train_step(self, data):
                    return super().train_step(data)


            strategy = tf.distribute.MirroredStrategy()
            """,
            note="Keras 3: measured harmless",
        ),
        Valid(
            """
            import keras
            import tensorflow as tf


            class Net(keras.Model):
                @tf.function
                def train_step(self, data):
                    return super().train_step(data)


            strategy = tf.distribute.MirroredStrategy()
            """,
            note="standalone keras is Keras 3",
        ),
        Valid(
            """
            import os
            os.environ["TF_USE_LEGACY_KERAS"] = "1"
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            @tf.function
            def replica_step(x):
                return model(x)

            @tf.function
            def step(x):
                return strategy.run(replica_step, args=(x,))
            """,
            note="nested tf.function replica fn: measured harmless",
        ),
        Valid(
            """
            import tf_keras


            class Net(tf_keras.Model):
                @tf.function
                def train_step(self, data):
                    return super().train_step(data)
            """,
            note="no strategy in the module",
        ),
        Valid(
            """
            import tensorflow as tf
            import tf_keras


            class Net(tf_keras.Model):
                def train_step(self, data):
                    return super().train_step(data)


            strategy = tf.distribute.MirroredStrategy()
            """,
            note="undecorated",
        ),
        Valid(
            """
            import tensorflow as tf
            import tf_keras


            class Trainer:
                @tf.function
                def train_step(self, data):
                    return self.model(data)


            strategy = tf.distribute.MirroredStrategy()
            """,
            note="not a Keras model",
        ),
        Valid(
            """
            import os
            os.environ["TF_USE_LEGACY_KERAS"] = os.environ.get("LEGACY", "0")
            import tensorflow as tf


            class Net(tf.keras.Model):
                @tf.function
                def train_step(self, data):
                    return super().train_step(data)


            strategy = tf.distribute.MirroredStrategy()
            """,
            note="Keras version read at run time: unknown",
        ),
        Valid(
            """
            import tensorflow as tf
            import tf_keras


            class Net(tf_keras.Model):
                @tf.function
                def predict_step(self, data):
                    return self(data)


            strategy = tf.distribute.MirroredStrategy()
            """,
            note="predict_step does no cross-replica update",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        if not ctx.tf.strategies.module_has_strategy:
            return
        pinned_keras2: bool | None = None
        legacy = legacy_keras(ctx)
        for func in ctx.index.functions_by_name.get("train_step", []):
            owner = ctx.index.method_class(func)
            base = keras_model_base(ctx.index, ctx.tf.names, owner) if owner is not None else None
            decorator = next((d for d in func.decorators if self._is_tf_function(ctx, d)), None)
            if base is None or decorator is None:
                continue
            if pinned_keras2 is None:
                pinned_keras2 = pinned_below(Path(ctx.path).resolve().parent, (2, 16))
            if keras_flavour(keras_module(ctx, base), legacy, pinned_keras2) != 2:
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
