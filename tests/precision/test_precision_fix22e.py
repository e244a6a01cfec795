"""Regression tests for issue 28 (fix22e): the two false positives of the blind round ledger22d, in our
own words, each with the control that keeps the finding.

- TFD304 (ledger22d class 2, a GISAXS fitting application): `tensorflow>=2.15,<=2.16` admits no 2.16
  release, as PyPI has no 2.16.0 (2.16.1 is the first; `<=2.16` means `<=2.16.0` under PEP 440), so pip
  installs 2.15.1: Keras 2, whose optimizer clips after the replicas' gradients are aggregated
  (fixer/target/versions.py FIRST_PATCH). `<2.17` admits 2.16.1 (Keras 3) and keeps the finding.
- TFD103 (ledger22d class 1, a SETI search pipeline): a compiled function whose only work is
  `apply_gradients` of gradients that the Python loop accumulated from `strategy.reduce` results
  (the compiled function around `strategy.run` reduced them) is the cross-replica half of a
  reduce-then-update loop: measured to run and keep the replicas equal
  (benchmarks/probe_ledger22d_premises.py). Gradients handed over without a reduction (the
  per-replica results of `strategy.run`, or a tape run outside the strategy) keep the finding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from fixer.runner import Job, run
from fixer.target.requirements import specifier_range

if TYPE_CHECKING:
    from pathlib import Path


def _codes(root: Path, source: str, requirements: str | None = None) -> list[str]:
    """The codes found in ``root/train.py`` (written with ``source``), beside ``requirements``."""
    (root / ".git").mkdir()
    if requirements is not None:
        (root / "requirements.txt").write_text(requirements)
    path = root / "train.py"
    path.write_text(source)
    (result,) = list(run([path], Job(use_cache=False, project_roots=(str(root),)), jobs=1))
    return [f.code for f in result.findings]


@pytest.mark.parametrize(
    "spec, newest",
    [
        ("<=2.16", (2, 15)),
        ("<=2.16.0", (2, 15)),
        ("<2.16.1", (2, 15)),
        (">=2.15,<=2.16", (2, 15)),
        # Controls: ranges that admit 2.16.1 or 2.16.2 resolve to 2.16 as before.
        ("<=2.16.1", (2, 16)),
        ("<2.17", (2, 16)),
        ("~=2.16.0", (2, 16)),
        ("==2.16.*", (2, 16)),
        ("<=2.17", (2, 17)),
        ("<=2.15", (2, 15)),
    ],
)
def test_an_upper_bound_on_a_line_pypi_never_released_as_x_y_0(spec: str, newest: tuple[int, int]) -> None:
    assert specifier_range(spec).newest() == newest


_CLIPPED = """\
import tensorflow as tf

mirrored = tf.distribute.MirroredStrategy()
with mirrored.scope():
    regressor = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    adam = tf.keras.optimizers.Adam(learning_rate=1e-3, clipnorm=1.0)


def one_replica(xs, ys):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(regressor(xs) - ys)) / 64.0
    grads = tape.gradient(loss, regressor.trainable_variables)
    adam.apply_gradients(zip(grads, regressor.trainable_variables))
    return loss


@tf.function
def step(xs, ys):
    return mirrored.run(one_replica, args=(xs, ys))
"""


def test_a_bound_at_or_below_2_16_0_installs_keras2_so_no_tfd304(tmp_path: Path) -> None:
    assert "TFD304" not in _codes(tmp_path, _CLIPPED, "numpy\ntensorflow>=2.15,<=2.16\n")


def test_control_a_bound_that_admits_2_16_1_keeps_tfd304(tmp_path: Path) -> None:
    assert "TFD304" in _codes(tmp_path, _CLIPPED, "numpy\ntensorflow>=2.15,<2.17\n")


_REDUCE_THEN_UPDATE = """\
import tensorflow as tf

