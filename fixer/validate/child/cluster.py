"""Every address the script names is mapped to a port the validator picked (on 127.0.0.1, or on a Ray node).

TF_CONFIG written by the script, ``tf.train.ClusterSpec`` (which ``SimpleClusterResolver``,
``TFConfigClusterResolver`` and ``tf.distribute.Server`` all build on) and a resolver's
``master`` are rewritten, so the child never connects to an address the script names. Task
indices stay as written: a hard-coded cluster still fails the way it would, only locally.
"""

from __future__ import annotations

import json
import os
from typing import Any

from .state import DUMP, SETTINGS


def _local_addresses() -> set[str]:
    config = json.loads(SETTINGS.get("tf_config") or "{}")
    own = {a for addresses in config.get("cluster", {}).values() for a in addresses}
    return own | set(SETTINGS.get("address_map", {}).values())


def map_address(address: str) -> str:
    """The validator's port for ``address``; the validator's own addresses are kept."""
    mapping = SETTINGS.setdefault("address_map", {})
    if address in _local_addresses():
        return address
    if address not in mapping:
        spare = SETTINGS.get("spare_ports") or []
        # spare ports are free on the spare host (a Ray node; 127.0.0.1 for local runs)
        host = SETTINGS.get("spare_host", "127.0.0.1")
        mapping[address] = f"{host}:{spare.pop(0)}" if spare else "127.0.0.1:1"
    mapped: str = mapping[address]
    DUMP["addresses"][address] = mapped
    return mapped


def _rewrite_tf_config(value: Any) -> Any:
    try:
        config = json.loads(value)
    except (TypeError, ValueError):
        return value
    if not isinstance(config, dict) or not isinstance(config.get("cluster"), dict):
        return value
    config["cluster"] = {
        job: [map_address(a) for a in addresses] if isinstance(addresses, list) else addresses
        for job, addresses in config["cluster"].items()
    }
    return json.dumps(config)


def guard_environment() -> None:
    """Rewrite any TF_CONFIG the script sets (``os.environ[...]``, ``update``, ``putenv``)."""
    environ_class = type(os.environ)
    original_setitem = environ_class.__setitem__

    def setitem(self: Any, key: Any, value: Any) -> None:
        if key == "TF_CONFIG":
            value = _rewrite_tf_config(value)
        original_setitem(self, key, value)

    environ_class.__setitem__ = setitem  # type: ignore[method-assign]  # patching the class is the point
    original_putenv = os.putenv

    def putenv(key: Any, value: Any) -> None:
        # os.environ calls putenv too, with bytes: only the script's own str calls are rewritten.
        if key == "TF_CONFIG" and isinstance(value, str):
            value = _rewrite_tf_config(value)
        original_putenv(key, value)

    os.putenv = putenv


def _map_master(master: str) -> str:
    scheme, separator, address = master.rpartition("://")
    return f"{scheme}{separator}{map_address(address)}" if ":" in address else master


def guard_cluster_specs() -> None:
    """Map the addresses of every ``ClusterSpec`` and every ``SimpleClusterResolver`` master."""
    from tensorflow.python.distribute.cluster_resolver import cluster_resolver
    from tensorflow.python.training import server_lib

    spec_init = server_lib.ClusterSpec.__init__

    def init_spec(self: Any, cluster: Any) -> None:
        spec_init(self, cluster)
        self._cluster_spec = {
            job: {index: map_address(address) for index, address in tasks.items()}
            for job, tasks in self._cluster_spec.items()
        }
        self._make_cluster_def()

    server_lib.ClusterSpec.__init__ = init_spec
    resolver_init = cluster_resolver.SimpleClusterResolver.__init__

    def init_resolver(self: Any, *args: Any, **kwargs: Any) -> None:
        resolver_init(self, *args, **kwargs)
        if self._master:
            self._master = _map_master(self._master)

    cluster_resolver.SimpleClusterResolver.__init__ = init_resolver
