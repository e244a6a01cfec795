"""TF_CONFIG and cluster-spec validation: the one place that knows what a valid cluster is.

Used by the static rules TFD602/TFD603 on literals in code and by ``distfix doctor`` on the live
``TF_CONFIG``. Pure Python: it never imports TensorFlow and never touches the network.
The checks follow what TensorFlow 2.21 really accepts (``multi_worker_util._validate_cluster_spec``
and the measured behaviour in the project's ground truth, section (i)).
"""

from __future__ import annotations

import ipaddress
import json
from dataclasses import dataclass
from typing import Any, NamedTuple

# Task types TensorFlow 2.21 accepts (MultiWorkerMirroredStrategy rejects any other).
TASK_TYPES = ("chief", "worker", "evaluator", "ps")
# Jobs TensorFlow allows at most one task in.
SINGLE_TASK_JOBS = ("chief", "evaluator")
LOOPBACK_HOSTS = frozenset({"localhost", "0.0.0.0", "::1", "ip6-localhost", "ip6-loopback"})


@dataclass(frozen=True)
class ClusterProblem:
    """One defect: the rule code it belongs to, a short kind, a one-line message, and where.

    ``code`` is TFD602 (loopback misuse) or TFD603 (malformed spec); ``path`` is a JSON path
    into the TF_CONFIG such as ``cluster.worker[1]`` or ``task.index`` ("" for the whole text).
    """

    code: str
    kind: str
    message: str
    path: str = ""


class ClusterConfigReport(NamedTuple):
    """A parsed TF_CONFIG (None when it is not a JSON object) and its defects."""

    config: dict[str, Any] | None
    problems: list[ClusterProblem]

    @property
    def ok(self) -> bool:
        """True when the TF_CONFIG parsed and has no defect."""
        return self.config is not None and not self.problems


def _malformed(kind: str, message: str, path: str = "") -> ClusterProblem:
    return ClusterProblem("TFD603", kind, message, path)


def _loopback(kind: str, message: str, path: str = "") -> ClusterProblem:
    return ClusterProblem("TFD602", kind, message, path)


def parse_tf_config(text: str) -> ClusterConfigReport:
    """Parse a TF_CONFIG string and check it; invalid JSON is reported with its position."""
    if not text.strip():
        # TensorFlow treats an empty (set) TF_CONFIG as JSON and fails with "Expecting value".
        return ClusterConfigReport(
            None, [_malformed("empty", "TF_CONFIG is empty; unset it or give a JSON object with `cluster` and `task`")]
        )
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        message = (
            f"TF_CONFIG is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}{_json_hint(text, exc)}"
        )
        return ClusterConfigReport(None, [_malformed("invalid-json", message)])
    if not isinstance(value, dict):
        return ClusterConfigReport(
            None, [_malformed("not-an-object", "TF_CONFIG must be a JSON object with `cluster` and `task`")]
        )
    return ClusterConfigReport(value, check_cluster_config(value))


def _json_hint(text: str, exc: json.JSONDecodeError) -> str:
    """What to change, read from the text around the error (Python's message names the symptom)."""
    before = text[: exc.pos].rstrip()
    here = text[exc.pos : exc.pos + 1]
    word = text[exc.pos :].split(None, 1)[0] if text[exc.pos :].strip() else ""
    if before.endswith(",") and here in ("}", "]"):
        return "; remove the trailing comma before it (JSON allows none)"
    if here == "'":
        return "; JSON needs double quotes, not single quotes"
    for python, json_word in (("True", "true"), ("False", "false"), ("None", "null")):
        if word.startswith(python):
            return f"; write JSON's {json_word}, not Python's {python}"
    if "double quotes" in exc.msg and (here.isalpha() or here == "_"):
        return "; JSON needs double quotes around names"
    if "delimiter" in exc.msg and (before.endswith(("}", "]", '"')) or here == '"'):
        return "; a comma is missing before it"
    if exc.msg == "Extra data":
        return "; the object ends before this (an extra closing bracket?)"
    return ""


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
    """True for localhost, 127.0.0.0/8, ::1 and 0.0.0.0 (which remote workers cannot reach either)."""
    if host.lower() in LOOPBACK_HOSTS:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def _address_problems(where: str, address: object) -> tuple[list[ClusterProblem], str | None, str | None]:
    """Defects of one ``host:port`` entry, and its host and port text when it is a string."""
    if not isinstance(address, str):
        return [_malformed("not-a-string", f'{where} must be a "host:port" string, not {address!r}', where)], None, None
    host, port = split_address(address)
    if not host:
        return (
            [_malformed("missing-host", f'{where} {address!r} has no host; write "HOST:{port or "PORT"}"', where)],
            host,
            port,
        )
    if port is None or port == "":
        fix = 'write "[ADDRESS]:PORT" for IPv6' if ":" in host else f'write "{host}:PORT"'
        return [_malformed("missing-port", f"{where} {address!r} has no port; {fix}", where)], host, None
    if not port.isdigit():
        return (
            [
                _malformed(
                    "non-numeric-port",
                    f"{where} {address!r} has a non-numeric port {port!r}; use a number 1-65535",
                    where,
                )
            ],
            host,
            None,
        )
    if not 0 < int(port) < 65536:
        return (
            [_malformed("port-out-of-range", f"{where} {address!r}: port {port} is outside 1-65535", where)],
            host,
            None,
        )
    return [], host, port


