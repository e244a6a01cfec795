"""Which MultiWorkerMirroredStrategy is made before the script sets TF_CONFIG (one worker).

The strategy reads TF_CONFIG once, when it is created (benchmarks/probe_tf_config_after_strategy.py):
one made before the script's own assignment, with no assignment before it, stays a single worker.
TFD605 reports such a strategy; TFD504 leaves its `fit` alone, since Keras 3 `fit` trains under a
cluster-less MultiWorkerMirroredStrategy (benchmarks/probe_ledger9b_premises.py). One function
answers both, so the two rules cannot disagree about the same strategy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.strategies import MULTI_WORKER_CLASSES
from fixer.tf.tf_config_sources import TfConfigSetter, tf_config_setters

if TYPE_CHECKING:
    from fixer.tf.index import ModuleIndex
    from fixer.tf.model import TFModel

_SCOPES = (cst.FunctionDef, cst.ClassDef)


def late_tf_config(tf: TFModel) -> dict[cst.Call, TfConfigSetter]:
    """Each multi-worker strategy construction of the module that no TF_CONFIG assignment
    precedes, with the first later assignment that no later strategy reads (that one would be its
    own): the strategy stays a single worker. Constructions not in the mapping may have a cluster."""
    setters = tf_config_setters(tf)
    if not setters:
        return {}
    index = tf.index
    multi_worker = [call for call, kind in tf.strategies.constructions if kind in MULTI_WORKER_CLASSES]
    statements = [index.statement_of(call) for call in multi_worker]
    late: dict[cst.Call, TfConfigSetter] = {}
    for call, statement in zip(multi_worker, statements, strict=True):
        if any(runs_later(index, s.statement, statement) for s in setters):
            continue  # TF_CONFIG was already set when this strategy read it
        later = (s for s in setters if runs_later(index, statement, s.statement))
        own = next((s for s in later if not any(runs_later(index, s.statement, o) for o in statements)), None)
        if own is not None:
            late[call] = own
    return late


def runs_later(index: ModuleIndex, first: cst.BaseStatement, other: cst.BaseStatement) -> bool:
    """True when ``other`` runs after ``first`` on the same path: later in ``first``'s block, or inside
    a later statement of a block that encloses it, without leaving ``first``'s function."""
    other_chain = {id(other), *(id(node) for node in index.ancestors(other))}
    for node in (first, *index.ancestors(first)):
        if node is not first and isinstance(node, (*_SCOPES, cst.Lambda)):
            return False
        body = getattr(index.parent.get(node), "body", None)
        # Only statement sequences (a module's or an indented block's): an `if`'s body is a block.
        if isinstance(body, (list, tuple)) and node in body:
            if any(id(s) in other_chain for s in body[body.index(node) + 1 :]):
                return True
    return False
