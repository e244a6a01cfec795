"""Premises of the TF_CONFIG and runtime-start rules, as TensorFlow 2.21 measures them (issue 28):
an empty TF_CONFIG object is no cluster (benchmarks/probe_empty_tf_config.py),
`reset_default_graph()` does not start the runtime (benchmarks/probe_runtime_start_io.py), and
a single file read by several workers is split by DATA sharding
(benchmarks/probe_file_sharding_too_few_files.py)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from fixer.clusterspec import is_no_cluster, parse_tf_config
from fixer.config import Config
from fixer.doctor.command import check_config
from fixer.engine import check_source, fix_source

TWO_WORKERS = '{"cluster": {"worker": ["10.1.0.1:2222", "10.1.0.2:2222"]}, "task": {"type": "worker", "index": 0}}'


def _findings(source: str, path: str = "train.py"):
    return check_source(path, textwrap.dedent(source)).findings


def _codes(source: str, path: str = "train.py") -> list[str]:
    return [f.code for f in _findings(source, path)]


# An empty TF_CONFIG object: one local worker -----------------------------------------------------

LAUNCHER = """
    import json
    import os
    import subprocess
    import sys

    import tensorflow as tf

    hosts = ["10.1.0.1:2222", "10.1.0.2:2222"]
    for rank in range(2):
        spec = {"cluster": {"worker": hosts}, "task": {"type": "worker", "index": rank}}
        subprocess.Popen([sys.executable, "worker.py"], env=dict(os.environ, TF_CONFIG=json.dumps(spec)))

    os.environ["TF_CONFIG"] = {cleared}
    local = tf.distribute.MultiWorkerMirroredStrategy()
    """


@pytest.mark.parametrize("cleared", ['"{}"', "'{}'", "json.dumps({})", "json.dumps(dict())"])
def test_a_launcher_clearing_its_own_tf_config_is_neither_hard_coded_nor_malformed(cleared):
    codes = _codes(LAUNCHER.replace("{cleared}", cleared))
    assert "TFD601" not in codes and "TFD603" not in codes


def test_a_literal_cluster_in_the_same_place_is_still_hard_coded():
    codes = _codes(LAUNCHER.replace("{cleared}", repr(TWO_WORKERS)))
    assert "TFD601" in codes


def test_the_empty_object_is_no_cluster_and_an_empty_string_stays_malformed():
    assert is_no_cluster("{}") and is_no_cluster(" { } ")
    assert not is_no_cluster("") and not is_no_cluster("[]") and not is_no_cluster(TWO_WORKERS)
    assert parse_tf_config("{}").problems == []
    # TensorFlow raises JSONDecodeError on an empty string (measured), so that stays a defect.
    assert [p.kind for p in parse_tf_config("").problems] == ["empty"]
    # A config that has something but no cluster still says what is missing.
    assert [p.kind for p in parse_tf_config('{"task": {"type": "worker", "index": 0}}').problems] == ["missing-cluster"]


def test_doctor_passes_an_empty_tf_config_and_says_what_it_means():
    report = check_config("{}", network=False, timeout=1.0)
    assert report.problems == []
    assert any("no cluster" in note and "one local worker" in note for note in report.notes)


def test_doctor_on_the_command_line_exits_0_for_an_empty_tf_config(distfix):
    result = distfix("doctor", "--no-network", "--tf-config", "{}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "one local worker" in result.stdout and "Traceback" not in result.stderr


def test_a_placeholder_cluster_nothing_launches_is_not_reported():
    source = """
        import json
        import os

        os.environ["TF_CONFIG"] = json.dumps({
            "cluster": {"chief": ["<chief-ip>:port"], "worker": ["<worker-ip>:port", "<worker-ip>:port"]},
            "task": {"type": "worker", "index": 0},
        })
        """
    # A template nobody runs as written (no launcher starts this file): neither rule reports it
    # (tests/rules/test_tfd603_placeholders.py: a launched script gets one TFD603).
    assert [c for c in _codes(source) if c.startswith("TFD60")] == []


# TFD105: what leaves the runtime unstarted, and when the strategy is a single worker ------------


def test_reset_default_graph_before_the_strategy_starts_nothing():
    source = """
        import tensorflow as tf

        tf.compat.v1.reset_default_graph()
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """
    assert "TFD105" not in _codes(source)
    assert "TFD105" in _codes(source.replace("tf.compat.v1.reset_default_graph()", "tf.compat.v1.reset_default_graph(); warm = tf.ones(2)"))


def test_reset_default_graph_through_a_compat_v1_import():
    source = """
        import tensorflow.compat.v1 as tf

        tf.reset_default_graph()
        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
        """
    assert "TFD105" not in _codes(source)


EMPTIED = """
    import os
    import tensorflow as tf

    table = tf.constant([1.0, 2.0])
    os.environ["TF_CONFIG"] = "{}"
    {again}
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    """


def test_tf_config_set_to_the_empty_object_before_the_strategy_makes_it_a_single_worker():
    assert "TFD105" not in _codes(EMPTIED.replace("{again}", "pass"))


def test_a_cluster_set_after_the_empty_object_brings_the_failure_back():
    again = f"os.environ['TF_CONFIG'] = {TWO_WORKERS!r}"
    assert "TFD105" in _codes(EMPTIED.replace("{again}", again))


LATE = """
    import tensorflow as tf
    {marker}
    samples = tf.random.uniform((8, 3))
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    """


def test_a_script_that_never_names_a_cluster_is_told_when_the_error_happens():
    # Measured: without TF_CONFIG the strategy builds after ops (one worker); a launcher's cluster
    # TF_CONFIG makes it raise. The finding stays for that launcher, and says so.
    (finding,) = [f for f in _findings(LATE.replace("{marker}", "")) if f.code == "TFD105"]
    assert "under a cluster TF_CONFIG it raises" in finding.message


@pytest.mark.parametrize(
    "marker",
    ["CONFIG = os.environ.get('TF_CONFIG')", "resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()"],
)
def test_a_script_that_knows_its_cluster_gets_the_plain_message(marker):
    source = LATE.replace("{marker}", "import os; " + marker)
    (finding,) = [f for f in _findings(source) if f.code == "TFD105"]
    assert finding.message.startswith("MultiWorkerMirroredStrategy is created after TensorFlow ran ops: it raises")


# TFD202: auto-sharding switched off to get around file sharding with too few files --------------

OFF_ONE_FILE = f"""
    import os
    import tensorflow as tf

    os.environ["TF_CONFIG"] = {TWO_WORKERS!r}
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    records = tf.data.TFRecordDataset("shard-0.tfrecord").batch(4)
    options = tf.data.Options()
    # AUTO failed with one file for two workers, so auto-sharding goes off
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    records = records.with_options(options)
    for batch in strategy.experimental_distribute_dataset(records):
        pass
    """


def test_off_over_one_file_says_why_data_is_the_fix():
    (finding,) = [f for f in _findings(OFF_ONE_FILE) if f.code == "TFD202"]
    assert "splits 1 file(s) for 2 workers by element" in finding.message
    assert "Could not apply FILE based sharding" in finding.message
    assert "TFD205" not in _codes(OFF_ONE_FILE)  # OFF is not file sharding: that rule stays quiet


def test_the_fix_sets_data_and_keeps_the_comment():
    source = textwrap.dedent(OFF_ONE_FILE)
    fixed = fix_source("train.py", source, Config(select=("TFD202",)), unsafe=True).fixed_text
    assert fixed is not None
    ast.parse(fixed)
    assert "AutoShardPolicy.DATA" in fixed and "AutoShardPolicy.OFF" not in fixed
    assert "# AUTO failed with one file for two workers" in fixed


def test_off_over_enough_files_keeps_the_general_message():
    source = OFF_ONE_FILE.replace('"shard-0.tfrecord"', '["shard-0.tfrecord", "shard-1.tfrecord"]')
    (finding,) = [f for f in _findings(source) if f.code == "TFD202"]
    assert "by element" not in finding.message


def test_emit_launcher_passes_over_an_empty_tf_config_without_a_warning():
    from fixer.launcher.plan import launcher_plan

    source = textwrap.dedent(LAUNCHER.replace("{cleared}", '"{}"'))
    plan = launcher_plan("launch.py", source)
    assert plan.configs == [] and plan.warnings == []
    real = launcher_plan("launch.py", source.replace('"{}"', repr(TWO_WORKERS)))
    assert len(real.configs) == 1
