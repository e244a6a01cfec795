"""TFD604: a cluster resolver or ClusterSpec called with arguments it does not take."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.facts import RESOLVER_CALLED
from fixer.rule import Rule
from fixer.tf.compat_v1 import may_be_compat_v1
from fixer.tf.parameters import named_parameters
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext

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
    # One class under both names on 2.21; the tf.compat.v1 class (cluster_resolver=None) is not it.
    "tensorflow.distribute.experimental.ParameterServerStrategy": (
        ("cluster_resolver", "variable_partitioner"),
        ("cluster_resolver",),
    ),
    "tensorflow.distribute.ParameterServerStrategy": (
        ("cluster_resolver", "variable_partitioner"),
        ("cluster_resolver",),
    ),
}
# The ParameterServerStrategy that needs a resolver is the TF 2 one, under that name from 2.4.
_PARAMETER_SERVER_V2_FROM = (2, 4)
# Keywords people pass for the cluster's jobs (SimpleClusterResolver and ClusterSpec take a spec).
_JOB_KEYWORDS = {"worker": "worker", "workers": "worker", "chief": "chief", "ps": "ps", "evaluator": "evaluator"}
# Keywords people write for `task_id`.
_INDEX_KEYWORDS = frozenset({"task_index", "worker_index", "index"})
# Spellings people write for the task index of this process.
_TASK_INDEX_NAMES = ("task_id", "task_index", "worker_index", "worker_id", "rank")


class ClusterResolverMisuse(Rule):
    """
    ## What it does
    Checks calls of `SimpleClusterResolver`, `TFConfigClusterResolver`, `tf.train.ClusterSpec` and
    `ParameterServerStrategy` against their real signatures in TensorFlow 2.21: unknown keywords,
    too many positional arguments, a missing cluster spec or resolver.

    ## Why is this bad in distributed training?
    Seed article 004 builds `SimpleClusterResolver(workers=worker_addresses)`: that raises
    `TypeError: SimpleClusterResolver.__init__() got an unexpected keyword argument 'workers'`
    (measured). The real signature is `SimpleClusterResolver(cluster_spec, master='',
    task_type=None, task_id=None, environment='', num_accelerators=None, rpc_layer=None)`, and a
    resolver without `task_type`/`task_id` does not know which task this process is.

    ## When it is reported (the policy)
    It judges calls against their signatures, not the addresses they are given: a cluster of
    template slots (`"host1:port"`) handed to a resolver adds no finding here (TFD603 reports
    such a spec once, and only in a script a launcher starts). Code that nothing calls (a method
    of a template class no caller reaches) is reported as written: which code runs is a
    whole-program question a linter cannot answer for importable code, and whoever migrates a
    repository wants every call that raises.

    ## Fix safety
    Unsafe. Job keywords become the cluster spec: `SimpleClusterResolver(workers=hosts, ...)`
    becomes `SimpleClusterResolver(tf.train.ClusterSpec({"worker": hosts}), task_type="worker",
    task_id=...)` (the other arguments kept; the task index taken from the call, or from a
    variable in reach such as `task_id`, `task_index`, `worker_index`, `rank`), and
    `tf.train.ClusterSpec(workers=hosts)` becomes `tf.train.ClusterSpec({"worker": hosts})`;
    `task_index=` becomes `task_id=`. Otherwise the finding shows the call to write.

    ## Known limits
    - `ParameterServerStrategy()` without a resolver raises `TypeError:
      ParameterServerStrategyV2.__init__() missing 1 required positional argument:
      'cluster_resolver'` (measured, benchmarks/probe_target_apis.py); it is judged only for a
      target of TensorFlow 2.4 or later, in files that do not name `compat.v1.distribute`, and
      not through an alias that may hold `tensorflow.compat.v1` (`import tensorflow.compat.v1 as
      tf` tried first, `tf = tf.compat.v1` after a version test): the TensorFlow 1 class takes no
      resolver (benchmarks/probe_ledger20a_premises.py).

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
    triggers = ("ClusterResolver", "ClusterSpec", "ParameterServerStrategy")
    facts = (RESOLVER_CALLED,)

    def check(self, ctx: RuleContext) -> None:
        for call in ctx.index.calls:
            callee = ctx.tf.names.callee(call)
            if callee not in _SIGNATURES:
                continue
            if any(a.star for a in call.args):
                continue
            if callee.endswith("ParameterServerStrategy") and not self._parameter_server_v2(ctx, call):
                continue
            params, required = _SIGNATURES[callee]
            short = callee.rsplit(".", 1)[1]
            positional = [a for a in call.args if a.keyword is None]
            keywords = [a.keyword.value for a in call.args if a.keyword is not None]
            unknown = [k for k in keywords if k not in params]
            given = {*params[: len(positional)], *keywords}
            if len(positional) > len(params):
                ctx.report(
                    call,
                    f"`{short}` takes at most {len(params)} positional arguments ({', '.join(params)}); "
                    f"got {len(positional)}",
                )
            elif unknown:
                self._unknown(ctx, call, short, unknown, params)
            elif any(r not in given for r in required):
                ctx.report(call, f"`{short}` needs `{required[0]}`: it raises `TypeError` without it")

    def _parameter_server_v2(self, ctx: RuleContext, call: cst.Call) -> bool:
        """The TF 2 ParameterServerStrategy: the target has it (2.4 on), the file names no
        `compat.v1.distribute` (names normalise that class to the same qualified name), and the call
        is not spelled through a `tf` that may hold `tensorflow.compat.v1` (`tf = tf.compat.v1`):
        the TF 1 class builds with no cluster resolver."""
        return (
            ctx.tf.target.version >= _PARAMETER_SERVER_V2_FROM
            and "compat.v1.distribute" not in ctx.text
            and not may_be_compat_v1(ctx.tf, call.func)
        )

    def _unknown(
        self, ctx: RuleContext, call: cst.Call, short: str, unknown: list[str], params: tuple[str, ...]
    ) -> None:
        message = f"`{short}` takes no `{unknown[0]}`"
        tf, imports = ctx.import_module("tensorflow", "tf")
        fixed, hint = self._fixed(ctx, call, short, params, tf)
        if fixed is None:
            ctx.report(call, message + (f"; write `{hint}`" if hint else f"; it takes {', '.join(params)}"))
            return
        needs_tf = f"{tf}.train.ClusterSpec(" in fixed and f"{tf}.train.ClusterSpec(" not in ctx.source(call)
        ctx.report(call, message, edits=[*(imports if needs_tf else []), ctx.replace(call, fixed)])

    def _fixed(
        self, ctx: RuleContext, call: cst.Call, short: str, params: tuple[str, ...], tf: str
    ) -> tuple[str | None, str | None]:
        """The call with the real signature (and, when it cannot be written, a hint), from
        job keywords (`workers=`, `worker=`, `chief=`, `ps=`: the cluster spec) and task index
        spellings (`task_index=`: `task_id`)."""
        func = ctx.source(call.func)
        jobs = [(a.keyword.value, a) for a in call.args if a.keyword is not None and a.keyword.value in _JOB_KEYWORDS]
        positional = [a for a in call.args if a.keyword is None]
        cluster = "{" + ", ".join(f'"{_JOB_KEYWORDS[k]}": {ctx.source(a.value)}' for k, a in jobs) + "}"
        if len({_JOB_KEYWORDS[k] for k, _ in jobs}) != len(jobs):
            return None, None  # `worker=` and `workers=` both
        if short == "ClusterSpec":
            if positional or not jobs or len(jobs) != len(call.args):
                return None, None
            return f"{func}({cluster})", None
        arguments: list[str] = []
        if jobs:
            if short != "SimpleClusterResolver" or positional:
                return None, None
            arguments.append(f"{tf}.train.ClusterSpec({cluster})")
        given: set[str] = set()
        for arg in call.args:
            if arg.keyword is None:
                arguments.append(ctx.source(arg.value))
                continue
            keyword = arg.keyword.value
            if keyword in _JOB_KEYWORDS:
                continue
            if keyword in _INDEX_KEYWORDS and "task_id" in params:
                keyword = "task_id"
            if keyword not in params or keyword in given:
                return None, None
            given.add(keyword)
            arguments.append(f"{keyword}={ctx.source(arg.value)}")
        if jobs:
            given |= set(params[: len(positional) + 1])
            if "task_type" not in given:
                if {_JOB_KEYWORDS[k] for k, _ in jobs} != {"worker"}:
                    return None, None  # which job this process belongs to is unknown
                arguments.append('task_type="worker"')
            if "task_id" not in given:
                index = self._task_index(ctx, call)
                if index is None:
                    hint = f"{func}({', '.join(arguments)}, task_id=<task index>)"
                    return None, hint
                arguments.append(f"task_id={index}")
        return f"{func}({', '.join(arguments)})", None

    def _task_index(self, ctx: RuleContext, call: cst.Call) -> str | None:
        func = ctx.index.enclosing_function(call)
        if isinstance(func, cst.FunctionDef):
            for param in named_parameters(func):
                if param.name.value in _TASK_INDEX_NAMES:
                    return param.name.value
        for assign in ctx.index.assigns:
            if isinstance(assign, cst.Assign) and ctx.index.enclosing_function(assign) in (None, func):
                for target in assign.targets:
                    if isinstance(target.target, cst.Name) and target.target.value in _TASK_INDEX_NAMES:
                        if ctx.span(assign)[1] <= ctx.span(call)[0]:
                            return target.target.value
        return None
