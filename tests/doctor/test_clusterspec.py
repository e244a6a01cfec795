"""Unit tests of ``fixer.clusterspec``: every defect kind, and the configurations that are valid."""

from __future__ import annotations

import json
import sys
import subprocess

import pytest

from fixer.clusterspec import check_cluster, check_cluster_config, is_loopback, parse_tf_config, split_address


def _tf_config(cluster: object, task: object = None) -> str:
    config = {"cluster": cluster}
    if task is not None:
        config["task"] = task
    return json.dumps(config)


def _kinds(text: str) -> list[tuple[str, str]]:
    return [(p.code, p.kind) for p in parse_tf_config(text).problems]


WORKER0 = {"type": "worker", "index": 0}


@pytest.mark.parametrize(
    "text",
    [
        _tf_config({"chief": ["host-a:2222"], "worker": ["host-b:2222", "host-c:2222"]}, {"type": "chief", "index": 0}),
        _tf_config({"chief": ["a:1"], "worker": ["b:1"], "ps": ["c:1", "d:1"]}, {"type": "ps", "index": 1}),
        _tf_config({"worker": ["localhost:2222", "localhost:2223", "127.0.0.1:2224"]}, {"type": "worker", "index": 2}),
        _tf_config({"worker": ["10.0.0.1:2222", "10.0.0.2:2222"]}, {"type": "evaluator", "index": 0}),  # evaluator may sit outside
        _tf_config({"worker": ["[fe80::1]:2222", "[fe80::2]:2222"]}, WORKER0),
        _tf_config({"worker": {"0": "a:1", "1": "b:1"}}, {"type": "worker", "index": 1}),
    ],
)
def test_valid_configs_have_no_problem(text):
    report = parse_tf_config(text)
    assert report.problems == [] and report.ok
    assert report.config == json.loads(text)


@pytest.mark.parametrize(
    ("text", "code", "kind", "message", "path"),
    [
        ("{'cluster': {}}", "TFD603", "invalid-json", "Expecting property name enclosed in double quotes at line 1 column 2", ""),
        ('{"cluster":\n  {"worker": ["a:1",]}}', "TFD603", "invalid-json", "at line 2 column", ""),
        ("   ", "TFD603", "empty", "TF_CONFIG is empty", ""),
        ('["a:1"]', "TFD603", "not-an-object", "must be a JSON object", ""),
        (json.dumps({"task": WORKER0}), "TFD603", "missing-cluster", "TF_CONFIG has no `cluster`", "cluster"),
        (_tf_config({}, WORKER0), "TFD603", "missing-cluster", "non-empty object", "cluster"),
        (_tf_config({"worker": ["a:1"]}), "TFD603", "missing-task", "TF_CONFIG has no `task`", "task"),
        (_tf_config({"worker": ["a:1"]}, "worker"), "TFD603", "bad-task", "`task` must be an object", "task"),
        (_tf_config({"worker": ["a:1", "b:1"]}, {"type": "worker", "index": 2}), "TFD603", "index-out-of-range",
         "task index 2 is out of range: job 'worker' has 2 task(s), indices 0-1", "task.index"),
        (_tf_config({"worker": ["a:1"]}, {"type": "worker", "index": -1}), "TFD603", "index-out-of-range", "task index -1", "task.index"),
        (_tf_config({"worker": ["a:1", "b:1"]}, {"type": "worker", "index": "one"}), "TFD603", "index-not-int",
         "task index 'one' must be a non-negative integer", "task.index"),
        (_tf_config({"worker": ["a:1", "b:1"]}, {"type": "worker", "index": "2"}), "TFD603", "index-out-of-range",
         "task index 2 is out of range", "task.index"),
        (_tf_config({"worker": ["a:1"]}, {"type": "worker"}), "TFD603", "index-not-int", "task index None", "task.index"),
        (_tf_config({"worker": ["a:1"]}, {"type": "worker", "index": True}), "TFD603", "index-not-int", "task index True", "task.index"),
        (_tf_config({"worker": ["a:1"]}, {"type": "workers", "index": 0}), "TFD603", "unknown-task-type",
         "task type 'workers' is not one of chief, worker, evaluator, ps", "task.type"),
        (_tf_config({"worker": ["a:1"], "master": ["b:1"]}, WORKER0), "TFD603", "unknown-task-type", "unknown task type 'master'",
         "cluster.master"),
        (_tf_config({"worker": ["a:1"]}, {"type": "chief", "index": 0}), "TFD603", "task-not-in-cluster", "'chief' has no job", "task.type"),
        (_tf_config({"worker": ["127.0.0.1", "b:1"]}, WORKER0), "TFD603", "missing-port", "worker[0] '127.0.0.1' has no port",
         "cluster.worker[0]"),
        (_tf_config({"worker": ["a:", "b:1"]}, WORKER0), "TFD603", "missing-port", "'a:' has no port", "cluster.worker[0]"),
        (_tf_config({"worker": ["fe80::1:2222"]}, WORKER0), "TFD603", "missing-port", "\"[ADDRESS]:PORT\" for IPv6", "cluster.worker[0]"),
        (_tf_config({"worker": [":2222"]}, WORKER0), "TFD603", "missing-host", "has no host", "cluster.worker[0]"),
        (_tf_config({"worker": ["a:http"]}, WORKER0), "TFD603", "non-numeric-port", "non-numeric port 'http'", "cluster.worker[0]"),
        (_tf_config({"worker": ["a:70000"]}, WORKER0), "TFD603", "port-out-of-range", "port 70000 is outside 1-65535", "cluster.worker[0]"),
        (_tf_config({"worker": ["a:0"]}, WORKER0), "TFD603", "port-out-of-range", "port 0 is outside", "cluster.worker[0]"),
        (_tf_config({"worker": ["a:1", 2222]}, WORKER0), "TFD603", "not-a-string", "worker[1] must be a \"host:port\" string", "cluster.worker[1]"),
        (_tf_config({"worker": ["a:1", "A:1"]}, WORKER0), "TFD603", "duplicate-address", "worker[1] repeats 'A:1' (also worker[0])",
         "cluster.worker[1]"),
        (_tf_config({"chief": ["a:1"], "worker": ["a:1"]}, WORKER0), "TFD603", "duplicate-address", "(also chief[0])", "cluster.worker[0]"),
        (_tf_config({"worker": ["a:1"], "ps": []}, WORKER0), "TFD603", "empty-job", "job 'ps' must list at least one", "cluster.ps"),
        (_tf_config({"worker": ["a:1"], "ps": "b:1"}, WORKER0), "TFD603", "empty-job", "job 'ps'", "cluster.ps"),
        (_tf_config({"chief": ["a:1", "b:1"]}, {"type": "chief", "index": 0}), "TFD603", "several-chiefs", "at most one chief",
         "cluster.chief"),
        (_tf_config({"worker": ["a:1"], "evaluator": ["b:1", "c:1"]}, WORKER0), "TFD603", "several-evaluators", "at most one evaluator",
         "cluster.evaluator"),
        (_tf_config({"worker": ["localhost:2222", "10.1.2.3:2222"]}, WORKER0), "TFD602", "loopback-mixed",
         "worker[0] use a loopback address while worker[1] are other hosts", "cluster"),
        (_tf_config({"chief": ["0.0.0.0:1"], "worker": ["host-b:1"]}, WORKER0), "TFD602", "loopback-mixed", "chief[0]", "cluster"),
        (_tf_config({"worker": ["localhost:2222", "127.0.0.1:2222"]}, WORKER0), "TFD602", "loopback-same-port",
         "worker[1] '127.0.0.1:2222' is the same loopback port as worker[0]", "cluster.worker[1]"),
        (_tf_config({"worker": ["[::1]:5000", "127.0.0.2:5000"]}, WORKER0), "TFD602", "loopback-same-port", "distinct ports",
         "cluster.worker[1]"),
    ],
)
def test_every_defect_kind(text, code, kind, message, path):
    problems = parse_tf_config(text).problems
    matching = [p for p in problems if p.kind == kind]
    assert matching, problems
    assert matching[0].code == code and matching[0].path == path
    assert message in matching[0].message
    assert "\n" not in matching[0].message


