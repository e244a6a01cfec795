"""Whether the TF_CONFIG clusters a project sets put every task on a host of its own.

TFD502 is about workers racing on one set of files. When each task of the cluster runs on its
own machine (every address names a different host), a local absolute path such as `/tmp/model`
is a different folder on each worker: nothing races. The clusters are read where the project
sets them: the script's own literal TF_CONFIG (a dict or JSON text) and the literal TF_CONFIG
texts of the launchers that start it (a shell script's `export TF_CONFIG='{...}'`, its task index
perhaps a shell variable). A loopback
host, one host with several ports, a placeholder address or a TF_CONFIG that cannot be read
leaves the question open (the save stays reported).
"""

from __future__ import annotations

import json
import re

from fixer.clusterspec import is_loopback, is_placeholder, split_address

# `TF_CONFIG=` followed by a quoted shell word: `'...'` (taken as is) or `"..."` (with `\"` escapes).
_SHELL_TF_CONFIG = re.compile(r"""TF_CONFIG\s*=\s*(?:'(?P<single>[^']*)'|"(?P<double>(?:[^"\\]|\\.)*)")""", re.DOTALL)


def shell_tf_configs(text: str) -> tuple[str, ...]:
    """The TF_CONFIG texts a launcher's text assigns as quoted shell words, in order."""
    found = []
    for match in _SHELL_TF_CONFIG.finditer(text):
        single = match.group("single")
        found.append(single if single is not None else re.sub(r"\\(.)", r"\1", match.group("double")))
    return tuple(found)


def every_task_on_its_own_host(tf_configs: list[str]) -> bool:
    """True when ``tf_configs`` is not empty and each one is JSON whose cluster has at least two
    tasks, every address a real, non-loopback host, no host named twice."""
    return bool(tf_configs) and all(_own_hosts(text) for text in tf_configs)


def _cluster(text: str) -> object:
    """The ``cluster`` object of a TF_CONFIG text; when the whole text is not JSON (a launcher
    that fills the task index from a shell variable, `"index": $1`), the object after `"cluster":`
    on its own. None when neither reads."""
    try:
        config = json.loads(text)
    except ValueError:
        key = text.find('"cluster"')
        start = text.find("{", key) if key >= 0 else -1
        if start < 0:
            return None
        try:
            return json.JSONDecoder().raw_decode(text, start)[0]
        except ValueError:
            return None
    return config.get("cluster") if isinstance(config, dict) else None


def _own_hosts(text: str) -> bool:
    cluster = _cluster(text)
    if not isinstance(cluster, dict):
        return False
    addresses: list[object] = []
    for tasks in cluster.values():
        if isinstance(tasks, dict):
            addresses.extend(tasks.values())
        elif isinstance(tasks, list):
            addresses.extend(tasks)
        else:
            return False
    hosts = []
    for address in addresses:
        if not isinstance(address, str) or is_placeholder(address):
            return False
        host, _ = split_address(address)
        if not host or is_loopback(host):
            return False
        hosts.append(host.lower())
    return len(hosts) >= 2 and len(set(hosts)) == len(hosts)
