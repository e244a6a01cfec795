"""TFD504: Keras 3 `fit`/`evaluate` under MultiWorkerMirroredStrategy (it raises)."""

from __future__ import annotations

from pathlib import Path

import libcst as cst

from fixer.engine import RuleContext
from fixer.rule import Invalid, Rule, Valid
from fixer.tf.project import pinned_below
from fixer.types import Applicability, Edit

_TRAINING = frozenset({"fit", "evaluate"})
_MODELS = ("keras.Sequential", "keras.Model", "keras.models.", "keras.applications.")


class Keras3FitUnderMultiworker(Rule):
    """
    ## What it does
    Finds `model.fit(...)` and `model.evaluate(...)` in a program that uses
    `MultiWorkerMirroredStrategy` when `tf.keras` is Keras 3: TensorFlow 2.16 or newer, without
    `TF_USE_LEGACY_KERAS=1` and without `tf_keras`. A project that pins TensorFlow below 2.16
    (in `requirements*.txt`, `pyproject.toml`, `setup.py`, `setup.cfg` or `environment.yml`) uses
    Keras 2, where `fit` works, and is not reported.

    ## Why is this bad in distributed training?
    Measured with TensorFlow 2.21 and Keras 3.15 on two local workers: `fit` raises on every
    worker, with arrays and with a dataset, `ValueError: Attempt to convert a value
    (PerReplica:{...}) with an unsupported type (<class '...PerReplica'>) to a Tensor.` The same
    script trains with `tf-keras` and `TF_USE_LEGACY_KERAS=1` set before TensorFlow is imported.
    Custom training loops (`strategy.run`) work with Keras 3.

    ## Fix safety
    Unsafe: `os.environ["TF_USE_LEGACY_KERAS"] = "1"` is inserted before the first TensorFlow or
    Keras import (with `import os` when needed). `tf-keras` must be installed
    (`pip install tf-keras` matching the TensorFlow version), and Keras 2 behaves differently from
    Keras 3 in places; the alternative is a custom training loop.

    ## Runtime evidence
    `distfix validate --workers 2` shows the original failing check `runs` with the `ValueError`
    above, and the fixed script training on both workers (with tf-keras installed).

    ## References
    - https://keras.io/getting_started/#tensorflow--keras-2-backwards-compatibility
    - https://www.tensorflow.org/tutorials/distribute/multi_worker_with_keras
    """

    code = "TFD504"
    name = "keras3-fit-under-multiworker"
    message = "Keras 3 `fit` under MultiWorkerMirroredStrategy raises"
    fix_title = "Use tf-keras (TF_USE_LEGACY_KERAS=1)"
    applicability = Applicability.UNSAFE
    triggers = ("MultiWorkerMirroredStrategy",)

    examples = (
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                model.compile(optimizer="adam", loss="mse")
            model.fit(x, y, epochs=3)
            """,
            after="""
            import os
            os.environ["TF_USE_LEGACY_KERAS"] = "1"
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                model.compile(optimizer="adam", loss="mse")
            model.fit(x, y, epochs=3)
            """,
            note="fit after a multi-worker scope",
        ),
        Invalid(
            """
            \"\"\"Train on every worker.\"\"\"
            import os

            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = build_model()
            model.compile(optimizer="sgd", loss="mse")
            model.fit(dataset)
            model.evaluate(dataset)
            """,
            after="""
            \"\"\"Train on every worker.\"\"\"
            import os
            os.environ["TF_USE_LEGACY_KERAS"] = "1"

            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = build_model()
            model.compile(optimizer="sgd", loss="mse")
            model.fit(dataset)
            model.evaluate(dataset)
            """,
            count=2,
            note="docstring and os already imported",
        ),
        Invalid(
            """
            from tensorflow import keras
            import tensorflow as tf

            strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = keras.Sequential([keras.layers.Dense(4)])
            model.compile(loss="mse")
            history = model.fit(ds)
            """,
            after="""
            import os
            os.environ["TF_USE_LEGACY_KERAS"] = "1"
            from tensorflow import keras
            import tensorflow as tf

            strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = keras.Sequential([keras.layers.Dense(4)])
            model.compile(loss="mse")
            history = model.fit(ds)
            """,
            note="experimental class and keras from tensorflow",
        ),
        Invalid(
            """
            import tensorflow as tf


            class Job:
                def __init__(self):
                    self.strategy = tf.distribute.MultiWorkerMirroredStrategy()
                    with self.strategy.scope():
                        self.model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                        self.model.compile(loss="mse")

                def run(self, data):
                    self.model.fit(data)
            """,
            after="""
            import os
            os.environ["TF_USE_LEGACY_KERAS"] = "1"
            import tensorflow as tf


            class Job:
                def __init__(self):
                    self.strategy = tf.distribute.MultiWorkerMirroredStrategy()
                    with self.strategy.scope():
                        self.model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                        self.model.compile(loss="mse")

                def run(self, data):
                    self.model.fit(data)
            """,
            note="model on self",
        ),
        Invalid(
            """
            import keras
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = keras.Sequential([keras.layers.Dense(1)])
            model.fit(x, y)
            """,
            after=None,
            note="standalone keras 3 cannot switch: advice",
        ),
        Invalid(
            """
            import tensorflow as tf
            from tensorflow.distribute import MultiWorkerMirroredStrategy as MWMS

            strategy = MWMS()
            with strategy.scope():
                net = tf.keras.applications.MobileNetV2(weights=None)
            net.compile(loss="mse")
            net.fit(images, labels)
            """,
            after="""
            import os
            os.environ["TF_USE_LEGACY_KERAS"] = "1"
            import tensorflow as tf
            from tensorflow.distribute import MultiWorkerMirroredStrategy as MWMS

            strategy = MWMS()
            with strategy.scope():
                net = tf.keras.applications.MobileNetV2(weights=None)
            net.compile(loss="mse")
            net.fit(images, labels)
            """,
            note="aliased class and an application",
        ),
        Invalid(
            """
            import tensorflow as tf

            def main():
                strategy = tf.distribute.MultiWorkerMirroredStrategy()
                with strategy.scope():
                    model = tf.keras.models.Sequential([tf.keras.layers.Dense(1)])
                    model.compile(loss="mse")
                model.fit(x, y)

            main()
            """,
            after="""
            import os
            os.environ["TF_USE_LEGACY_KERAS"] = "1"
            import tensorflow as tf

            def main():
                strategy = tf.distribute.MultiWorkerMirroredStrategy()
                with strategy.scope():
                    model = tf.keras.models.Sequential([tf.keras.layers.Dense(1)])
                    model.compile(loss="mse")
                model.fit(x, y)

            main()
            """,
            note="inside main",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                model.compile(loss="mse")
                model.fit(x, y)
            """,
            after="""
            import os
            os.environ["TF_USE_LEGACY_KERAS"] = "1"
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                model.compile(loss="mse")
                model.fit(x, y)
            """,
            note="fit inside the scope",
        ),
        Valid(
            """
            import os
            os.environ["TF_USE_LEGACY_KERAS"] = "1"
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.fit(x, y)
            """,
            note="legacy Keras requested",
        ),
        Invalid(
            """
            import tensorflow as tf

            def build_and_compile_cnn_model():
                model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
                model.compile(loss="mse", optimizer="sgd")
                return model

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                multi_worker_model = build_and_compile_cnn_model()
            multi_worker_model.fit(dataset, epochs=3, steps_per_epoch=70)
            """,
            after="""
            import os
            os.environ["TF_USE_LEGACY_KERAS"] = "1"
            import tensorflow as tf

            def build_and_compile_cnn_model():
                model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
                model.compile(loss="mse", optimizer="sgd")
                return model

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                multi_worker_model = build_and_compile_cnn_model()
            multi_worker_model.fit(dataset, epochs=3, steps_per_epoch=70)
            """,
            note="the multi-worker Keras tutorial's model factory",
        ),
        Valid(
            """
            import tf_keras
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = tf_keras.Sequential([tf_keras.layers.Dense(1)])
            model.fit(x, y)
            """,
            note="tf_keras model",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.fit(x, y)
            """,
            note="single-machine strategy",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            @tf.function
            def step(x):
                return strategy.run(replica_fn, args=(x,))
            """,
            note="custom training loop",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            scaler = StandardScaler()
            scaler.fit(features)
            """,
            note="fit of another library",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.fit(x, y)  # distfix: ignore[TFD504]
            """,
            note="suppressed",
        ),
        Valid(
            """
            import os
            os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.fit(x, y)
            """,
            note="setdefault of the legacy switch",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.predict(x)
            """,
            note="predict only",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        strategies = ctx.tf.strategies
        if not strategies.uses_multi_worker or "TF_USE_LEGACY_KERAS" in ctx.text or "tf_keras" in ctx.text:
            return  # Keras 2 is already in use (the legacy switch, or tf_keras itself)
        if pinned_below(Path(ctx.path).resolve().parent, (2, 16)):
            return
        models = self._model_keys(ctx)
        calls = [
            call
            for call in ctx.index.calls
            if isinstance(call.func, cst.Attribute)
            and call.func.attr.value in _TRAINING
            and ctx.source(call.func.value) in models
        ]
        if not calls:
            return
        edits = self._legacy_switch(ctx)
        for call in calls:
            if edits is None:
                ctx.report(
                    call,
                    "Keras 3 `fit`/`evaluate` raises under MultiWorkerMirroredStrategy (TensorFlow 2.21: `Attempt to "
                    "convert a value (PerReplica...)`); standalone `keras` cannot switch to Keras 2: use a custom "
                    "training loop with `strategy.run`",
                )
            else:
                ctx.report(
                    call,
                    "Keras 3 `fit`/`evaluate` raises under MultiWorkerMirroredStrategy (TensorFlow 2.21: `Attempt to "
                    "convert a value (PerReplica...)`); use tf-keras: set TF_USE_LEGACY_KERAS=1 before importing "
                    "TensorFlow and `pip install tf-keras`",
                    edits=edits,
                )

    def _model_keys(self, ctx: RuleContext) -> set[str]:
        factories = self._model_factories(ctx)
        keys: set[str] = set()
        for assign in ctx.index.assigns:
            if isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Call):
                callee = ctx.tf.names.callee(assign.value) or ""
                func = assign.value.func
                local = isinstance(func, cst.Name) and ctx.tf.names.qualified(func) is None
                if callee.startswith(_MODELS) or (local and (func.value in factories or self._compiled(ctx, assign))):
                    keys.update(ctx.source(t.target) for t in assign.targets)
        return keys

    def _model_factories(self, ctx: RuleContext) -> set[str]:
        """Functions of the module that build a Keras model (the usual `build_and_compile_model`)."""
        names = set()
        for call in ctx.index.calls:
            callee = ctx.tf.names.callee(call) or ""
            func = ctx.index.enclosing_function(call)
            if isinstance(func, cst.FunctionDef) and callee.startswith(_MODELS):
                names.add(func.name.value)
        return names

    def _compiled(self, ctx: RuleContext, assign: cst.Assign) -> bool:
        targets = {ctx.source(t.target) for t in assign.targets}
        return any(
            isinstance(c.func, cst.Attribute) and c.func.attr.value == "compile" and ctx.source(c.func.value) in targets
            for c in ctx.index.calls
        )

    def _legacy_switch(self, ctx: RuleContext) -> list[Edit] | None:
        """Set TF_USE_LEGACY_KERAS=1 before the first TensorFlow import; None for standalone keras."""
        first_tf = None
        for node in ctx.index.imports:
            names = [a.name for a in node.names] if isinstance(node, cst.Import) else [node.module] if node.module else []
            roots = {ctx.source(n).split(".")[0] for n in names if n is not None}
            if "keras" in roots:
                return None
            if "tensorflow" in roots and first_tf is None:
                first_tf = node
        if first_tf is None:
            return None
        statement = ctx.index.statement_of(first_tf)
        if ctx.index.enclosing_function(statement) is not None:
            return None
        os_imported = any(
            isinstance(n, cst.Import) and any(ctx.source(a.name) == "os" and a.asname is None for a in n.names)
            and ctx.span(n)[0] < ctx.span(first_tf)[0]
            for n in ctx.index.imports
        )
        newline = ctx.newline
        if os_imported:
            os_import = next(
                n for n in ctx.index.imports
                if isinstance(n, cst.Import) and any(ctx.source(a.name) == "os" for a in n.names)
            )
            offset = ctx.textmap.line_end(ctx.range(os_import).end.line)
            return [Edit(offset, offset, f'os.environ["TF_USE_LEGACY_KERAS"] = "1"{newline}')]
        offset = ctx.textmap.line_starts[ctx.range(statement).start.line - 1]
        return [Edit(offset, offset, f'import os{newline}os.environ["TF_USE_LEGACY_KERAS"] = "1"{newline}')]
