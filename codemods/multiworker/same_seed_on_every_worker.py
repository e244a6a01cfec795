"""TFD501: one constant seed on every worker while per-worker randomness is used."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import libcst as cst

from fixer.fixes.pipeline_edits import add_helper
from fixer.rule import Rule
from fixer.semantic.targets import assignment_targets
from fixer.tf.bindings import assigned_values
from fixer.tf.calls import argument_value
from fixer.tf.parameters import call_position, parameter
from fixer.tf.pipelines import FILE_SOURCES, auto_shard_policy, distributed_inputs, pipeline
from fixer.tf.strategies import Membership
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext

# What each seeding call seeds: TensorFlow's global seed, Python's `random`, or both.
_SEEDERS = {"tensorflow.random.set_seed": "tf", "random.seed": "python", "keras.utils.set_random_seed": "all"}
_TF_RANDOM = ("tensorflow.random.", "tensorflow.image.random_")
_NOT_RANDOM = (
    "tensorflow.random.set_seed",
    "tensorflow.random.Generator",
    "tensorflow.random.stateless_",
    "tensorflow.random.experimental.stateless_",
)
_KERAS_RANDOM = ("keras.random.",)
_KERAS_RANDOM_LAYERS = ("keras.layers.Random", "keras.layers.GaussianNoise")


class SameSeedOnEveryWorker(Rule):
    """
    ## What it does
    Under `MultiWorkerMirroredStrategy`, finds one constant seed set on every worker
    (`tf.random.set_seed(42)`, `keras.utils.set_random_seed(42)`, `random.seed(42)`) while the
    workers draw randomness that this seed controls and that should differ between them.

    ## Why is this bad in distributed training?
    With the same seed, every worker draws the same "random" augmentations and noise, so the
    workers' batches are less diverse than intended (seed article 003). Measured on two workers:
    initial weights are broadcast from worker 0 whatever the seeds (so per-worker seeds never
    make the weights differ, and the article's worry there is unfounded), and `tf.random.uniform`
    inside the replica function is identical on both workers with one seed and different with
    per-worker seeds.

    ## Fix safety
    Unsafe. The seed becomes `_worker_seed(seed)`, a helper added from a template: it adds the
    task's position in the cluster, read from TF_CONFIG (which exists before the strategy does),
    with the chief first and the workers after it. A dataset shuffle before the shard point
    must stay identical on every worker for auto-sharding. A per-worker global seed would change
    it too, because TensorFlow derives every op seed from the global seed (`get_seed` returns
    `(global, op)`), even for `shuffle(n, seed=7)`, and workers then drop and duplicate
    examples (measured). So when such a shuffle exists, the finding says so and makes no edit:
    shuffle after `.shard(...)`, or seed the per-worker random ops themselves
    (`tf.random.stateless_*` with the task index).

    ## Known limits
    - A constant seed is a literal, a name bound once to a literal, a parameter whose default is
      one that no caller replaces, `def main(seed=17)`, or a config field, `cfg.seed` with
      `seed: int = 17` in a dataclass that no construction sets.
    - What each seed controls in TensorFlow 2.21 / Keras 3.15 (read from their source in the venv
      and measured on two workers): `tf.random.set_seed` seeds TensorFlow's stateful random ops:
      `tf.random.*` and `tf.image.random_*` in a replica function or a dataset `map` function; also
      a dataset `shuffle` after the shard point (`ds.shard(...)` then `ds.shuffle(...)`), which is
      not counted: every worker applies the same permutation to its own disjoint shard, so no
      example is duplicated or dropped (`benchmarks/probe_same_seed_shuffle_after_shard.py`).
    - A `map` that runs before auto-sharding by data (`experimental_distribute_dataset` of
      in-memory data, or `model.fit`/`evaluate` of it, which distribute their dataset the same way,
      or `AutoShardPolicy.DATA`, with no `.shard` before the map) is not per-worker randomness:
      every worker runs the whole pipeline and keeps its slice of each batch (ground truth G2/G6),
      so each example gets one augmentation, the same draws on every worker, exactly as on one
      machine. It is not reported. A map over files that AUTO shards by file, or after a `.shard`,
      runs on each worker's own examples and is.
    - Keras random layers (`RandomFlip`, `RandomRotation`, ..., `GaussianNoise`) and
      `keras.random.*` without a seed take their seed from Python's `random` module when they are
      created (`keras.random.SeedGenerator` calls `random.randint`; tf-keras does the same), not
      from TensorFlow's global seed. So `tf.random.set_seed` alone leaves them different on every
      worker, and `keras.utils.set_random_seed` or `random.seed` make them identical.
    - A layer created inside `strategy.scope()` keeps its seed state in a variable whose initial
      value is broadcast from worker 0, so it is identical on every worker whatever the seeds
      (measured for `Dropout`). No seed change helps, so it is not reported. Neither are weight
      initialisation and layers given their own `seed=`.

    ## Runtime evidence
    With one seed, `distfix validate --workers 2` sees identical random draws on both workers.

    Measured on TensorFlow 2.21 with two workers on 127.0.0.1
    (`benchmarks/probe_worker_inputs_and_seeds.py`, output in `docs/probes.md`): with
    `tf.random.set_seed(42)` on both, `tf.random.uniform` in the replica function draws the same
    values on both workers; with `42 + task index` they differ; a `Dense` kernel built in the
    scope is identical on both workers under either seeding.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/random/set_seed
    - https://keras.io/api/random/seed_generator/
    - https://www.tensorflow.org/tutorials/distribute/input#sharding
    """

    code = "TFD501"
    name = "same-seed-on-every-worker"
    message = "one constant seed on every worker"
    fix_title = "Offset the seed by the task index"
    applicability = Applicability.UNSAFE
    triggers = ("MultiWorkerMirroredStrategy",)

    def check(self, ctx: RuleContext) -> None:
        if not ctx.tf.strategies.uses_multi_worker:
            return
        for call in ctx.index.calls:
            kind = _SEEDERS.get(ctx.tf.names.callee(call) or "")
            if kind is None or len(call.args) != 1 or not _constant(ctx, call.args[0].value):
                continue
            draws = self._per_worker_randomness(ctx, kind)
            if not draws:
                continue
            message = f"every worker sets the same seed: {draws} repeat on every worker"
            shuffle = self._shuffle_before_shard(ctx) if kind != "python" else None
            if shuffle is not None:
                ctx.report(
                    call,
                    message + f"; not fixed: a per-worker seed would change the shuffle at line "
                    f"{ctx.range(shuffle).start.line} (it must stay identical)",
                )
                continue
            tf, imports = ctx.import_module("tensorflow", "tf")
            helper = add_helper(ctx, "snippets/worker_seed.py.j2", "_worker_seed", tf=tf)
            value = call.args[0].value
            edits = [*imports, *helper, ctx.replace(value, f"_worker_seed({ctx.source(value)})")]
            ctx.report(call, message + "; offset the seed by the task index", edits=edits)

    def _per_worker_randomness(self, ctx: RuleContext, kind: str) -> str | None:
        """What random draws the seed makes identical across workers that should differ, if any.

        ``kind``: "tf" (TensorFlow's global seed), "python" (Python's `random`, which seeds
        Keras layers and `keras.random`) or "all" (`keras.utils.set_random_seed`: both).
        """
        tf_seeded, python_seeded = kind in ("tf", "all"), kind in ("python", "all")
        map_functions = set()
        whole = _maps_before_data_sharding(ctx)
        for call in ctx.index.calls:
            if (
                isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "map"
                and call.args
                and call not in whole
            ):
                map_functions.update(ctx.tf.replica.resolve_callable(call.args[0].value))
        per_worker = ctx.tf.replica.replica_functions | map_functions
        for call in ctx.index.calls:
            callee = ctx.tf.names.callee(call) or ""
            seeded = any(a.keyword is not None and a.keyword.value == "seed" for a in call.args)
            if callee.startswith(_KERAS_RANDOM_LAYERS) and python_seeded and not seeded:
                # Keras (3 and tf-keras) seeds a layer from Python's `random`; a layer created in the
                # strategy's scope keeps its seed state in a variable broadcast from worker 0.
                if ctx.tf.strategies.membership(call) is not Membership.INSIDE:
                    return "their random augmentations"
            if callee.startswith(_KERAS_RANDOM) and not seeded and python_seeded:
                if ctx.index.enclosing_function(call) in per_worker:
                    return "their random draws in replica and dataset functions"
            if callee.startswith(_TF_RANDOM) and not callee.startswith(_NOT_RANDOM) and tf_seeded:
                if ctx.index.enclosing_function(call) in per_worker:
                    return "their random draws in replica and dataset functions"
        return None

    def _shuffle_before_shard(self, ctx: RuleContext) -> cst.Call | None:
        """A dataset shuffle not preceded by `.shard`: its order must match on every worker."""
        for call in ctx.index.calls:
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value == "shuffle" and ctx.tf.names.callee(call) is None:
                upstream = pipeline(ctx.tf, func.value)
                if upstream is not None and not upstream.sharded:
                    return call
        return None


def _constant(ctx: RuleContext, expr: cst.BaseExpression, depth: int = 0) -> bool:
    """A seed that is the same on every worker: a literal, a name bound once to one, a parameter
    whose default is one (and that no caller sets otherwise), or a field of a config class whose
    default is one (``cfg.seed`` with ``seed: int = 17``, no construction setting it)."""
    if depth > 3:
        return False
    if isinstance(expr, cst.Integer):
        return True
    if isinstance(expr, cst.Name):
        func = ctx.index.enclosing_function(expr)
        if isinstance(func, cst.FunctionDef):
            param = parameter(func, expr.value)
            if param is not None:
                return _constant_parameter(ctx, func, param, depth)
        values = assigned_values(ctx.index, expr.value)
        return len(values) == 1 and isinstance(values[0], cst.Integer)
    if isinstance(expr, cst.Attribute):
        owner = _owner_class(ctx, expr.value)
        if owner is False:
            return False  # `args.seed` of a parser, or another object this module does not define
        return _constant_field(ctx, expr.attr.value, depth, owner)
    return False


def _owner_class(ctx: RuleContext, node: cst.BaseExpression) -> cst.ClassDef | Literal[False] | None:
    """The module class ``node`` is an instance of: a parameter annotated with it, or a name bound
    to its construction. None when unknown; False when it is bound to something else."""
    if not isinstance(node, cst.Name):
        return None
    classes = {c.name.value: c for c in ctx.index.classes}
    func = ctx.index.enclosing_function(node)
    if isinstance(func, cst.FunctionDef):
        found = parameter(func, node.value)
        if found is not None:
            annotation = found.annotation
            if annotation is not None and isinstance(annotation.annotation, cst.Name):
                return classes.get(annotation.annotation.value, False)
            return None
    values = assigned_values(ctx.index, node.value)
    if len(values) != 1:
        return None
    value = values[0]
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in classes:
        return classes[value.func.value]
    return False


def _constant_parameter(ctx: RuleContext, func: cst.FunctionDef, param: cst.Param, depth: int) -> bool:
    """``def main(seed=17)``: constant when every call of ``main`` leaves the default or passes a
    constant (a function no one calls here runs with its default)."""
    if param.default is not None and not _constant(ctx, param.default, depth + 1):
        return False
    position = call_position(func, param.name.value, skip_first=ctx.index.method_class(func) is not None)
    sites = ctx.tf.strategies.call_sites(func)
    if param.default is None and not sites:
        return False
    for site in sites:
        if any(a.star for a in site.args):
            return False
        passed = argument_value(site, position, param.name.value)
        if passed is None and param.default is None:
            return False
        if passed is not None and not _constant(ctx, passed, depth + 1):
            return False
    return True


def _constant_field(ctx: RuleContext, field: str, depth: int, owner: cst.ClassDef | None = None) -> bool:
    """``<config>.seed`` where the object's class (``owner``, else the module's one class with a
    ``seed`` field: a dataclass field or class attribute) gives it a constant default that no
    construction, and no assignment, replaces."""
    owners = []
    for cls in [owner] if owner is not None else ctx.index.classes:
        for statement in getattr(cls.body, "body", ()):
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if (
                    isinstance(small, cst.AnnAssign)
                    and isinstance(small.target, cst.Name)
                    and small.target.value == field
                ):
                    owners.append((cls, small.value))
                elif isinstance(small, cst.Assign) and any(
                    isinstance(t.target, cst.Name) and t.target.value == field for t in small.targets
                ):
                    owners.append((cls, small.value))
    if len(owners) != 1:
        return False
    cls, default = owners[0]
    if default is None or not _constant(ctx, default, depth + 1):
        return False
    fields = [
        small.target.value
        for statement in getattr(cls.body, "body", ())
        if isinstance(statement, cst.SimpleStatementLine)
        for small in statement.body
        if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)
    ]
    for call in ctx.index.calls:
        if not (isinstance(call.func, cst.Name) and call.func.value == cls.name.value):
            continue
        for position, arg in enumerate(call.args):
            named = (
                arg.keyword.value if arg.keyword is not None else (fields[position] if position < len(fields) else None)
            )
            if arg.star or (named == field and not _constant(ctx, arg.value, depth + 1)):
                return False
    for assign in ctx.index.assigns:
        targets = assignment_targets(assign)
        if any(isinstance(t, cst.Attribute) and t.attr.value == field for t in targets):
            return False
    return True


def _maps_before_data_sharding(ctx: RuleContext) -> set[cst.Call]:
    """``map`` calls that every worker runs over the whole dataset before auto-sharding by data
    keeps its slice of each batch (`experimental_distribute_dataset` of in-memory data, or with
    `AutoShardPolicy.DATA`, no `.shard` before the map). Each example is then augmented once, by
    the same draws on every worker, exactly as on one machine: one seed is right there."""
    found: set[cst.Call] = set()
    for call, dataset in distributed_inputs(ctx.tf):
        distributed = pipeline(ctx.tf, dataset, call)
        if distributed is None:
            continue
        policy = auto_shard_policy(ctx.tf, distributed)
        if policy == "OFF" or policy == "FILE":
            continue
        if policy != "DATA" and (
            distributed.source is None or (ctx.tf.names.callee(distributed.source) or "").startswith(FILE_SOURCES)
        ):
            continue  # AUTO over files shards by file: each worker maps its own files
        found.update(distributed.before_shard("map"))
    return found
