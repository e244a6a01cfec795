"""TFD301 leaves per-replica writes that keep the replicas equal (issue 28, ledger7b class 4).

Measured by benchmarks/probe_per_replica_writes.py on 2 logical CPUs: gradients written into
`synchronization=ON_READ` buffers and applied by the optimizer in a second `strategy.run`, and a
perturb-and-restore pair before the optimizer step, leave every replica's copy equal; a
replica's own gradient written into the weights does not (the control, still reported).
"""

from __future__ import annotations

import textwrap

from fixer.engine import check_source

_BUFFERS = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = make_model()
    optimizer = tf.keras.optimizers.SGD(0.01)
    grad_slots = [
        tf.Variable(tf.zeros_like(v), trainable=False{sync})
        for v in model.trainable_variables
    ]


@tf.function
def train(x, y):
    def compute(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(model(x) - y)) / 64
        grads = tape.gradient(loss, model.trainable_variables)
        for slot, g in zip(grad_slots, grads):
            slot.assign(g)

    def apply():
        optimizer.apply_gradients(zip([s.read_value() for s in grad_slots], model.trainable_variables))

    strategy.run(compute, args=(x, y))
    strategy.run(apply)
"""

_SAM = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = make_model()
    optimizer = tf.keras.optimizers.SGD(0.01)


def sharpness_step(x, y, rho=0.05):
    params = model.trainable_variables
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, params)
    norm = tf.linalg.global_norm(grads)
{body}
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    sharp = tape.gradient(loss, params)
{restore}
    optimizer.apply_gradients(zip(sharp, params))


@tf.function
def train(x, y):
    strategy.run(sharpness_step, args=(x, y))
"""

_KEPT_IN_A_LIST = """
    perturbations = []
    for i in range(len(params)):
        e = grads[i] * rho / norm
        params[i].assign_add(e)
        perturbations.append(e)
"""

_SAME_NAME = """
    eps = [g * rho / norm for g in grads]
    for p, e in zip(params, eps):
        p.assign_add(e)
"""


def tfd301(source: str) -> list[tuple[int, bool]]:
    """(line, fix offered) of each TFD301 finding."""
    findings = check_source("train.py", textwrap.dedent(source)).findings
    return [(f.start.line, bool(f.fix)) for f in findings if f.code == "TFD301"]


def test_gradients_kept_in_on_read_sum_buffers_are_not_drift():
    sync = ", synchronization=tf.VariableSynchronization.ON_READ, aggregation=tf.VariableAggregation.SUM"
    assert tfd301(_BUFFERS.format(sync=sync)) == []


def test_on_read_without_an_aggregation_is_a_buffer_too():
    assert tfd301(_BUFFERS.format(sync=", synchronization=tf.VariableSynchronization.ON_READ")) == []


def test_control_mirrored_buffers_written_from_own_gradients_stay_reported():
    assert [line for line, _ in tfd301(_BUFFERS.format(sync=""))] == [21]


def test_a_perturbation_kept_in_a_list_and_subtracted_again_is_not_drift():
    restore = "    for i in range(len(params)):\n        params[i].assign_sub(perturbations[i])"
    assert tfd301(_SAM.format(body=_KEPT_IN_A_LIST, restore=restore)) == []


def test_a_perturbation_restored_through_the_same_loop_is_not_drift():
    restore = "    for p, e in zip(params, eps):\n        p.assign_sub(e)"
    assert tfd301(_SAM.format(body=_SAME_NAME, restore=restore)) == []


def test_control_a_perturbation_never_restored_stays_reported():
    assert [line for line, _ in tfd301(_SAM.format(body=_KEPT_IN_A_LIST, restore="    pass"))] == [20]


def test_control_subtracting_something_else_stays_reported():
    restore = "    for i in range(len(params)):\n        params[i].assign_sub(0.01 * sharp[i])"
    assert [line for line, _ in tfd301(_SAM.format(body=_KEPT_IN_A_LIST, restore=restore))] == [20]


def test_control_restoring_another_variable_stays_reported():
    restore = "    for p, e in zip(model.non_trainable_variables, eps):\n        p.assign_sub(e)"
    assert [line for line, _ in tfd301(_SAM.format(body=_SAME_NAME, restore=restore))] == [19]


def test_control_on_read_mean_buffers_keep_the_mean_message():
    sync = ", synchronization=tf.VariableSynchronization.ON_READ, aggregation=tf.VariableAggregation.MEAN"
    findings = check_source("train.py", textwrap.dedent(_BUFFERS.format(sync=sync))).findings
    assert [f.message.split(",")[0] for f in findings if f.code == "TFD301"] == ["the variable has aggregation=MEAN"]