def test_every_problem_of_a_bad_config_is_reported_at_once():
    text = _tf_config({"worker": ["a", "a:x"], "master": ["b:1"]}, {"type": "worker", "index": "3"})
    assert _kinds(text) == [
        ("TFD603", "missing-port"),
        ("TFD603", "non-numeric-port"),
        ("TFD603", "unknown-task-type"),
        ("TFD603", "index-out-of-range"),
    ]


def test_a_digit_string_index_is_the_number_tensorflow_takes_it_for():
    """Measured (benchmarks/probe_cluster_specs.py): workers given "0" and "1" form their cluster."""
    assert _kinds(_tf_config({"worker": ["a:1", "b:1"]}, {"type": "worker", "index": "1"})) == []


def test_cluster_alone_and_config_object():
    assert check_cluster({"worker": ["a:1", "b:2"]}) == []
    assert [p.kind for p in check_cluster(["a:1"])] == ["missing-cluster"]
    assert check_cluster_config({"cluster": {"worker": ["a:1"]}, "task": WORKER0}) == []


@pytest.mark.parametrize(
    ("address", "expected"),
    [("a:1", ("a", "1")), ("[::1]:22", ("::1", "22")), ("[::1]", ("::1", None)), ("a", ("a", None)), ("::1", ("::1", None))],
)
def test_split_address(address, expected):
    assert split_address(address) == expected


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("localhost", True), ("LOCALHOST", True), ("127.0.0.1", True), ("127.9.9.9", True), ("::1", True), ("0.0.0.0", True),
     ("10.0.0.1", False), ("host-a", False), ("192.0.2.1", False)],
)
def test_is_loopback(host, loopback):
    assert is_loopback(host) is loopback


def test_clusterspec_never_imports_tensorflow():
    code = "import sys, fixer.clusterspec as c; c.parse_tf_config('{}'); print('tensorflow' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr
