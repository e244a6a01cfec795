"""Replica functions that only the default strategy runs (one replica: nothing is summed).

`tf.distribute.get_strategy()` returns the strategy whose scope is entered where it is called,
and the default strategy (one replica) outside every scope. The strategy model already knows a
module-level call outside every `with`; this module adds the test-file shape: a test class keeps
`self.strategy = tf.distribute.get_strategy()` (in `__init__` or `setUp`) and no code of the file
builds a strategy or enters a scope, so every test runs the step on one replica.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.test_files import is_test_file
from fixer.tf.strategies import expression_key

if TYPE_CHECKING:
    from fixer.tf.index import FunctionLike
    from fixer.tf.model import TFModel

_GET_STRATEGY = "tensorflow.distribute.get_strategy"


def runs_only_on_default_strategy(tf: TFModel, path: str, func: FunctionLike) -> bool:
    """True when every `strategy.run` of ``func`` in the module runs it on the default strategy."""
    runs = tf.runs_by_function.get(func, ())
    return bool(runs) and all(_default_strategy(tf, path, run.strategy) for run in runs)


def _default_strategy(tf: TFModel, path: str, strategy: cst.BaseExpression) -> bool:
    """``strategy`` (the receiver of `.run`, or of `.extended.call_for_each_replica`) is the default one."""
    if isinstance(strategy, cst.Attribute) and strategy.attr.value == "extended":
        strategy = strategy.value
    strategies = tf.strategies
    if strategies.default_strategy(strategy):
        return True
    # Inside a function, `get_strategy()` is whatever scope the caller entered: only a test file
    # that builds no strategy and enters no scope is known to call it outside every scope.
    if not is_test_file(path, tf.module) or strategies.all_constructions or strategies.scope_blocks:
        return False
    key = expression_key(strategy)
    return key is not None and strategies.strategy_keys.get(key) == frozenset({_GET_STRATEGY})
