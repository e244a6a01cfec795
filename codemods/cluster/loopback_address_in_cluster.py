"""TFD602: a cluster that mixes loopback addresses with other hosts, or shares one port."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.facts import NOT_A_TEST
from fixer.rule import Rule
from fixer.tf.tf_config_sources import cluster_problems
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext


class LoopbackAddressInCluster(Rule):
    """
    ## What it does
    In literal TF_CONFIGs and `tf.train.ClusterSpec({...})` literals, finds `localhost`,
    `127.x.x.x`, `::1` or `0.0.0.0` entries next to other hosts, and several tasks on one
    loopback address and port.

    ## Why is this bad in distributed training?
    A worker on another machine cannot reach `localhost`: it dials itself. The cluster never
    forms and every worker hangs "waiting for tasks to connect" (seed article 004: "using
    localhost for worker addresses ... worked locally in a toy setup but would result in no
    inter-worker communication once deployed"). Two tasks on one loopback port cannot both
    start their gRPC server (`Could not start gRPC server`).

    ## When it is reported (the policy)
    Addresses that are not addresses are no cluster anybody runs: template slots (`"host1:port"`,
    `"<worker-ip>:port"`, `"IP1:PORT1"`, a host of a documentation domain such as
    `"worker0.example.com:2222"`) are neither loopback nor other hosts and are never
    reported here (TFD603 reports such a spec once, and only in a script a launcher starts). Code
    that nothing calls is reported as written.

    ## Fix safety
    Display-only: use each machine's reachable address (or distinct ports on one machine).

    ## Known limits
    - Only literal TF_CONFIGs and `tf.train.ClusterSpec({...})` literals are read: a cluster built
      at run time is not checked.

    ## Runtime evidence
    `distfix doctor` resolves every address and tries every port of the live TF_CONFIG.

    Measured on TensorFlow 2.21 on 127.0.0.1 (`benchmarks/probe_cluster_specs.py`, output in
    `docs/probes.md`): two tasks on one loopback port give `Could not start gRPC server` for one
    and a hang for the other; a worker whose peer address reaches no process (what a `localhost`
    entry is on another host) hangs while building the strategy, alive after SIGTERM.

    ## References
    - https://www.tensorflow.org/guide/distributed_training#TF_CONFIG
    """

    code = "TFD602"
    name = "loopback-address-in-cluster"
    message = "loopback address in a multi-host cluster"
    applicability = Applicability.DISPLAY_ONLY
    triggers = ("TF_CONFIG", "ClusterSpec")
    facts = (NOT_A_TEST,)

    def check(self, ctx: RuleContext) -> None:
        for node, problem in cluster_problems(ctx.tf, self.code):
            ctx.report(node, problem.message)
