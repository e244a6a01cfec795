"""Live checks of a TF_CONFIG: does every address resolve, is this task's address this machine,
is this task's port free, and does every other task's port accept a connection.

Only the addresses the TF_CONFIG names are contacted, each with a bounded timeout; nothing is
scanned. Whether an address belongs to this machine is decided by binding to it (the kernel
refuses addresses that no local interface has), which sends no packet.
"""

from __future__ import annotations

import concurrent.futures
import errno
import socket
import threading
from typing import Any

from fixer.clusterspec import is_loopback, split_address
from fixer.doctor.report import Problem

# How many addresses are checked at once; each check is bounded, so the whole run is too.
PARALLEL = 16


def resolve(host: str, timeout: float) -> set[str] | None:
    """The IP addresses of ``host``, or None when it does not resolve within ``timeout`` seconds."""
    found: list[set[str]] = []

    def lookup() -> None:
        try:
            found.append({str(info[4][0]) for info in socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)})
        except (OSError, UnicodeError):
            pass

    # A daemon thread, not a pool: a resolver stuck past the timeout must not hold up the exit.
    thread = threading.Thread(target=lookup, daemon=True)
    thread.start()
    thread.join(timeout)
    return found[0] if found else None


def is_local_address(ip: str) -> bool:
    """True when ``ip`` is a loopback address or is assigned to one of this machine's interfaces."""
    if is_loopback(ip):
        return True
    family = socket.AF_INET6 if ":" in ip else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.bind((ip.split("%")[0], 0))
        return True
    except OSError:
        return False


def port_in_use(port: int) -> bool:
    """True when another process already listens on ``port`` here (TensorFlow binds 0.0.0.0:PORT)."""
    with socket.socket() as sock:
        # SO_REUSEADDR ignores connections lingering in TIME_WAIT, so only a live listener counts.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("0.0.0.0", port))
        except OSError as exc:
            return exc.errno == errno.EADDRINUSE
    return False


def port_accepts(host: str, port: int, timeout: float) -> bool:
    """True when a TCP connection to ``host:port`` succeeds within ``timeout`` seconds."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _check_own(name: str, host: str, port: str | None, resolved: set[str]) -> tuple[list[Problem], list[str]]:
    if not (is_loopback(host) or any(is_local_address(ip) for ip in resolved)):
        message = (
            f"{name} is this task's address, but it resolves to {', '.join(sorted(resolved))}, which is not this "
            "machine: the task type or index is wrong, or the host name is"
        )
        return [Problem("error", "own-address", message)], []
    passed = [f"{name} is this machine (this task)"]
    if port is not None and port.isdigit() and port_in_use(int(port)):
        message = (
            f"{name}: port {port} is already in use on this machine, so TensorFlow cannot start its server "
            '("Could not start gRPC server"); stop the process holding it (an earlier run?) or pick another port'
        )
        return [Problem("error", "own-port", message)], []
    return [], passed


def _check_one(name: str, address: str, own: bool, timeout: float, peers: bool) -> tuple[list[Problem], list[str]]:
    host, port = split_address(address)
    resolved = resolve(host, timeout)
    if resolved is None:
        return [
            Problem("error", "resolve", f"{name}: host {host!r} does not resolve; fix the name or use an IP address")
        ], []
    if own:
        return _check_own(name, host, port, resolved)
    if not peers:
        return [], [f"{name} resolves"]
    if port is None or not port.isdigit():
        return [], []  # reported by the static checks
    if port_accepts(host, int(port), timeout):
        return [], [f"{name} accepts connections"]
    message = (
        f"{name}: nothing accepts connections on port {port} within {timeout:g} s (not started yet, wrong "
        "port, or a firewall); the cluster forms only when every task listens"
    )
    return [Problem("warning", "port", message)], []


def live_checks(config: dict[str, Any], timeout: float, peers: bool = True) -> tuple[list[Problem], list[str]]:
    """Problems and passed checks for the addresses of a parsed, well-formed TF_CONFIG.

    With ``peers`` False the other tasks' ports are not connected to (a probe starts them later).
    """
    task = config.get("task", {})
    own = (task.get("type"), task.get("index"))
    jobs = []
    for job, addresses in config.get("cluster", {}).items():
        entries = addresses.values() if isinstance(addresses, dict) else addresses
        for index, address in enumerate(entries):
            jobs.append((f"{job}[{index}] {address}", address, (job, index) == own))
    problems: list[Problem] = []
    passed: list[str] = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(PARALLEL, max(1, len(jobs)))) as pool:
        for found, ok in pool.map(lambda job: _check_one(job[0], job[1], job[2], timeout, peers), jobs):
            problems.extend(found)
            passed.extend(ok)
    return problems, passed
