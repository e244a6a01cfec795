"""The report's first line says what ran (from the dumps), then what was asked (no TensorFlow)."""

from __future__ import annotations

from fixer.validate.report import ValidationReport, VariantReport, topology
from fixer.validate.runner import RunSpec, WorkerDump


def test_one_process_with_logical_cpus():
    dumps = [WorkerDump("ok", topology={"in_sync": 2, "local": 2}, devices="logical CPU")]
    assert topology(dumps) == "2 replica(s) on 2 logical CPU device(s), 1 worker"


def test_two_workers_on_cpu_have_one_replica_each():
    dumps = [WorkerDump("ok", topology={"in_sync": 2, "local": 1}, devices="CPU") for _ in range(2)]
    assert topology(dumps) == "2 workers x 1 replica(s) (CPU) = 2 replicas in sync"


def test_one_gpu_split_in_two():
    dumps = [WorkerDump("ok", topology={"in_sync": 2, "local": 2}, devices="logical GPU")]
    assert topology(dumps) == "2 replica(s) on 2 logical GPU device(s), 1 worker"


def test_header_says_what_ran_then_what_was_asked():
    spec = RunSpec(replicas=2, workers=2, device="auto")
    ran = VariantReport("passed", ran="2 workers x 1 replica(s) (CPU) = 2 replicas in sync")
    report = ValidationReport("train.py", spec, {"original": ran})
    assert report.header() == "2 workers x 1 replica(s) (CPU) = 2 replicas in sync; asked --replicas 2 --workers 2 --device auto"
    assert report.table().splitlines()[0] == f"distfix validate train.py: {report.header()}"


def test_no_strategy_is_said_so():
    report = ValidationReport("x.py", RunSpec(), {"original": VariantReport("failed")})
    assert report.header() == "asked --replicas 2 --workers 1 --device auto (no distribution strategy was created)"
