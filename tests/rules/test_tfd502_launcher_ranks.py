"""TFD502 reads a launcher's rank 0 as the chief (issue 28, fix17a; ledger16b's HabanaAI ViT).

When an MPI-style launcher starts one worker per rank and the rank is the task index, a save under
`rank == 0` is the chief's alone: no two workers share its path. The rank is read from an MPI
communicator, a `comm_rank()` helper, Horovod or the launcher's environment, and
`not distributed or rank == 0` (one process, or the chief) is such a guard too. A save under
another rank, or under no guard, stays reported (the controls).
"""

from __future__ import annotations

import textwrap

import pytest

from fixer.engine import check_source

_PROGRAM = """
import os
import tensorflow as tf
from mpi4py import MPI
import horovod.tensorflow as hvd
from cluster_tools import comm_rank, distributed

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    net.compile("sgd", "mse")
net.fit(features, targets, epochs=1)
rank = MPI.COMM_WORLD.Get_rank()
{guard}
    net.save_weights("/shared/final/weights")
"""


def tfd502_lines(guard: str) -> list[int]:
    source = textwrap.dedent(_PROGRAM.format(guard=guard))
    return [f.start.line for f in check_source("train.py", source).findings if f.code == "TFD502"]


@pytest.mark.parametrize(
    "guard",
    [
        "if comm_rank() == 0:",
        "if MPI.COMM_WORLD.Get_rank() == 0:",
        "if hvd.rank() == 0:",
        'if int(os.environ["OMPI_COMM_WORLD_RANK"]) == 0:',
        "if not distributed or rank == 0:",
        "if not distributed or comm_rank() == 0:",
    ],
)
def test_a_save_under_the_launchers_rank_zero_is_the_chiefs(guard: str) -> None:
    assert tfd502_lines(guard) == []


@pytest.mark.parametrize(
    "guard",
    ["if True:", "if rank == 1:", "if comm_rank() == 1:", "if not distributed or verbose:"],
)
def test_control_another_rank_or_no_rank_test_stays_reported(guard: str) -> None:
    assert tfd502_lines(guard) == [15]
