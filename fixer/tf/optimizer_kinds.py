"""What a Keras optimizer creation is, as the analysis of fixer/tf/optimizers.py records it.

Its own module so that the per-module model (fixer/tf/model.py), which keeps these records, need
not import the analysis that takes the model.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst


class State(enum.Enum):
    """Whether an optimizer creates variables on its first update."""

    STATEFUL = "stateful"  # measured: fails unbuilt in a compiled distributed step
    STATELESS = "stateless"  # plain SGD: nothing to create
    UNKNOWN = "unknown"  # an optimizer class that was not measured (LossScaleOptimizer, Muon, ...)


@dataclass(frozen=True)
class OptimizerCreation:
    """``name = keras.optimizers.X(...)``: the statement, the constructor call and its class."""

    statement: cst.SimpleStatementLine
    call: cst.Call
    class_name: str
    state: State
