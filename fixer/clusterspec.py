"""TF_CONFIG and cluster-spec validation: the one place that knows what a valid cluster is.

Used by the static rules TFD602/TFD603 on literals in code and by ``distfix doctor`` on the live
``TF_CONFIG``. Pure Python: it never imports TensorFlow and never touches the network.
"""

from __future__ import annotations

import ipaddress
import json
from dataclasses import dataclass

# Task types TensorFlow 2.21 accepts (MultiWorkerMirroredStrategy rejects any other).
TASK_TYPES = ("chief", "worker", "evaluator", "ps")
LOOPBACK_HOSTS = frozenset({"localhost", "0.0.0.0", "::1", "ip6-localhost"})


@dataclass(frozen=True)
class ClusterProblem:
    """One defect: the rule code it belongs to, a short kind, and a one-line message."""

    code: str  # TFD602 (loopback) or TFD603 (malformed)
    kind: str
    message: str


def _malformed(kind: str, message: str) -> ClusterProblem:
    return ClusterProblem("TFD603", kind, message)


def parse_tf_config(text: str) -> tuple[dict | None, list[ClusterProblem]]:
    """Parse a TF_CONFIG string; invalid JSON is reported with its position."""
    if not text.strip():
        return None, [_malformed("empty", "TF_CONFIG is empty; unset it or give a JSON object with `cluster` and `task`")]
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        hint = " (JSON needs double quotes)" if "double quotes" in exc.msg else ""
        return None, [
            _malformed(
                "invalid-json",
                f"TF_CONFIG is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}{hint}",
            )
        ]
    if not isinstance(value, dict):
        return None, [_malformed("not-an-object", "TF_CONFIG must be a JSON object with `cluster` and `task`")]
    return value, check_tf_config(value)


def split_address(address: str) -> tuple[str, str | None]:
    """``host:port`` (or ``[v6]:port``) into host and port text (None when there is no port)."""
    if address.startswith("["):
        host, _, rest = address[1:].partition("]")
        return host, rest[1:] if rest.startswith(":") else None
    if address.count(":") == 1:
        host, port = address.split(":")
        return host, port
    return address, None


def is_loopback(host: str) -> bool:
    """True for localhost, 127.0.0.0/8, ::1 and 0.0.0.0."""
    if host.lower() in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_cluster(cluster: object) -> list[ClusterProblem]:
    """Defects of a cluster dict ``{"worker": ["host:port", ...], ...}``."""
    if not isinstance(cluster, dict) or not cluster:
        return [_malformed("missing-cluster", "the cluster spec must be a non-empty object mapping task types to address lists")]
    problems: list[ClusterProblem] = []
    seen: dict[str, str] = {}
    hosts: list[tuple[str, str]] = []
    for job, addresses in cluster.items():
        if job not in TASK_TYPES:
            problems.append(
                _malformed("unknown-task-type", f"unknown task type {job!r} in the cluster; valid types are {', '.join(TASK_TYPES)}")
            )
        if isinstance(addresses, dict):
            addresses = list(addresses.values())
        if not isinstance(addresses, list) or not addresses:
            problems.append(_malformed("empty-job", f"job {job!r} must list at least one \"host:port\" address"))
            continue
        for position, address in enumerate(addresses):
            where = f"{job}[{position}]"
            if not isinstance(address, str):
                problems.append(_malformed("not-a-string", f"{where} must be a \"host:port\" string, not {address!r}"))
                continue
            host, port = split_address(address)
            if port is None or port == "":
                problems.append(_malformed("missing-port", f"{where} {address!r} has no port; write \"{host}:PORT\""))
            elif not port.isdigit():
                problems.append(_malformed("non-numeric-port", f"{where} {address!r} has a non-numeric port {port!r}"))
            elif not 0 < int(port) < 65536:
                problems.append(_malformed("port-out-of-range", f"{where} {address!r}: port {port} is outside 1-65535"))
            if address in seen and is_loopback(host):
                problems.append(
                    ClusterProblem(
                        "TFD602",
                        "loopback-same-port",
                        f"{where} repeats {address!r} (also {seen[address]}): tasks on one machine need distinct ports",
                    )
                )
            elif address in seen:
                problems.append(
                    _malformed("duplicate-address", f"{where} repeats {address!r} (also {seen[address]}); every task needs its own address")
                )
            else:
                seen[address] = where
            hosts.append((where, host))
    loopback = [where for where, host in hosts if is_loopback(host)]
    remote = [where for where, host in hosts if not is_loopback(host)]
    if loopback and remote:
        problems.append(
            ClusterProblem(
                "TFD602",
                "loopback-mixed",
                f"{', '.join(loopback)} use a loopback address while {', '.join(remote)} are other hosts: remote "
                "workers cannot reach a loopback address; use this machine's network address",
            )
        )
    return problems


def check_tf_config(config: dict) -> list[ClusterProblem]:
    """Defects of a parsed TF_CONFIG: cluster, task type and index, and loopback use."""
    problems: list[ClusterProblem] = []
    if "cluster" not in config:
        problems.append(_malformed("missing-cluster", "TF_CONFIG has no `cluster`: add {\"cluster\": {\"worker\": [\"host:port\", ...]}}"))
        cluster = None
    else:
        cluster = config["cluster"]
        problems.extend(check_cluster(cluster))
    task = config.get("task")
    if task is None:
        problems.append(_malformed("missing-task", "TF_CONFIG has no `task`: add {\"task\": {\"type\": \"worker\", \"index\": N}} for this process"))
        return problems
    if not isinstance(task, dict):
        problems.append(_malformed("bad-task", "`task` must be an object with `type` and `index`"))
        return problems
    task_type, index = task.get("type"), task.get("index")
    if task_type not in TASK_TYPES:
        problems.append(
            _malformed("unknown-task-type", f"task type {task_type!r} is not one of {', '.join(TASK_TYPES)}")
        )
    elif isinstance(cluster, dict) and task_type not in cluster:
        problems.append(_malformed("task-not-in-cluster", f"task type {task_type!r} has no job in the cluster"))
    if isinstance(index, str):
        problems.append(
            _malformed("index-not-int", f"task index {index!r} is a string; write the number {index} (TensorFlow accepts it and then hangs)")
        )
    elif not isinstance(index, int) or isinstance(index, bool):
        problems.append(_malformed("index-not-int", f"task index {index!r} must be a non-negative integer"))
    elif isinstance(cluster, dict) and isinstance(cluster.get(task_type), list):
        size = len(cluster[task_type])
        if not 0 <= index < size:
            problems.append(
                _malformed("index-out-of-range", f"task index {index} is out of range: job {task_type!r} has {size} task(s), indices 0-{size - 1}")
            )
    return problems