# Second-level domains RFC 2606 reserves for documentation and examples.
_DOCUMENTATION_DOMAINS = ("example.com", "example.net", "example.org")
# Characters that mark a template slot in a documented or redacted address ("<worker-ip>:port", "{host}:2222").
_SLOT_MARKS = ("<", ">", "{", "}", "$", "...")


def is_placeholder(address: object) -> bool:
    """True for an address that stands for one to fill in: a ``<slot>``/``{slot}``/``$VAR`` in it,
    a port written as the word "port" (``host:port``, ``worker0:PORT``) or as ``xxxx``, or a host
    in a domain reserved for documentation (``worker0.example.com:2222``)."""
    if not isinstance(address, str):
        return False
    if any(mark in address for mark in _SLOT_MARKS):
        return True
    host, port = split_address(address)
    if _documentation_host(host):
        return True
    word = (port or "").lower()
    # "port", "PORT_NUMBER", "xxxx": a slot's name. Another word ("http") is a real mistake.
    return "port" in word or (len(word) > 1 and set(word) <= {"x", "n"})


def _documentation_host(host: str) -> bool:
    """``host`` is in example.com, example.net or example.org, which RFC 2606 reserves for
    documentation: nobody's cluster runs there. (The reserved top-level names `.example` and `.test`
    are left out: as a Kubernetes `service.namespace` name they can be real.)"""
    name = host.lower().rstrip(".")
    return any(name == domain or name.endswith("." + domain) for domain in _DOCUMENTATION_DOMAINS)


def check_cluster(cluster: object) -> list[ClusterProblem]:
    """Defects of a cluster dict ``{"worker": ["host:port", ...], ...}`` (a ``tf.train.ClusterSpec`` argument)."""
    prefix = "cluster"
    if not isinstance(cluster, dict) or not cluster:
        return [
            _malformed(
                "missing-cluster",
                'the cluster spec must be a non-empty object mapping task types to "host:port" lists',
                prefix,
            )
        ]
    problems: list[ClusterProblem] = []
    seen: dict[tuple[str, str], str] = {}  # (host or "loopback", port) -> first position
    loopback: list[str] = []
    remote: list[str] = []
    placeholders: list[str] = []  # redacted entries such as "<worker-ip>:port": one problem for all
    for job, addresses in cluster.items():
        job_path = f"{prefix}.{job}"
        if job not in TASK_TYPES:
            problems.append(
                _malformed(
                    "unknown-task-type",
                    f"unknown task type {job!r} in the cluster; valid types are {', '.join(TASK_TYPES)}",
                    job_path,
                )
            )
        if isinstance(addresses, dict):  # TensorFlow also accepts {index: "host:port"}
            addresses = list(addresses.values())
        if not isinstance(addresses, list) or not addresses:
            problems.append(
                _malformed("empty-job", f'job {job!r} must list at least one "host:port" address', job_path)
            )
            continue
        if job in SINGLE_TASK_JOBS and len(addresses) > 1:
            problems.append(
                _malformed(
                    f"several-{job}s",
                    f"job {job!r} has {len(addresses)} tasks; TensorFlow allows at most one {job}",
                    job_path,
                )
            )
        for position, address in enumerate(addresses):
            where = f"{job}[{position}]"
            if is_placeholder(address):
                placeholders.append(address)
                continue
            found, host, port = _address_problems(where, address)
            for problem in found:
                problems.append(ClusterProblem(problem.code, problem.kind, problem.message, f"{prefix}.{where}"))
            if not host:
                continue
            (loopback if is_loopback(host) else remote).append(where)
            if port is None:
                continue
            key = ("loopback" if is_loopback(host) else host.lower(), port)
            if key not in seen:
                seen[key] = where
            elif key[0] == "loopback":
                problems.append(
                    _loopback(
                        "loopback-same-port",
                        f"{where} {address!r} is the same loopback port as {seen[key]}: "
                        "tasks on one machine need distinct ports",
                        f"{prefix}.{where}",
                    )
                )
                # A duplicate is a malformed spec whatever the host (TensorFlow cannot start two
                # servers on one port): TFD603 too, which also keeps TFD601 from emitting a launcher.
                problems.append(
                    _malformed(
                        "duplicate-address",
                        f"{where} repeats the address of {seen[key]} ({address!r} is the same loopback port); every "
                        "task needs its own host:port",
                        f"{prefix}.{where}",
                    )
                )
            else:
                problems.append(
                    _malformed(
                        "duplicate-address",
                        f"{where} repeats {address!r} (also {seen[key]}); every task needs its own host:port",
                        f"{prefix}.{where}",
                    )
                )
    if placeholders:
        more = f" and {len(placeholders) - 1} more" if len(placeholders) > 1 else ""
        problems.append(
            _malformed(
                "placeholder",
                f"the cluster spec holds placeholders, not addresses ({placeholders[0]!r}{more}); write each "
                "task's real host:port, or read TF_CONFIG from the launcher's environment",
                prefix,
            )
        )
    if loopback and remote:
        problems.append(
            _loopback(
                "loopback-mixed",
                f"{', '.join(loopback)} use a loopback address while {', '.join(remote)} are other hosts: remote "
                "workers cannot reach a loopback address; use this machine's network name or address",
                prefix,
            )
        )
    return problems


