"""One Ray session for a run: a private local Ray started and stopped around it, or a cluster joined.

Ray is an optional extra (``pip install 'distfix[ray]'``) and heavy to import, so it is imported
only inside ``ray_session``; static commands never reach it.
"""

from __future__ import annotations

import os
import shutil
import socket
import sys
import tempfile
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from fixer.ray_start import STARTUP_ATTEMPTS, STARTUP_TIMEOUT_TEXT, init_ray

if TYPE_CHECKING:
    from collections.abc import Iterator

INSTALL_HINT = "Ray is not installed: install 'distfix[ray]'"
# Read by Ray when it is imported: with it off, a local Ray puts every process on 127.0.0.1
# (the mode Ray uses on macOS and Windows) instead of the host's reachable address.
_LOOPBACK_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
# Ray retries an unreachable cluster for minutes: the address is tried first, this long at most.
CONNECT_SECONDS = 15.0
# Validation moves only small dumps through the object store; Ray's default takes 30% of the RAM.
OBJECT_STORE_BYTES = 128 * 1024 * 1024
_QUIET = {"RAY_USAGE_STATS_ENABLED": "0", _LOOPBACK_SWITCH: "0"}


class RaySessionError(Exception):
    """Ray is missing or the cluster cannot be started or joined; the message is one line for the user."""


def import_ray() -> Any:
    """The ``ray`` module, or RaySessionError telling how to install it."""
    try:
        import ray
    except ImportError:
        raise RaySessionError(INSTALL_HINT) from None
    return ray


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextmanager
def _loopback() -> Iterator[None]:
    """Ray on 127.0.0.1 only, also when Ray was imported before the switch was set; restored after,
    so a later session that joins a cluster finds this host's reachable address again."""
    constants: Any = sys.modules.get("ray._private.ray_constants")  # Any: Ray ships no types for it
    saved = getattr(constants, "ENABLE_RAY_CLUSTER", None)
    with _environment(_QUIET):
        if constants is not None:
            constants.ENABLE_RAY_CLUSTER = False
        try:
            yield
        finally:
            if constants is not None:
                constants.ENABLE_RAY_CLUSTER = saved


@contextmanager
def ray_session(address: str | None, *, num_cpus: int | None = None) -> Iterator[Any]:
    """Connect to Ray for the duration of the block; yields the ``ray`` module.

    ``None`` starts a private local Ray bound to 127.0.0.1 (no dashboard, no usage stats, its
    files in a temporary folder) and shuts it down after, with every process it started;
    ``num_cpus`` is its logical CPU count (more than the machine has is fine: Ray only counts).
    ``"auto"`` joins the cluster RAY_ADDRESS names (or the one running on this host); any
    other value is the address of a cluster to join. When the process is already connected
    (a caller opened a session around several validations), that connection is used as it is.
    """
    ray = import_ray()
    if ray.is_initialized():
        yield ray
        return
    if address is None:
        with _start_local(ray, num_cpus):
            yield ray
        return
    _check_reachable(address)
    try:
        ray.init(address=address, configure_logging=False, log_to_driver=False)
    except Exception as exc:  # Ray raises ConnectionError, ValueError or RuntimeError here
        raise RaySessionError(f"cannot join the Ray cluster at {address!r}: {exc}") from None
    try:
        yield ray
    finally:
        ray.shutdown()  # disconnects only: the cluster is not ours to stop


def _check_reachable(address: str) -> None:
    """RaySessionError at once when the cluster's HOST:PORT (or RAY_ADDRESS's, for ``auto``) does not answer."""
    target = os.environ.get("RAY_ADDRESS", "") if address == "auto" else address
    host, _, port = target.rpartition(":")
    if "://" in target or not host or not port.isdigit():
        return  # a Ray client address, or a form Ray resolves itself: Ray's own checks apply
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_SECONDS).close()
    except OSError as exc:
        raise RaySessionError(f"cannot join the Ray cluster at {target!r}: {exc.strerror or exc}") from None


@contextmanager
def _start_local(ray: Any, num_cpus: int | None) -> Iterator[None]:
    # Ray's socket paths must stay short (107 bytes on Linux): a folder of its own in the temp root.
    folder = tempfile.mkdtemp(prefix="distfix-ray-")
    try:
        with _loopback():
            _init_local(ray, num_cpus, folder)
            try:
                yield
            finally:
                ray.shutdown()  # the driver that started the head stops its processes
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _init_local(ray: Any, num_cpus: int | None, folder: str) -> None:
    """Start a local Ray head, again when its start timed out (``ray_start.init_ray``)."""
    try:
        init_ray(
            ray,
            address="local",  # a new node even where RAY_ADDRESS names a cluster (Ray would join it)
            num_cpus=num_cpus,
            object_store_memory=OBJECT_STORE_BYTES,
            include_dashboard=False,
            configure_logging=False,
            log_to_driver=False,
            _temp_dir=folder,
        )
    except Exception as exc:
        tries = f" ({STARTUP_ATTEMPTS} attempts)" if STARTUP_TIMEOUT_TEXT in str(exc) else ""
        raise RaySessionError(f"cannot start a local Ray{tries}: {exc}") from None