mirrored = tf.distribute.MirroredStrategy()
with mirrored.scope():
    net = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
    sgd = tf.keras.optimizers.SGD(0.1)


def replica_grads(xs, ys):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(net(xs) - ys)) / mirrored.num_replicas_in_sync
    return tape.gradient(loss, net.trainable_variables)


@tf.function
def summed_grads(xs, ys):
    per_replica = mirrored.run(replica_grads, args=(xs, ys))
    summed = []
    for g in per_replica:
        summed.append(mirrored.reduce(tf.distribute.ReduceOp.SUM, g, axis=None))
    return summed, len(summed)


@tf.function
def update(grads):
    clipped, _ = tf.clip_by_global_norm(grads, 5.0)
    sgd.apply_gradients(zip(clipped, net.trainable_variables))


for epoch in range(3):
    total = None
    count = 0
    for xs, ys in batches:
        grads = {source}
        total = grads if total is None else [t + g for t, g in zip(total, grads)]
        count += 1
    update([t / count for t in total])
"""


def test_an_update_of_gradients_reduced_across_replicas_is_no_tfd103(tmp_path: Path) -> None:
    source = _REDUCE_THEN_UPDATE.format(source="summed_grads(xs, ys)[0]")
    assert "TFD103" not in _codes(tmp_path, source)


def test_an_update_of_unpacked_reduced_gradients_is_no_tfd103(tmp_path: Path) -> None:
    source = _REDUCE_THEN_UPDATE.format(source="summed_grads(xs, ys)").replace(
        "grads = summed_grads(xs, ys)", "grads, _ = summed_grads(xs, ys)"
    )
    assert "TFD103" not in _codes(tmp_path, source)


@pytest.mark.parametrize(
    "source",
    [
        "mirrored.run(replica_grads, args=(xs, ys))",  # per-replica values, never reduced
        "replica_grads(xs, ys)",  # a tape run outside the strategy
    ],
)
def test_control_gradients_not_reduced_across_replicas_keep_tfd103(tmp_path: Path, source: str) -> None:
    assert "TFD103" in _codes(tmp_path, _REDUCE_THEN_UPDATE.format(source=source))


def test_control_an_update_that_takes_its_own_gradient_keeps_tfd103(tmp_path: Path) -> None:
    source = _REDUCE_THEN_UPDATE.format(source="summed_grads(xs, ys)[0]").replace(
        "    clipped, _ = tf.clip_by_global_norm(grads, 5.0)\n",
        "    with tf.GradientTape() as tape:\n"
        "        loss = tf.reduce_mean(net(xs))\n"
        "    clipped = [g + h for g, h in zip(grads, tape.gradient(loss, net.trainable_variables))]\n",
    )
    assert "TFD103" in _codes(tmp_path, source)


def test_control_an_optimizer_v2_keeps_tfd103(tmp_path: Path) -> None:
    """OptimizerV2 changes only the first replica's copy in cross-replica context (the probe)."""
    source = _REDUCE_THEN_UPDATE.format(source="summed_grads(xs, ys)[0]").replace(
        "tf.keras.optimizers.SGD(0.1)", "tf.keras.optimizers.legacy.SGD(0.1)"
    )
    assert "TFD103" in _codes(tmp_path, source, "tensorflow==2.15.0\n")


def test_control_tf_keras_optimizers_before_2_11_keep_tfd103(tmp_path: Path) -> None:
    source = _REDUCE_THEN_UPDATE.format(source="summed_grads(xs, ys)[0]")
    assert "TFD103" in _codes(tmp_path, source, "tensorflow==2.10.1\n")


def test_tf_keras_optimizers_from_2_11_are_no_tfd103(tmp_path: Path) -> None:
    source = _REDUCE_THEN_UPDATE.format(source="summed_grads(xs, ys)[0]")
    assert "TFD103" not in _codes(tmp_path, source, "tensorflow==2.15.0\n")