def _task_problems(task: object, cluster: object) -> list[ClusterProblem]:
    if not isinstance(task, dict):
        return [_malformed("bad-task", '`task` must be an object like {"type": "worker", "index": 0}', "task")]
    problems: list[ClusterProblem] = []
    task_type, index = task.get("type"), task.get("index")
    jobs = cluster if isinstance(cluster, dict) else {}
    if task_type not in TASK_TYPES:
        problems.append(
            _malformed(
                "unknown-task-type", f"task type {task_type!r} is not one of {', '.join(TASK_TYPES)}", "task.type"
            )
        )
    elif jobs and task_type not in jobs and task_type != "evaluator":  # TF lets an evaluator sit outside the cluster
        problems.append(
            _malformed(
                "task-not-in-cluster",
                f"task type {task_type!r} has no job in the cluster; add it or fix the type",
                "task.type",
            )
        )
    if isinstance(index, str) and index.isdigit():
        # TensorFlow 2.21 takes a digit string as the index: two workers given "0" and "1" form
        # their cluster (benchmarks/probe_cluster_specs.py), so it is checked as the number it is.
        index = int(index)
    if not isinstance(index, int) or isinstance(index, bool):
        problems.append(
            _malformed("index-not-int", f"task index {index!r} must be a non-negative integer", "task.index")
        )
    elif isinstance(jobs.get(task_type), (list, dict)):
        size = len(jobs[task_type])
        if size and not 0 <= index < size:
            problems.append(
                _malformed(
                    "index-out-of-range",
                    f"task index {index} is out of range: job {task_type!r} has {size} task(s), indices 0-{size - 1}",
                    "task.index",
                )
            )
    return problems


def is_no_cluster(text: object) -> bool:
    """True for a TF_CONFIG text that is the empty object ``{}``: TensorFlow 2.21 reads it as no
    cluster at all, like an unset TF_CONFIG, and runs one local worker (measured:
    ``benchmarks/probe_empty_tf_config.py``). Launchers set it on purpose after starting workers."""
    if not isinstance(text, str):
        return False
    try:
        return bool(json.loads(text) == {})
    except json.JSONDecodeError:
        return False


def check_cluster_config(config: dict[str, Any]) -> list[ClusterProblem]:
    """Defects of a parsed TF_CONFIG object: its cluster, its task type and index, and loopback use.

    The empty object has none: it says "no cluster", a single local worker (``is_no_cluster``)."""
    if not config:
        return []
    problems: list[ClusterProblem] = []
    if "cluster" not in config:
        problems.append(
            _malformed(
                "missing-cluster",
                'TF_CONFIG has no `cluster`: add {"cluster": {"worker": ["host:port", ...]}}',
                "cluster",
            )
        )
    else:
        problems.extend(check_cluster(config["cluster"]))
    if config.get("task") is None:
        problems.append(
            _malformed(
                "missing-task",
                'TF_CONFIG has no `task`: add {"task": {"type": "worker", "index": N}} for this process',
                "task",
            )
        )
    else:
        problems.extend(_task_problems(config["task"], config.get("cluster")))
    return problems


def is_template(text: object) -> bool:
    """True for a TF_CONFIG text whose every cluster address is a template slot
    (``"<worker-ip>:port"``, ``"IP1:PORT1"``): a redacted or documented spec, not a cluster; TFD603
    reports it once for the whole spec."""
    if not isinstance(text, str):
        return False
    config = parse_tf_config(text).config
    cluster = config.get("cluster") if config else None
    if not isinstance(cluster, dict):
        return False
    jobs = [list(a.values()) if isinstance(a, dict) else a for a in cluster.values()]
    addresses = [a for job in jobs if isinstance(job, list) for a in job]
    return bool(addresses) and all(is_placeholder(a) for a in addresses)


def launcher_problem(text: str) -> str | None:
    """Why a literal TF_CONFIG cannot become one launch script per task (None when it can).

    Launch scripts keep the cluster and write each task's own type and index, so only the
    cluster matters: it must parse and have no TFD603 defect (a loopback mix is only a warning).
    """
    report = parse_tf_config(text)
    if report.config is None:
        return report.problems[0].message if report.problems else "TF_CONFIG is not a JSON object"
    cluster = report.config.get("cluster")
    if not isinstance(cluster, dict) or not cluster:
        return "TF_CONFIG has no `cluster`"
    defects = [p for p in check_cluster(cluster) if p.code == "TFD603"]
    return defects[0].message if defects else None
