"""The TF_CONFIGs a project's docker-compose files give the containers that run its scripts.

A multi-worker exercise on several machines is often one container per machine, each started
from the same compose file whose service sets `TF_CONFIG` in its `environment:` (a mapping,
`TF_CONFIG: '{"cluster": ...}'`, or a list entry, `- TF_CONFIG={...}`). For TFD502
(fixer/tf/save_locations.py) such a cluster counts like one a README writes
(fixer/tf/readme_clusters.py): when every task is on a host of its own, a relative path is each
container's own folder. Tied conservatively: only a compose file in the script's folder or a
folder above it within the project root, only a service whose image is built from a folder that
holds the script (`build: .` or `build: {context: ...}`), that mounts no volume (a folder of the
host shared by its containers may hold the path) and only for a multi-worker script.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from fixer.sources import SourceError, open_regular
from fixer.target.yaml_lines import YamlLine, block, yaml_lines
from fixer.tf.readme_clusters import folders_above, multi_worker_script

if TYPE_CHECKING:
    from collections.abc import Iterator

COMPOSE_NAME = re.compile(r"^(?:docker-)?compose(?:[.-][\w.-]+)?\.ya?ml$")
_LIST_ENTRY = re.compile(r"""^-\s+(?P<quote>["']?)TF_CONFIG=(?P<value>.*?)(?P=quote)$""")
_MAX_BYTES = 500_000


def compose_tf_configs(script: str, root: str) -> tuple[list[str], list[str]]:
    """The TF_CONFIG texts of the compose services that run ``script``, and the compose files
    they come from (dependencies of the result)."""
    script = os.path.abspath(script)
    if not multi_worker_script(script):
        return [], []
    configs: list[str] = []
    tied: list[str] = []
    for folder in folders_above(script, os.path.abspath(root)):
        for path in _compose_files(folder):
            found = list(_service_configs(path, script))
            if found:
                configs += found
                tied.append(path)
    return configs, tied


def _compose_files(folder: str) -> Iterator[str]:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return
    for name in names:
        if COMPOSE_NAME.match(name):
            yield os.path.join(folder, name)


def _service_configs(path: str, script: str) -> Iterator[str]:
    """The TF_CONFIG of each service of the compose file ``path`` built from a folder holding
    ``script`` and mounting no volume."""
    text = _text(path)
    if text is None:
        return
    lines = yaml_lines(text)
    services = next((i for i, line in enumerate(lines) if line.indent == 0 and line.key == "services"), None)
    if services is None:
        return
    body = block(lines, services)[1:]
    if not body:
        return
    service_indent = body[0].indent
    for index, line in enumerate(body):
        if line.indent != service_indent or line.key is None:
            continue
        service = block(body, index)[1:]
        keys = {entry.key for entry in service if entry.indent == service[0].indent} if service else set()
        context = _build_context(service)
        if "volumes" in keys or context is None:
            continue
        folder = os.path.normpath(os.path.join(os.path.dirname(path), context))
        if not script.startswith(folder.rstrip(os.sep) + os.sep):
            continue
        yield from _environment(service)


def _build_context(service: list[YamlLine]) -> str | None:
    """The folder a service's image is built from (`build: .`, or `context:` under `build:`)."""
    for index, line in enumerate(service):
        if line.key != "build" or line.indent != service[0].indent:
            continue
        if line.value:
            return _unquoted(line.value)
        nested = block(service, index)[1:]
        return next((_unquoted(entry.value) for entry in nested if entry.key == "context"), ".")
    return None


def _environment(service: list[YamlLine]) -> Iterator[str]:
    """The TF_CONFIG values under a service's `environment:` key."""
    for index, line in enumerate(service):
        if line.key != "environment" or line.indent != service[0].indent:
            continue
        for entry in block(service, index)[1:]:
            if entry.key == "TF_CONFIG" and not entry.item:
                yield _unquoted(entry.value)
            elif entry.item:
                match = _LIST_ENTRY.match(entry.text)
                if match:
                    yield match.group("value")


def _unquoted(value: str) -> str:
    """A YAML scalar as written: quotes removed (`''` in single quotes is one quote)."""
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return re.sub(r"\\(.)", r"\1", value[1:-1])
    return value


def _text(path: str) -> str | None:
    try:
        with open_regular(path) as handle:
            data = handle.read(_MAX_BYTES + 1)
    except (OSError, SourceError):
        return None
    return None if len(data) > _MAX_BYTES else data.decode("utf-8", errors="replace")
