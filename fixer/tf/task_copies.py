"""Per-task copies of one program: sibling files that each set one task of a shared TF_CONFIG.

A project may hold one copy of a script or notebook per task of its cluster (`worker0.ipynb` ...
`worker3.ipynb`), each setting the same cluster in TF_CONFIG with its own `task.index`, run
together by hand. Those copies are the launch configuration: together they start every task of
the cluster. TFD601 does not report them; a lone script with a fixed index (copied and edited by
hand per machine) stays reported.

Told from the siblings' own TF_CONFIG (same folder, same kind of file, read with the same analysis
as the checked file, fixer/tf/tf_config_sources.py): they count when they set the same cluster and
task type, and their indices with this file's are exactly `0..N-1` for the N tasks of that type
(N >= 2). A notebook's code is its code cells. The copies may differ elsewhere (comments, a line
only the chief runs).
"""

from __future__ import annotations

import json
import os
from typing import Any

import libcst as cst

from fixer.sources import SourceError, open_regular

Stamp = tuple[int, int] | None  # as fixer.cache.Stamp (that module reaches the TF model)

_MAX_BYTES = 2_000_000  # as the launchers' reading: larger files are data, not copies of a program


def covers_cluster(path: str, cluster: object, task_type: str, index: int, consulted: dict[str, Stamp]) -> bool:
    """``path`` (task ``index`` of ``task_type`` in ``cluster``) has sibling files that set the same
    cluster and, with it, every index of that type; each sibling read is entered in ``consulted``
    with its stamp (an edit of it invalidates the answer)."""
    tasks = cluster.get(task_type) if isinstance(cluster, dict) else None
    if not isinstance(tasks, list) or len(tasks) < 2 or not 0 <= index < len(tasks):
        return False
    folder, extension = os.path.dirname(os.path.abspath(path)), os.path.splitext(path)[1]
    indices = {index}
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return False
    for name in names:
        sibling = os.path.join(folder, name)
        if not name.endswith(extension) or sibling == os.path.abspath(path):
            continue
        code = _code(sibling, consulted)
        if code is None or "TF_CONFIG" not in code:
            continue
        for config in _tf_configs(sibling, code):
            task = config.get("task")
            if config.get("cluster") == cluster and isinstance(task, dict) and task.get("type") == task_type:
                if isinstance(task.get("index"), int):
                    indices.add(task["index"])
    return indices == set(range(len(tasks)))


def _tf_configs(path: str, code: str) -> list[dict[str, Any]]:
    """The literal TF_CONFIGs ``code`` sets, as objects (what TFD601 reads in the checked file)."""
    # Imported here: the engine and the TF model build on this module's importers.
    from fixer.engine import build_context
    from fixer.tf.tf_config_sources import tf_config_of, tf_config_setters

    try:
        module = cst.parse_module(code)
    except cst.ParserSyntaxError:
        return []
    ctx = build_context(path, code, module)
    found = []
    for setter in tf_config_setters(ctx.tf):
        value = tf_config_of(ctx.tf, setter)
        try:
            data = json.loads(value) if isinstance(value, str) else None
        except ValueError:
            continue
        if isinstance(data, dict):
            found.append(data)
    return found


def _code(path: str, consulted: dict[str, Stamp]) -> str | None:
    """The program text of a sibling file (a notebook's combined code cells), or None."""
    from fixer.cache import file_stamp  # here: see Stamp
    from fixer.notebook import NotebookError, load_notebook  # here: the notebook reaches the TF model

    stamp = consulted[path] = file_stamp(path)
    if stamp is None or stamp[0] > _MAX_BYTES:
        return None
    try:
        with open_regular(path) as handle:
            text = handle.read().decode("utf-8", errors="replace")
    except (OSError, SourceError):
        return None
    if not path.endswith(".ipynb"):
        return text
    try:
        return load_notebook(text).combined
    except NotebookError:
        return None
