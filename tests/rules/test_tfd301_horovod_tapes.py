"""TFD301 leaves gradients of a tape wrapped in Horovod's DistributedGradientTape (issue 28, fix17a).

`tape = hvd.DistributedGradientTape(tape)` makes `tape.gradient()` all-reduce across the Horovod
workers (ledger16b: the Habana ResNet trainers wrap it when Horovod is initialised and hand it to
an accumulation helper). The wrap is read on the flow model: any path that wraps the tape before
the `gradient` call. The same code without the wrap stays reported (the control).
"""

from __future__ import annotations

import textwrap

from fixer.engine import check_source

_ACCUMULATING = """
import tensorflow as tf

try:
    import horovod.tensorflow as hvd
except ImportError:
    hvd = None

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    net = build_net()
    sums = [tf.Variable(tf.zeros_like(w), trainable=False) for w in net.trainable_variables]


def accumulate(loss, tape):
    grads = tape.gradient(loss, net.trainable_variables)
    for i in range(len(sums)):
        sums[i].assign_add(grads[i])


def replica_step(batch):
    features, targets = batch
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(net(features) - targets))
{wrap}
    accumulate(loss, tape)


@tf.function
def train(batch):
    strategy.run(replica_step, args=(batch,))
"""

_WRAP_WHEN_INITIALISED = """
    if hvd is not None and hvd.is_initialized():
        tape = hvd.DistributedGradientTape(tape)
"""

_INLINE = """
import tensorflow as tf
import horovod.tensorflow as hvd

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    w = tf.Variable(tf.ones([3]))


def replica_step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * x)
{wrap}
    g = tape.gradient(loss, w)
    w.assign_sub(0.1 * g)


@tf.function
def train(x):
    strategy.run(replica_step, args=(x,))
"""


def tfd301_lines(source: str) -> list[int]:
    findings = check_source("train.py", textwrap.dedent(source)).findings
    return [f.start.line for f in findings if f.code == "TFD301"]


def test_a_tape_wrapped_by_the_caller_on_one_path_gives_reduced_gradients():
    assert tfd301_lines(_ACCUMULATING.format(wrap=_WRAP_WHEN_INITIALISED)) == []


def test_control_the_same_helper_without_the_wrap_stays_reported():
    assert tfd301_lines(_ACCUMULATING.format(wrap="")) == [18]


def test_a_tape_wrapped_in_its_own_function_gives_reduced_gradients():
    assert tfd301_lines(_INLINE.format(wrap="    tape = hvd.DistributedGradientTape(tape)")) == []


def test_control_a_tape_wrapped_only_after_the_gradient_call_stays_reported():
    source = _INLINE.format(wrap="").replace(
        "    w.assign_sub(0.1 * g)", "    w.assign_sub(0.1 * g)\n    tape = hvd.DistributedGradientTape(tape)"
    )
    assert tfd301_lines(source) == [15]


def test_control_no_wrap_at_all_stays_reported():
    assert tfd301_lines(_INLINE.format(wrap="")) == [15]
