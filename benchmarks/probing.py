"""What the probes (``probe_*.py``) share: their entry point, running a probe once per Keras flavour, the two-replica
strategy they measure on, printing each case's outcome, free local ports for worker clusters, and
a case run by two worker processes of one MultiWorkerMirroredStrategy cluster.

A probe that measures Keras behaviour runs its own file again with the flavour as its argument,
once per flavour, each in a fresh process: the flavour is fixed when TensorFlow is imported.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

# (label printed before each case, TF_USE_LEGACY_KERAS value)
KERAS_FLAVOURS = (("keras 3", "0"), ("tf-keras", "1"))


def rerun_per_keras(script: str) -> None:
    """Run ``python script FLAVOUR`` on the CPU once per Keras flavour; its output goes to ours."""
    for flavour, legacy in KERAS_FLAVOURS:
        env = dict(os.environ, TF_USE_LEGACY_KERAS=legacy, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
        subprocess.run([sys.executable, script, flavour], env=env, check=False)


def main_per_keras(script: str, measure: Callable[[str], None]) -> None:
    """A probe's entry point: without an argument, rerun ``script`` once per Keras flavour; with one
    (the flavour, as :func:`rerun_per_keras` passes it), ``measure`` under that flavour."""
    if len(sys.argv) > 1:
        measure(sys.argv[1])
    else:
        rerun_per_keras(script)


def two_cpu_replicas(tf):  # noqa: ANN001, ANN201 - `tf` is the module the probe imported
    """A MirroredStrategy over two logical CPUs (call before any other TensorFlow operation)."""
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    return tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


def last_error_line(exc: Exception, width: int = 150) -> str:
    """The exception's type and its last non-blank line (errors raised while tracing start with
    "in user code:"; the cause is the last line), cut to ``width`` characters."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {(lines[-1] if lines else '')[:width]}"


def first_error_line(exc: Exception, width: int = 160) -> str:
    """The exception's type and its first non-blank line, cut to ``width`` characters (errors
    raised eagerly state their cause first)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {(lines[0] if lines else '')[:width]}"


def print_outcomes(
    flavour: str, cases: Iterable[tuple[str, Callable[[], str]]], describe: Callable[[Exception], str] = last_error_line
) -> None:
    """Run each ``(label, case)`` and print ``flavour | label: outcome``; an exception is an outcome."""
    for label, case in cases:
        try:
            outcome = case()
        except Exception as exc:  # the probe records what fails, whatever it is
            outcome = describe(exc)
        print(f"{flavour} | {label}: {outcome}", flush=True)


def free_ports(count: int) -> list[int]:
    """``count`` local ports nothing listens on now (for a cluster of worker processes)."""
    sockets = [socket.socket() for _ in range(count)]
    for sock in sockets:
        sock.bind(("localhost", 0))
    ports = [sock.getsockname()[1] for sock in sockets]
    for sock in sockets:
        sock.close()
    return ports


def two_worker_outcomes(script: str, case: str, legacy: str, limit_s: float) -> list[str]:
    """Run ``python script CASE INDEX DIRECTORY`` as workers 0 and 1 of one cluster on 127.0.0.1
    (free ports, its TF_CONFIG in each worker's environment, ``TF_USE_LEGACY_KERAS=legacy``, CPU
    only), sharing a fresh temporary DIRECTORY. Each worker's outcome, in index order: what it
    printed, else the last error line it wrote, else ``hung`` when it is not done ``limit_s``
    seconds after the start (it is killed: a collective whose peer is gone may wait forever)."""
    hosts = [f"127.0.0.1:{port}" for port in free_ports(2)]
    with tempfile.TemporaryDirectory() as directory:
        workers = []
        for index in range(2):
            config = {"cluster": {"worker": hosts}, "task": {"type": "worker", "index": index}}
            env = dict(os.environ, TF_USE_LEGACY_KERAS=legacy, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
            env["TF_CONFIG"] = json.dumps(config)
            command = [sys.executable, script, case, str(index), directory]
            with (
                open(os.path.join(directory, f"out{index}"), "w") as out,
                open(os.path.join(directory, f"err{index}"), "w") as err,
            ):
                workers.append(subprocess.Popen(command, env=env, stdout=out, stderr=err))
        deadline = time.monotonic() + limit_s
        outcomes = []
        for index, worker in enumerate(workers):
            try:
                worker.wait(timeout=max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
                outcomes.append(f"hung: still running after {limit_s} s, killed")
                continue
            with open(os.path.join(directory, f"out{index}"), encoding="utf-8", errors="replace") as out:
                printed = out.read().strip()
            outcomes.append(printed or _last_error_written(os.path.join(directory, f"err{index}")))
        return outcomes


def _last_error_written(path: str) -> str:
    """The last line of the file at ``path`` that names an error and is not indented (a traceback's
    last line, or a log line of the runtime), cut to 170 characters."""
    with open(path, encoding="utf-8", errors="replace") as err:
        lines = [line.strip() for line in err if "Error" in line and not line.startswith(" ")]
    return lines[-1][:170] if lines else "no error printed"


def in_process_parameter_server_strategy(tf):  # noqa: ANN001, ANN201 - `tf` is the module the probe imported
    """A ParameterServerStrategy coordinator over an in-process cluster of one worker and one
    parameter server on loopback, as TensorFlow's parameter-server tutorial builds it. Its servers
    never stop: the probe's process ends with ``os._exit``."""
    worker, ps = free_ports(2)
    spec = tf.train.ClusterSpec({"worker": [f"localhost:{worker}"], "ps": [f"localhost:{ps}"]})
    for job in ("worker", "ps"):
        tf.distribute.Server(spec, job_name=job, task_index=0, protocol="grpc", start=True)
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(spec, rpc_layer="grpc")
    return tf.distribute.ParameterServerStrategy(resolver)
