"""TFD604: a cluster resolver or ClusterSpec called with arguments it does not take."""

from __future__ import annotations

import libcst as cst

from fixer.engine import RuleContext
from fixer.rule import Invalid, Rule, Valid
from fixer.types import Applicability

# The real signatures in TensorFlow 2.21 (inspect.signature), in order; `required` have no default.
_SIGNATURES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "tensorflow.distribute.cluster_resolver.SimpleClusterResolver": (
        ("cluster_spec", "master", "task_type", "task_id", "environment", "num_accelerators", "rpc_layer"),
        ("cluster_spec",),
    ),
    "tensorflow.distribute.cluster_resolver.TFConfigClusterResolver": (
        ("task_type", "task_id", "rpc_layer", "environment"),
        (),
    ),
    "tensorflow.train.ClusterSpec": (("cluster",), ("cluster",)),
}
# Spellings people write for the task index of this process.
_TASK_INDEX_NAMES = ("task_id", "task_index", "worker_index", "worker_id", "rank")


class ClusterResolverMisuse(Rule):
    """
    ## What it does
    Checks calls of `SimpleClusterResolver`, `TFConfigClusterResolver` and `tf.train.ClusterSpec`
    against their real signatures in TensorFlow 2.21: unknown keywords, too many positional
    arguments, a missing cluster spec.

    ## Why is this bad in distributed training?
    Seed article 004 builds `SimpleClusterResolver(workers=worker_addresses)`: that raises
    `TypeError: SimpleClusterResolver.__init__() got an unexpected keyword argument 'workers'`
    (measured). The real signature is `SimpleClusterResolver(cluster_spec, master='',
    task_type=None, task_id=None, environment='', num_accelerators=None, rpc_layer=None)`, and a
    resolver without `task_type`/`task_id` does not know which task this process is.

    ## Fix safety
    Unsafe, and only for `workers=` / `worker=` when the code has this process's task index in a
    variable (`task_id`, `task_index`, `worker_index`, `rank`): the call becomes
    `SimpleClusterResolver(tf.train.ClusterSpec({"worker": hosts}), task_type="worker",
    task_id=task_index)`. Otherwise the finding shows that call with the index to fill in.

    ## Runtime evidence
    The original raises `TypeError` before training starts (check `runs`).

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/distribute/cluster_resolver/SimpleClusterResolver
    - https://www.tensorflow.org/api_docs/python/tf/distribute/cluster_resolver/TFConfigClusterResolver
    """

    code = "TFD604"
    name = "cluster-resolver-misuse"
    message = "call does not match the resolver's signature"
    fix_title = "Use the real signature"
    applicability = Applicability.UNSAFE
    triggers = ("ClusterResolver", "ClusterSpec")

    examples = (
        Invalid(
            """
            import tensorflow as tf

            worker_addresses = ["10.0.0.1:2222", "10.0.0.2:2222"]
            cluster_resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
                workers=worker_addresses
            )
            """,
            after=None,
            note="seed 004 workers keyword, no task index",
        ),
        Invalid(
            """
            import tensorflow as tf

            def make_resolver(hosts, task_index):
                return tf.distribute.cluster_resolver.SimpleClusterResolver(workers=hosts)
            """,
            after="""
            import tensorflow as tf

            def make_resolver(hosts, task_index):
                return tf.distribute.cluster_resolver.SimpleClusterResolver(tf.train.ClusterSpec({"worker": hosts}), task_type="worker", task_id=task_index)
            """,
            note="task index parameter in reach",
        ),
        Invalid(
            """
            from tensorflow.distribute.cluster_resolver import SimpleClusterResolver
            import tensorflow as tf

            rank = int(os.environ["RANK"])
            resolver = SimpleClusterResolver(worker=["a:1", "b:1"])
            """,
            after="""
            from tensorflow.distribute.cluster_resolver import SimpleClusterResolver
            import tensorflow as tf

            rank = int(os.environ["RANK"])
            resolver = SimpleClusterResolver(tf.train.ClusterSpec({"worker": ["a:1", "b:1"]}), task_type="worker", task_id=rank)
            """,
            note="imported class and rank variable",
        ),
        Invalid(
            """
            import tensorflow as tf
            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver(cluster_spec=spec)
            """,
            note="TFConfig resolver takes no cluster spec",
        ),
        Invalid(
            """
            import tensorflow as tf
            resolver = tf.distribute.cluster_resolver.SimpleClusterResolver()
            """,
            note="missing cluster spec",
        ),
        Invalid(
            """
            import tensorflow as tf
            spec = tf.train.ClusterSpec({"worker": hosts}, task_index=0)
            """,
            note="ClusterSpec takes no task",
        ),
        Invalid(
            """
            import tensorflow as tf
            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver("worker", 0, "grpc", None, "extra")
            """,
            note="too many positional arguments",
        ),
        Invalid(
            """
            import tensorflow.compat.v2 as tf
            resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(spec, task="worker")
            """,
            note="compat alias and a misspelled keyword",
        ),
        Valid(
            """
            import tensorflow as tf
            resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
                tf.train.ClusterSpec({"worker": hosts}), task_type="worker", task_id=1, rpc_layer="grpc"
            )
            """,
            note="the working form",
        ),
        Valid(
            """
            import tensorflow as tf
            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
            """,
            note="TF_CONFIG resolver",
        ),
        Valid(
            """
            import tensorflow as tf
            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver(task_type="worker", task_id=0)
            """,
            note="explicit task",
        ),
        Valid(
            """
            import tensorflow as tf
            spec = tf.train.ClusterSpec({"worker": ["a:1", "b:1"]})
            """,
            note="ClusterSpec dict",
        ),
        Valid(
            """
            import tensorflow as tf
            resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(spec, "", "worker", 0)
            """,
            note="positional arguments in range",
        ),
        Valid(
            """
            import tensorflow as tf
            resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(**settings)
            """,
            note="keyword unpacking cannot be checked",
        ),
        Valid(
            """
            class SimpleClusterResolver:
                def __init__(self, workers):
                    self.workers = workers

            resolver = SimpleClusterResolver(workers=["a:1"])
            """,
            note="a class of the project with the same name",
        ),
        Valid(
            """
            import tensorflow as tf
            resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(workers=hosts)  # distfix: ignore[TFD604]
            """,
            note="suppressed",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        for call in ctx.index.calls:
            callee = ctx.tf.names.callee(call)
            if callee not in _SIGNATURES:
                continue
            if any(a.star for a in call.args):
                continue
            params, required = _SIGNATURES[callee]
            short = callee.rsplit(".", 1)[1]
            positional = [a for a in call.args if a.keyword is None]
            keywords = [a.keyword.value for a in call.args if a.keyword is not None]
            unknown = [k for k in keywords if k not in params]
            given = {*params[: len(positional)], *keywords}
            if len(positional) > len(params):
                ctx.report(call, f"`{short}` takes at most {len(params)} positional arguments ({', '.join(params)}); got {len(positional)}")
            elif unknown:
                self._unknown(ctx, call, short, unknown, params)
            elif any(r not in given for r in required):
                ctx.report(call, f"`{short}` needs `{required[0]}`: it raises `TypeError` without it")

    def _unknown(self, ctx: RuleContext, call: cst.Call, short: str, unknown: list[str], params: tuple[str, ...]) -> None:
        message = (
            f"`{short}` has no parameter `{unknown[0]}` (TypeError: unexpected keyword argument); "
            f"its parameters are {', '.join(params)}"
        )
        workers = next((a for a in call.args if a.keyword is not None and a.keyword.value in ("workers", "worker")), None)
        if short != "SimpleClusterResolver" or workers is None or len(call.args) != 1:
            ctx.report(call, message)
            return
        tf, imports = ctx.import_module("tensorflow", "tf")
        spec = f'{tf}.train.ClusterSpec({{"worker": {ctx.source(workers.value)}}})'
        index = self._task_index(ctx, call)
        if index is None:
            ctx.report(
                call,
                message + f'; write `{short}({spec}, task_type="worker", task_id=<this worker\'s index>)`',
            )
            return
        replacement = f'{ctx.source(call.func)}({spec}, task_type="worker", task_id={index})'
        ctx.report(call, message, edits=[*imports, ctx.replace(call, replacement)])

    def _task_index(self, ctx: RuleContext, call: cst.Call) -> str | None:
        func = ctx.index.enclosing_function(call)
        if isinstance(func, cst.FunctionDef):
            for param in func.params.params:
                if param.name.value in _TASK_INDEX_NAMES:
                    return param.name.value
        for assign in ctx.index.assigns:
            if isinstance(assign, cst.Assign) and ctx.index.enclosing_function(assign) in (None, func):
                for target in assign.targets:
                    if isinstance(target.target, cst.Name) and target.target.value in _TASK_INDEX_NAMES:
                        if ctx.span(assign)[1] <= ctx.span(call)[0]:
                            return target.target.value
        return None
