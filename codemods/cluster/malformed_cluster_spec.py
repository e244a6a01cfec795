"""TFD603: a literal TF_CONFIG or cluster spec that TensorFlow rejects or hangs on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.facts import NOT_A_TEST
from fixer.rule import Rule
from fixer.tf.tf_config_sources import cluster_problems
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext


class MalformedClusterSpec(Rule):
    """
    ## What it does
    Checks every literal TF_CONFIG the code sets and every `tf.train.ClusterSpec({...})` literal,
    and names each defect exactly: invalid JSON (with its line and column), no `cluster` or no
    `task`, a task index out of range or not a number, an unknown task type, a missing or
    non-numeric port, duplicate addresses.

    ## Why is this bad in distributed training?
    Measured on TensorFlow 2.21: invalid JSON raises `JSONDecodeError` only when the strategy is
    built; a missing port raises `Could not parse port for local server`; an index out of range
    raises `The task_id 5 exceeds the maximum id of worker`; an index written as the string `"0"`
    is accepted (two workers given `"0"` and `"1"` form their cluster): it is reported because
    TF_CONFIG documents a number. `distfix doctor` runs the same
    checks on the live `TF_CONFIG` before launch.

    ## When it is reported (the policy)
    Addresses that are not addresses are not a cluster anybody runs: template slots
    (`"host1:port"`, `"IP1:PORT1"`, `"<worker-ip>:2222"`, `"worker0.example.com:port"`) and hosts
    in the domains RFC 2606 reserves for documentation (`"worker0.example.com:2222"`, also
    `example.net`, `example.org`) are the placeholders of a doc page, a scaffold's config module or an issue's redacted
    reproduction. They are reported only in a script that a launcher of the project starts (a
    Nomad or shell job naming it, `fixer/tf/script_launchers.py`): that job cannot start as
    written. Then a spec is one finding, whatever the number of slots, never one per entry.
    Elsewhere they are not reported, and the spec is reported only for its other defects.
    Code that nothing calls is reported as written (a method no caller reaches): which code
    runs is a whole-program question a linter cannot answer for importable code.

    ## Fix safety
    Display-only: the right value depends on the cluster. The message says what is wrong and
    how to write it.

    ## Known limits
    - A digit string such as `"1"` as task index is that number to TensorFlow 2.21 (measured) and
      is not reported as "not a number"; it is range-checked as the number.
    - Duplicate addresses are reported whatever the host: two tasks on one loopback port are a
      duplicate too, reported by TFD602 as well.
    - Only literals are read: a cluster built at run time is not checked.
    - The empty object `{}` is not a defect: TensorFlow 2.21 reads it as no cluster, as if TF_CONFIG
      were unset, and runs one local worker (`benchmarks/probe_empty_tf_config.py`), which is what a
      launcher that clears its own TF_CONFIG wants. An empty string is reported (`JSONDecodeError`).
    - Nor is `tf.train.ClusterSpec({})`: it builds and describes no job (measured: `as_dict()` is
      `{}`, also through `SimpleClusterResolver`), the spec an evaluator outside the training
      cluster is given on purpose. A job with an empty address list is still reported.

    ## Runtime evidence
    `distfix doctor --tf-config ...` reports the same defects; `distfix validate --workers 2`
    shows the crash or the hang (killed at the timeout).

    Measured on TensorFlow 2.21 on 127.0.0.1 (`benchmarks/probe_cluster_specs.py`, output in
    `docs/probes.md`): the `JSONDecodeError`, `Could not parse port` and `task_id 5 exceeds`
    errors above when the strategy is built, and two workers given the string indices `"0"` and
    `"1"` forming their cluster.

    ## References
    - https://www.tensorflow.org/guide/distributed_training#TF_CONFIG
    - https://www.tensorflow.org/api_docs/python/tf/train/ClusterSpec
    """

    code = "TFD603"
    name = "malformed-cluster-spec"
    message = "malformed cluster spec"
    applicability = Applicability.DISPLAY_ONLY
    triggers = ("TF_CONFIG", "ClusterSpec")
    facts = (NOT_A_TEST,)

    def check(self, ctx: RuleContext) -> None:
        launched: bool | None = None  # asked once, and only for a spec holding template slots
        for node, problem in cluster_problems(ctx.tf, self.code):
            if problem.kind == "placeholder":
                launched = _started_by_a_launcher(ctx) if launched is None else launched
                if not launched:
                    continue
            ctx.report(node, problem.message)


def _started_by_a_launcher(ctx: RuleContext) -> bool:
    """A file of the project starts this script (fixer/tf/script_launchers.py): its template
    slots are what a job runs. A notebook is never started that way."""
    launchers = ctx.tf.launchers
    return launchers is not None and not ctx.path.endswith(".ipynb") and bool(launchers.launchers())
