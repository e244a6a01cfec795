"""TFD501: one constant seed on every worker while per-worker randomness is used."""

from __future__ import annotations

import libcst as cst

from fixer.engine import RuleContext
from fixer.rule import Invalid, Rule, Valid
from fixer.types import Applicability

_SEEDERS = frozenset({"tensorflow.random.set_seed", "keras.utils.set_random_seed"})
_RANDOM_PREFIXES = ("tensorflow.random.", "tensorflow.image.random_", "keras.random.")
_NOT_RANDOM = ("tensorflow.random.set_seed", "tensorflow.random.Generator", "tensorflow.random.stateless_")
_AUGMENTATION_PREFIX = "keras.layers.Random"


class SameSeedOnEveryWorker(Rule):
    """
    ## What it does
    Under `MultiWorkerMirroredStrategy`, finds one constant seed
    (`tf.random.set_seed(42)`, `keras.utils.set_random_seed(42)`) set on every worker while
    the workers draw randomness that the seed controls and that should differ between them:
    random ops inside a replica function or a dataset `map` function, Keras random augmentation
    layers, or a shuffle after the data is sharded.

    ## Why is this bad in distributed training?
    With the same seed, every worker draws the same "random" augmentations and noise, so the
    workers' batches are less diverse than intended (seed article 003). What TensorFlow 2.21
    really does, measured on two workers: initial weights are broadcast from worker 0 whatever
    the seeds (so per-worker seeds never make the weights differ — the article's worry there is
    unfounded); Keras 3 `Dropout` masks are identical across workers and replicas whatever the
    seeds; `tf.random.uniform` inside the replica function is identical on both workers with
    one seed and different with per-worker seeds. Only the last kind is what this rule is about,
    so weight initialisation and `Dropout` alone are not reported.

    ## Fix safety
    Unsafe: the seed becomes `seed + task index`
    (`tf.distribute.cluster_resolver.TFConfigClusterResolver().task_id or 0`, which reads
    TF_CONFIG and works before the strategy exists). When the program also shuffles a dataset
    without its own seed before distributing it, a per-worker global seed would make that
    shuffle differ between workers and auto-sharding would then drop and duplicate examples
    (measured); the finding then says to seed that shuffle first and makes no edit.

    ## Runtime evidence
    With one seed, `distfix validate --workers 2` sees identical random draws on both workers.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/random/set_seed
    - https://www.tensorflow.org/tutorials/distribute/input#sharding
    """

    code = "TFD501"
    name = "same-seed-on-every-worker"
    message = "one constant seed on every worker"
    fix_title = "Offset the seed by the task index"
    applicability = Applicability.UNSAFE
    triggers = ("MultiWorkerMirroredStrategy",)

    examples = (
        Invalid(
            """
            import tensorflow as tf

            tf.random.set_seed(42)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def replica_fn(x):
                noise = tf.random.normal(tf.shape(x), stddev=0.1)
                return model(x + noise)

            strategy.run(replica_fn, args=(batch,))
            """,
            after="""
            import tensorflow as tf

            tf.random.set_seed(42 + (tf.distribute.cluster_resolver.TFConfigClusterResolver().task_id or 0))
            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def replica_fn(x):
                noise = tf.random.normal(tf.shape(x), stddev=0.1)
                return model(x + noise)

            strategy.run(replica_fn, args=(batch,))
            """,
            note="noise in the replica fn",
        ),
        Invalid(
            """
            import tensorflow as tf

            SEED = 7
            tf.keras.utils.set_random_seed(SEED)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def augment(image, label):
                return tf.image.random_flip_left_right(image), label

            dataset = tf.data.Dataset.from_tensor_slices((images, labels)).map(augment).batch(32)
            """,
            after="""
            import tensorflow as tf

            SEED = 7
            tf.keras.utils.set_random_seed(SEED + (tf.distribute.cluster_resolver.TFConfigClusterResolver().task_id or 0))
            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def augment(image, label):
                return tf.image.random_flip_left_right(image), label

            dataset = tf.data.Dataset.from_tensor_slices((images, labels)).map(augment).batch(32)
            """,
            note="augmentation in a map function",
        ),
        Invalid(
            """
            import keras
            import tensorflow as tf

            keras.utils.set_random_seed(1)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = keras.Sequential([keras.layers.RandomFlip("horizontal"), keras.layers.Dense(1)])
            """,
            after="""
            import keras
            import tensorflow as tf

            keras.utils.set_random_seed(1 + (tf.distribute.cluster_resolver.TFConfigClusterResolver().task_id or 0))
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = keras.Sequential([keras.layers.RandomFlip("horizontal"), keras.layers.Dense(1)])
            """,
            note="augmentation layer",
        ),
        Invalid(
            """
            import tensorflow as tf

            tf.random.set_seed(3)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            resolver = strategy.cluster_resolver
            ds = tf.data.Dataset.range(100).shard(2, resolver.task_id).shuffle(100).batch(10)
            """,
            after="""
            import tensorflow as tf

            tf.random.set_seed(3 + (tf.distribute.cluster_resolver.TFConfigClusterResolver().task_id or 0))
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            resolver = strategy.cluster_resolver
            ds = tf.data.Dataset.range(100).shard(2, resolver.task_id).shuffle(100).batch(10)
            """,
            note="shuffle after shard",
        ),
        Invalid(
            """
            import tensorflow as tf

            tf.random.set_seed(42)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            dataset = tf.data.Dataset.range(100).shuffle(100).batch(10).map(lambda x: x + tf.random.uniform([]))
            dist = strategy.experimental_distribute_dataset(dataset)
            """,
            after=None,
            note="an unseeded shuffle before auto-sharding: advice",
        ),
        Invalid(
            """
            import tensorflow as tf
            from tensorflow.distribute import MultiWorkerMirroredStrategy as MWMS

            def main():
                tf.random.set_seed(10)
                strategy = MWMS()

                def step_fn(x):
                    return tf.nn.dropout(x, rate=0.5) * tf.random.uniform([])

                strategy.run(step_fn, args=(x,))
            """,
            after="""
            import tensorflow as tf
            from tensorflow.distribute import MultiWorkerMirroredStrategy as MWMS

            def main():
                tf.random.set_seed(10 + (tf.distribute.cluster_resolver.TFConfigClusterResolver().task_id or 0))
                strategy = MWMS()

                def step_fn(x):
                    return tf.nn.dropout(x, rate=0.5) * tf.random.uniform([])

                strategy.run(step_fn, args=(x,))
            """,
            note="inside main",
        ),
        Invalid(
            """
            import tensorflow as tf

            tf.random.set_seed(0)
            strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()

            def replica_fn(x):
                return tf.random.shuffle(x)

            strategy.run(replica_fn, args=(x,))
            """,
            after="""
            import tensorflow as tf

            tf.random.set_seed(0 + (tf.distribute.cluster_resolver.TFConfigClusterResolver().task_id or 0))
            strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()

            def replica_fn(x):
                return tf.random.shuffle(x)

            strategy.run(replica_fn, args=(x,))
            """,
            note="experimental class",
        ),
        Invalid(
            """
            import tensorflow as tf
            from tensorflow.keras import layers

            tf.keras.utils.set_random_seed(123)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            augment = tf.keras.Sequential([layers.RandomRotation(0.1), layers.RandomZoom(0.1)])
            """,
            after="""
            import tensorflow as tf
            from tensorflow.keras import layers

            tf.keras.utils.set_random_seed(123 + (tf.distribute.cluster_resolver.TFConfigClusterResolver().task_id or 0))
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            augment = tf.keras.Sequential([layers.RandomRotation(0.1), layers.RandomZoom(0.1)])
            """,
            note="layers imported from tensorflow.keras",
        ),
        Valid(
            """
            import tensorflow as tf

            tf.random.set_seed(42)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(16), tf.keras.layers.Dropout(0.5), tf.keras.layers.Dense(1)])
            """,
            note="only weights and Dropout, which the seed does not split",
        ),
        Valid(
            """
            import tensorflow as tf

            tf.random.set_seed(42)
            strategy = tf.distribute.MirroredStrategy()

            def replica_fn(x):
                return x + tf.random.normal(tf.shape(x))

            strategy.run(replica_fn, args=(x,))
            """,
            note="single machine",
        ),
        Valid(
            """
            import tensorflow as tf

            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
            tf.random.set_seed(42 + resolver.task_id)
            strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)

            def replica_fn(x):
                return x + tf.random.normal(tf.shape(x))
            """,
            note="seed already per worker",
        ),
        Valid(
            """
            import tensorflow as tf

            tf.random.set_seed(42)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            x_train = tf.random.normal((100, 10))
            dataset = tf.data.Dataset.from_tensor_slices(x_train).shuffle(100, seed=1).batch(10)
            """,
            note="synthetic data that must be equal on every worker",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def replica_fn(x):
                return x + tf.random.normal(tf.shape(x))
            """,
            note="no seed at all",
        ),
        Valid(
            """
            import tensorflow as tf

            tf.random.set_seed(args.seed)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def replica_fn(x):
                return x + tf.random.normal(tf.shape(x))
            """,
            note="seed from a flag",
        ),
        Valid(
            """
            import tensorflow as tf

            tf.random.set_seed(42)  # distfix: ignore[TFD501]
            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def replica_fn(x):
                return x + tf.random.normal(tf.shape(x))

            strategy.run(replica_fn, args=(x,))
            """,
            note="suppressed",
        ),
        Valid(
            """
            import tensorflow as tf

            tf.random.set_seed(42)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def replica_fn(x, seed):
                return x + tf.random.stateless_normal(tf.shape(x), seed=seed)

            strategy.run(replica_fn, args=(x, seeds))
            """,
            note="stateless ops take their own seed",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        if not ctx.tf.strategies.uses_multi_worker:
            return
        seeds = [c for c in ctx.index.calls if ctx.tf.names.callee(c) in _SEEDERS and len(c.args) == 1]
        seeds = [c for c in seeds if _constant(ctx, c.args[0].value)]
        if not seeds or not self._per_worker_randomness(ctx):
            return
        unseeded_shuffle = any(
            isinstance(c.func, cst.Attribute)
            and c.func.attr.value == "shuffle"
            and ctx.tf.names.callee(c) is None  # a dataset's method, not tf.random.shuffle
            and not any(a.keyword is not None and a.keyword.value == "seed" for a in c.args)
            and len([a for a in c.args if a.keyword is None]) < 2
            and not _after_shard(c)
            for c in ctx.index.calls
        )
        message = (
            "every worker sets the same seed, so their random draws (augmentation, noise, shuffles after "
            "sharding) are identical; offset it by the task index"
        )
        for call in seeds:
            if unseeded_shuffle:
                ctx.report(
                    call,
                    message + "; first give the dataset's shuffle its own seed (`shuffle(n, seed=...)`): it must "
                    "stay identical on every worker for auto-sharding",
                )
                continue
            tf, imports = ctx.import_module("tensorflow", "tf")
            offset = f" + ({tf}.distribute.cluster_resolver.TFConfigClusterResolver().task_id or 0)"
            ctx.report(call, message, edits=[*imports, ctx.insert_after(call.args[0].value, offset)])

    def _per_worker_randomness(self, ctx: RuleContext) -> bool:
        map_functions = set()
        for call in ctx.index.calls:
            if isinstance(call.func, cst.Attribute) and call.func.attr.value == "map" and call.args:
                map_functions.update(ctx.tf.replica.resolve_callable(call.args[0].value))
        for call in ctx.index.calls:
            callee = ctx.tf.names.callee(call) or ""
            if callee.startswith(_AUGMENTATION_PREFIX):
                return True
            if isinstance(call.func, cst.Attribute) and call.func.attr.value == "shuffle" and _after_shard(call):
                return True
            if not callee.startswith(_RANDOM_PREFIXES) or callee.startswith(_NOT_RANDOM):
                continue
            func = ctx.index.enclosing_function(call)
            if func is not None and (func in ctx.tf.replica.replica_functions or func in map_functions):
                return True
        return False


def _constant(ctx: RuleContext, expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.Integer):
        return True
    if isinstance(expr, cst.Name):
        values = [
            a.value for a in ctx.index.assigns
            if isinstance(a, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == expr.value for t in a.targets)
        ]
        return len(values) == 1 and isinstance(values[0], cst.Integer)
    return False


def _after_shard(call: cst.Call) -> bool:
    """True for ``....shard(...)....shuffle(...)`` chains."""
    node = call.func.value if isinstance(call.func, cst.Attribute) else None
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if node.func.attr.value == "shard":
            return True
        node = node.func.value
    return False
