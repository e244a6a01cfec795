"""TFD605: TF_CONFIG assigned after the MultiWorkerMirroredStrategy that should read it was created
(measured: benchmarks/probe_tf_config_after_strategy.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.facts import MULTI_WORKER
from fixer.rule import Rule
from fixer.tf.late_tf_config import late_tf_config
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext

# How a notebook starts worker processes (its magics are kept as comments in the analysed text).
# `%%bash` is masked as `#%bash`, `!python` as `#python`.
_LAUNCHES = ("%bash", "%sh", "%script", "#python", "# python", "%run", "subprocess")


class TfConfigSetAfterStrategy(Rule):
    """
    ## What it does
    Finds a `MultiWorkerMirroredStrategy(...)` construction followed, in the same function (or
    both at module level), by an assignment of TF_CONFIG: `os.environ["TF_CONFIG"] = ...`,
    `os.environ.update(...)`, `os.environ.setdefault(...)` or `os.putenv(...)`. The finding is at
    the construction, with the assignment's line.

    ## Why is this bad in distributed training?
    The strategy reads TF_CONFIG once, when it is created. Assigned afterwards, the cluster is
    never seen (measured on TensorFlow 2.21, two worker processes): each strategy has 1 worker,
    the all-reduce of 1.0 from every replica returns 1.0 at once instead of 2.0, and every
    process trains its own model, silently. Assigned first, both workers join and the sum is 2.0.

    ## Fix safety
    Display-only: move the strategy's construction after the TF_CONFIG assignment (code in
    between may already use the strategy, so the move is left to you).

    ## Known limits
    - The assignment is followed when it sits later in the strategy's block or in a later statement
      that encloses it (an `if`, `with`, loop); an assignment in another branch of the same `if`, or
      in another function, is not followed.
    - Order decides which strategy an assignment is for: a strategy created after TF_CONFIG was
      already set is not reported, and an assignment followed by another strategy's creation is
      that strategy's (several programs pasted one after another, as in collections of issue
      reproductions, each set TF_CONFIG before their own strategy).
    - A notebook that starts processes (`%%bash`, `!python`, `%run`, `subprocess`) is not reported:
      it sets TF_CONFIG for the workers it launches (as TensorFlow's multi-worker tutorials do), and
      its own kernel's strategy is meant to be a single worker.

    ## Runtime evidence
    `python benchmarks/probe_tf_config_after_strategy.py` starts two workers in each order and
    prints each strategy's worker count and all-reduce result.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/distribute/MultiWorkerMirroredStrategy
    - https://www.tensorflow.org/guide/distributed_training#TF_CONFIG
    """

    code = "TFD605"
    name = "tf-config-set-after-strategy"
    message = "TF_CONFIG is set after MultiWorkerMirroredStrategy was created"
    applicability = Applicability.DISPLAY_ONLY
    triggers = ("TF_CONFIG",)
    facts = (MULTI_WORKER,)

    def check(self, ctx: RuleContext) -> None:
        if ctx.path.endswith(".ipynb") and any(marker in ctx.text for marker in _LAUNCHES):
            return  # a notebook that starts workers sets TF_CONFIG for them, not for its own kernel
        for call, later in late_tf_config(ctx.tf).items():
            # A notebook's line numbers run across its cells: there, only the order is said.
            where = "further down" if ctx.path.endswith(".ipynb") else f"at line {ctx.range(later.node).start.line}"
            ctx.report(
                call,
                f"TF_CONFIG is set {where}, after this MultiWorkerMirroredStrategy was created: it stays "
                "a single worker; create it after TF_CONFIG is set",
            )
