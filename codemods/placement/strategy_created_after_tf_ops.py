"""TFD105: MultiWorkerMirroredStrategy constructed after TensorFlow already ran ops."""

from __future__ import annotations

import libcst as cst

from fixer.engine import RuleContext
from fixer.rule import Invalid, Rule, Valid
from fixer.tf.dataflow import independent
from fixer.tf.strategies import MULTI_WORKER_CLASSES
from fixer.types import Applicability, Edit

# Calls that configure TensorFlow without starting its runtime: allowed before the strategy.
_CONFIGURATION = (
    "tensorflow.config.",
    "tensorflow.random.set_seed",
    "keras.utils.set_random_seed",
    "tensorflow.get_logger",
    "tensorflow.autograph.set_verbosity",
    "tensorflow.debugging.set_log_device_placement",
    "tensorflow.compat.v1.logging.",
    "tensorflow.distribute.",
    "tensorflow.train.ClusterSpec",
    "tensorflow.keras.mixed_precision.set_global_policy",
    "keras.mixed_precision.set_global_policy",
)
# ...except these, which start the runtime (measured: the strategy then fails).
_STARTS_RUNTIME = ("tensorflow.config.list_logical_devices", "tensorflow.config.experimental.list_logical_devices")


class StrategyCreatedAfterTfOps(Rule):
    """
    ## What it does
    Finds `MultiWorkerMirroredStrategy(...)` constructed after module-level code already ran
    TensorFlow: creating tensors, variables, models or datasets, or listing logical devices.

    ## Why is this bad in distributed training?
    Collective operations must be configured before the TensorFlow runtime starts. Constructing
    the strategy afterwards raises `RuntimeError: Collective ops must be configured at program
    startup` — measured on TensorFlow 2.21 after a `tf.config.list_logical_devices()` call.
    Configuration calls (`tf.config.set_*`, `list_physical_devices`, seeds, logging) are fine.

    ## Fix safety
    Unsafe: the strategy's statement moves up to just before the first statement that runs
    TensorFlow, when its arguments do not depend on anything in between; otherwise the finding
    says what to move.

    ## Runtime evidence
    `distfix validate --workers 2` shows the original failing check `runs` with the error above.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/distribute/MultiWorkerMirroredStrategy
    - https://www.tensorflow.org/tutorials/distribute/multi_worker_with_ctl
    """

    code = "TFD105"
    name = "strategy-created-after-tf-ops"
    message = "MultiWorkerMirroredStrategy created after TensorFlow ran ops"
    fix_title = "Create the strategy before any TensorFlow op"
    applicability = Applicability.UNSAFE
    triggers = ("MultiWorkerMirroredStrategy",)

    examples = (
        Invalid(
            """
            import tensorflow as tf

            print(tf.config.list_logical_devices())
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            print(tf.config.list_logical_devices())
            """,
            note="logical devices listed first",
        ),
        Invalid(
            """
            import tensorflow as tf

            x_train = tf.random.normal((100, 10))
            y_train = tf.random.normal((100, 1))
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            x_train = tf.random.normal((100, 10))
            y_train = tf.random.normal((100, 1))
            """,
            note="data tensors first",
        ),
        Invalid(
            """
            import tensorflow as tf

            tf.random.set_seed(42)
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            """,
            after="""
            import tensorflow as tf

            tf.random.set_seed(42)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            """,
            note="a model before, the seed is fine",
        ),
        Invalid(
            """
            import tensorflow as tf

            options = tf.distribute.experimental.CommunicationOptions()
            dataset = tf.data.Dataset.range(10)
            strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
            """,
            after="""
            import tensorflow as tf

            options = tf.distribute.experimental.CommunicationOptions()
            strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
            dataset = tf.data.Dataset.range(10)
            """,
            note="dataset before, options are configuration",
        ),
        Invalid(
            """
            import tensorflow as tf

            n = tf.constant(4)
            strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=make_options(n))
            """,
            after=None,
            note="depends on the op: advice",
        ),
        Invalid(
            """
            from tensorflow.distribute import MultiWorkerMirroredStrategy
            import tensorflow as tf

            w = tf.Variable(0.0)
            strategy = MultiWorkerMirroredStrategy()
            """,
            after="""
            from tensorflow.distribute import MultiWorkerMirroredStrategy
            import tensorflow as tf

            strategy = MultiWorkerMirroredStrategy()
            w = tf.Variable(0.0)
            """,
            note="imported class",
        ),
        Invalid(
            """
            import tensorflow as tf

            def main():
                gpus = tf.config.list_logical_devices("GPU")
                strategy = tf.distribute.MultiWorkerMirroredStrategy()
                return strategy
            """,
            after="""
            import tensorflow as tf

            def main():
                strategy = tf.distribute.MultiWorkerMirroredStrategy()
                gpus = tf.config.list_logical_devices("GPU")
                return strategy
            """,
            note="inside main",
        ),
        Invalid(
            """
            import tensorflow as tf

            tf.print("starting")
            strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
            tf.print("starting")
            """,
            note="tf.print",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            x = tf.random.normal((4, 2))
            """,
            note="strategy first",
        ),
        Valid(
            """
            import tensorflow as tf

            gpus = tf.config.list_physical_devices("GPU")
            for gpu in gpus:
                tf.config.experimental.set_memory_growth(gpu, True)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            """,
            note="device configuration first",
        ),
        Valid(
            """
            import tensorflow as tf

            x = tf.constant(1)
            strategy = tf.distribute.MirroredStrategy()
            """,
            note="single-machine strategy",
        ),
        Valid(
            """
            import os
            import tensorflow as tf

            os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
            tf.get_logger().setLevel("ERROR")
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            """,
            note="logging setup",
        ),
        Valid(
            """
            import tensorflow as tf

            def make_data():
                return tf.random.normal((4, 2))

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            data = make_data()
            """,
            note="a function defined before but called after",
        ),
        Valid(
            """
            import tensorflow as tf

            cpu = tf.config.list_physical_devices("CPU")[0]
            tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            """,
            note="logical device split is configuration",
        ),
        Valid(
            """
            import tensorflow as tf

            x = tf.constant(1)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()  # distfix: ignore[TFD105]
            """,
            note="suppressed",
        ),
        Valid(
            """
            import tensorflow as tf

            spec = tf.train.ClusterSpec({"worker": ["a:1", "b:1"]})
            resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(spec, task_type="worker", task_id=0)
            strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)
            """,
            note="cluster spec and resolver are configuration",
        ),
        Valid(
            """
            import numpy as np
            import tensorflow as tf

            data = np.random.normal(size=(4, 2))
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            """,
            note="numpy work is not TensorFlow",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        for call, kind in ctx.tf.strategies.constructions:
            if kind not in MULTI_WORKER_CLASSES:
                continue
            statement = ctx.index.statement_of(call)
            block = ctx.index.parent.get(statement)
            body = list(getattr(block, "body", ()))
            if statement not in body:
                continue
            position = body.index(statement)
            first_op = next((i for i, s in enumerate(body[:position]) if self._runs_tf(ctx, s)), None)
            if first_op is None:
                continue
            message = (
                "MultiWorkerMirroredStrategy is created after TensorFlow ran ops: it raises `Collective ops must "
                "be configured at program startup`; create it first"
            )
            between = body[first_op:position]
            if not independent([statement], between) or not isinstance(statement, cst.SimpleStatementLine):
                ctx.report(call, message)
                continue
            start, end = ctx.statement_block([statement])
            target = ctx.statement_block([body[first_op]])[0]
            ctx.report(call, message, edits=[Edit(start, end, ""), Edit(target, target, ctx.text[start:end])])

    def _runs_tf(self, ctx: RuleContext, statement: cst.CSTNode) -> bool:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) or not isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            return False
        for call in ctx.index.calls:
            if not ctx.index.is_within(call, statement) or ctx.index.enclosing_function(call) is not ctx.index.enclosing_function(statement):
                continue
            callee = ctx.tf.names.callee(call)
            if callee is None or callee.split(".")[0] not in ("tensorflow", "keras"):
                continue  # methods of objects: the call that made the object is checked itself
            if callee.startswith(_STARTS_RUNTIME) or not callee.startswith(_CONFIGURATION):
                return True
        return False
