"""TFD302 reports only the methods that raise in a replica function.

benchmarks/probe_cross_replica_methods_in_replica_fn.py measures on TensorFlow 2.21 that
`experimental_local_results` returns the local values there, while `reduce`, `gather` and a nested
`run` raise `RuntimeError`.
"""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from fixer.config import Config
from fixer.engine import check_source

STEP = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()

def replica_fn(x):
    local = strategy.experimental_local_results(x)
    total = strategy.reduce(tf.distribute.ReduceOp.SUM, x, axis=None)
    return local[0], total

strategy.run(replica_fn, args=(x,))
"""


def test_local_results_in_a_replica_function_is_not_reported_but_reduce_is(tmp_path: Path) -> None:
    result = check_source(str(tmp_path / "train.py"), dedent(STEP), Config())
    lines = [f.start.line for f in result.findings if f.code == "TFD302"]
    assert lines == [7]
