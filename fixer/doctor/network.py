"""Live checks of a TF_CONFIG: does every address resolve, is this task's address this machine,
and does every other task's port accept a connection. Only the addresses the TF_CONFIG names
are contacted, each with a bounded timeout; nothing is scanned."""

from __future__ import annotations

import concurrent.futures
import socket

from fixer.clusterspec import is_loopback, split_address
from fixer.doctor.report import Problem


def _resolve(host: str, timeout: float) -> set[str] | None:
    """The IP addresses of ``host``, or None when it does not resolve within ``timeout``."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(socket.getaddrinfo, host, None)
        try:
            return {info[4][0] for info in future.result(timeout=timeout)}
        except (socket.gaierror, concurrent.futures.TimeoutError, OSError):
            return None


def local_addresses() -> set[str]:
    """Addresses that mean "this machine": loopback, the hostname's and the FQDN's addresses."""
    addresses = {"127.0.0.1", "::1", "0.0.0.0"}
    for name in {socket.gethostname(), socket.getfqdn()}:
        try:
            addresses |= {info[4][0] for info in socket.getaddrinfo(name, None)}
        except OSError:
            continue
    return addresses


def port_accepts(host: str, port: int, timeout: float) -> bool:
    """True when a TCP connection to ``host:port`` succeeds within ``timeout`` seconds."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def live_checks(config: dict, timeout: float) -> tuple[list[Problem], list[str]]:
    """Problems and passed checks for the addresses of a parsed, well-formed TF_CONFIG."""
    problems: list[Problem] = []
    passed: list[str] = []
    cluster = config.get("cluster", {})
    task = config.get("task", {})
    own = (task.get("type"), task.get("index"))
    here = local_addresses()
    for job, addresses in cluster.items():
        for index, address in enumerate(addresses):
            host, port_text = split_address(address)
            resolved = _resolve(host, timeout)
            name = f"{job}[{index}] {address}"
            if resolved is None:
                problems.append(Problem("error", "resolve", f"{name}: host {host!r} does not resolve; fix the name or use an IP address"))
                continue
            if (job, index) == own:
                if is_loopback(host) or resolved & here:
                    passed.append(f"{name} is this machine (this task)")
                else:
                    problems.append(
                        Problem(
                            "error",
                            "own-address",
                            f"{name} is this task's address, but it resolves to {', '.join(sorted(resolved))}, not to this "
                            "machine: the task index or the host is wrong",
                        )
                    )
                continue
            if port_text is None or not port_text.isdigit():
                continue  # reported by the static checks
            if port_accepts(host, int(port_text), timeout):
                passed.append(f"{name} accepts connections")
            else:
                problems.append(
                    Problem(
                        "warning",
                        "port",
                        f"{name}: nothing accepts connections on port {port_text} (not started yet, or a firewall); "
                        "the cluster forms only when every task listens",
                    )
                )
    return problems, passed
