"""Addresses a script names never leave 127.0.0.1 (real TensorFlow, two local workers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixer.validate.runner import RunSpec
from fixer.validate.session import validate

pytestmark = pytest.mark.tensorflow

# The launcher gives the task index; the addresses are hard-coded and unreachable from here.
HARDCODED_SPEC = """\
import json
import os

import tensorflow as tf

task = json.loads(os.environ["TF_CONFIG"])["task"]["index"]
spec = tf.train.ClusterSpec({"worker": ["10.255.255.1:2222", "10.255.255.2:2222"]})
resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
    spec, master="10.255.255.1:2222", task_type="worker", task_id=task, rpc_layer="grpc"
)
print("cluster", resolver.cluster_spec().as_dict()["worker"], "master", resolver.master())
strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)
with strategy.scope():
    w = tf.Variable([1.0])
total = strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(lambda: w * 1.0), axis=None)
print("all-reduced", total.numpy()[0])
"""


def test_a_hardcoded_cluster_spec_is_mapped_to_loopback(tmp_path: Path):
    script = tmp_path / "spec.py"
    script.write_text(HARDCODED_SPEC)
    report = validate(script, RunSpec(workers=2, device="cpu", timeout=300), compare=False)
    variant = report.variants["original"]
    assert variant.checks[0].result == "pass", report.table()  # the cluster formed: on loopback
    assert set(variant.addresses) == {"10.255.255.1:2222", "10.255.255.2:2222"}
    assert all(local.startswith("127.0.0.1:") for local in variant.addresses.values())
    for output in variant.output:
        assert "all-reduced 2.0" in output
        printed = output.split("cluster ", 1)[1].split("\n", 1)[0]
        assert "10.255.255" not in printed and printed.count("127.0.0.1:") == 3, printed
        assert "master grpc://127.0.0.1:" in printed
