"""Non-trainable variables that distributed code only reads: step counters and learning rates.

A ``step = tf.Variable(0, trainable=False)`` or ``lr = tf.Variable(1e-3, trainable=False)`` made
outside `strategy.scope()` can be read inside `strategy.run` and incremented in cross-replica code
between steps: measured on TensorFlow 2.21 with two replicas (benchmarks/probe_ledger12b_premises.py,
ledger12b class 5). What TFD101 must still report is such a variable the replicas write
(``step.assign_add(1)`` in the replica function: each replica's write lands on the one copy) or
that becomes trained state (given to `apply_gradients`, `minimize`, `tape.gradient`/`watch`).

A Keras model that nothing trains and that distributed code only calls for inference is the same
case (ledger22c class 1: a prior model loaded outside the scope whose `prior(x, training=False)` is
added to a sampler's energy in `strategy.run`): both Kerases run it and every replica gets the eager
call's values (benchmarks/probe_ledger22c_premises.py, part 1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.calls import argument_value, in_arguments_of_method

if TYPE_CHECKING:
    from collections.abc import Callable

    from fixer.tf.index import ModuleIndex
    from fixer.tf.names import NameResolver

# The methods that write a variable in place.
_WRITES = ("assign", "scatter_")
# Calls that make a variable trained state: its value is differentiated or updated by an optimizer.
_TRAINS = frozenset({"apply_gradients", "minimize", "gradient", "watch", "apply"})
# What may be done to a model that only serves inference, besides calling it: load and inspect it,
# predict with it, save it, freeze it.
_MODEL_READS = frozenset(
    {"load_weights", "summary", "predict", "predict_on_batch", "save", "save_weights", "count_params", "get_config"}
)
_INTEGER_DTYPES = frozenset(f"tensorflow.{kind}{bits}" for kind in ("int", "uint") for bits in (8, 16, 32, 64))


def counter_like(names: NameResolver, call: cst.Call) -> bool:
    """``call`` (a `tf.Variable(...)`) makes a variable no gradient flows into: ``trainable=False``, or
    an integer ``dtype`` (integers are not differentiable)."""
    trainable = argument_value(call, None, "trainable")
    if isinstance(trainable, cst.Name) and trainable.value == "False":
        return True
    dtype = argument_value(call, None, "dtype")
    return dtype is not None and (names.qualified(dtype) or "") in _INTEGER_DTYPES


def only_read(index: ModuleIndex, use: cst.CSTNode) -> bool:
    """``use`` (a name holding the variable) reads it: it is not the receiver of an in-place write
    (``v.assign_add(1)``), nor inside the arguments of a call that trains it."""
    parent = index.parent.get(use)
    if isinstance(parent, cst.Attribute) and parent.value is use and parent.attr.value.startswith(_WRITES):
        return False
    return not in_arguments_of_method(index, use, _TRAINS)


def inference_call(index: ModuleIndex, use: cst.CSTNode) -> bool:
    """``use`` (a name holding a model) is called without training: ``model(x)`` or
    ``model(x, training=False)`` (a call with ``training=True`` or a computed flag updates a
    BatchNormalization's moving statistics)."""
    call = index.parent.get(use)
    if not isinstance(call, cst.Call) or call.func is not use:
        return False
    training = argument_value(call, None, "training")
    return training is None or (isinstance(training, cst.Name) and training.value == "False")


def inference_only(index: ModuleIndex, uses: list[cst.CSTNode], in_step: Callable[[cst.CSTNode], bool]) -> bool:
    """Every use of a model reads it: an inference call in a replica step (``in_step``), a method
    of :data:`_MODEL_READS` (``prior.load_weights(path)``), ``prior.trainable = False``, or a test
    (``if prior is not None``). Anything else (``fit``, ``compile``, ``trainable_variables``, an
    argument of another call, an alias, a call that builds another model from it) may train it,
    and the model is not read-only."""
    return bool(uses) and all(_reads_model(index, use, in_step) for use in uses)


def _reads_model(index: ModuleIndex, use: cst.CSTNode, in_step: Callable[[cst.CSTNode], bool]) -> bool:
    if inference_call(index, use):
        return in_step(use)  # not `head(backbone(inputs))`, which builds a model that trains it
    parent = index.parent.get(use)
    if isinstance(parent, cst.Attribute) and parent.value is use:
        holder = index.parent.get(parent)
        if parent.attr.value in _MODEL_READS:
            return isinstance(holder, cst.Call) and holder.func is parent
        return parent.attr.value == "trainable" and isinstance(holder, cst.AssignTarget)
    if isinstance(parent, cst.Comparison):
        return True  # `prior is not None`
    return isinstance(parent, (cst.If, cst.IfExp, cst.While)) and getattr(parent, "test", None) is use
