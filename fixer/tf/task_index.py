"""Which values of a file hold this process's own task number.

TFD502 asks it of a save path: a path built from the worker's number (``"model" + str(n)``,
``f"ckpt_{n}"``, ``os.path.join(d, str(n))``) is different on every worker, so nothing races.
Two sources say a value is that number:

- the file puts it into TF_CONFIG's ``task.index`` (``"task": {"type": "worker", "index": n}``),
  so the same binding of ``n`` that reaches the path is the task index;
- it is read from an environment variable whose name says it is the worker's number
  (``WORKER_NUMBER``, ``TASK_INDEX``, ``RANK``): a launcher that starts one process per worker
  gives each its own.

A host's name (``os.environ["SLURMD_NODENAME"]``, ``socket.gethostname()``) is not the task number
but differs per worker too where each host runs one worker (a Slurm job's one task per node, a
pod): :func:`reads_host_name`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.dataflow import value_names
from fixer.tf.tf_config_sources import is_environ, literal_value, tf_config_setters

if TYPE_CHECKING:
    from fixer.semantic.bindings import Binding
    from fixer.tf.model import TFModel

# An environment variable named for the worker's own number: `RANK`, `WORKER_NUMBER`, `TASK_INDEX`,
# `NODE_ID`, `OMPI_COMM_WORLD_RANK` (a word of the name, not a substring: `FRANK` is not one).
_NUMBER_VARIABLE = re.compile(
    r"(?:^|_)(?:RANK|(?:WORKER|TASK|REPLICA|NODE|PROCESS)_?(?:INDEX|IDX|ID|NUM|NUMBER|NO|RANK))(?:$|_)"
)
_DEPTH = 3
# The name of the host this process runs on: Slurm's node name for the step, the shell's (and a
# pod's) `HOSTNAME`; and the calls that return it.
_HOST_VARIABLES = frozenset({"SLURMD_NODENAME", "HOSTNAME"})
_HOST_CALLS = frozenset({"socket.gethostname", "platform.node"})


def task_index_sources(tf: TFModel) -> set[Binding]:
    """The bindings whose value the file puts into TF_CONFIG's ``task.index``, directly or through
    the names that value is computed from (``i = int(n)``, ``"index": i`` gives both ``i`` and ``n``)."""
    found: set[Binding] = set()
    for setter in tf_config_setters(tf):
        for index in _index_values(tf, setter.value, 0):
            _collect(tf, index, found, 0)
    return found


def holds_task_index(tf: TFModel, expr: cst.BaseExpression, sources: set[Binding]) -> bool:
    """True when ``expr`` reads the task number: a name whose reaching binding is one of ``sources``
    (see :func:`task_index_sources`), or an environment variable named for the worker's number."""
    for name in value_names(expr):
        if any(b in sources for b in tf.semantic.reaching(name, expr)):
            return True
    return any(_NUMBER_VARIABLE.search(key.upper()) for key in _environ_keys(tf, expr))


def reads_host_name(tf: TFModel, expr: cst.BaseExpression) -> bool:
    """True when ``expr`` reads this host's name (``os.environ["SLURMD_NODENAME"]``,
    ``socket.gethostname()``): a path built on it differs per host."""
    if any(key.upper() in _HOST_VARIABLES for key in _environ_keys(tf, expr)):
        return True
    return any(tf.index.is_within(c, expr) and tf.names.qualified(c.func) in _HOST_CALLS for c in tf.index.calls)


def _collect(tf: TFModel, expr: cst.BaseExpression, found: set[Binding], depth: int) -> None:
    """Add the bindings of the names ``expr`` reads, and of the names their values read."""
    for name in value_names(expr):
        for held in tf.semantic.reaching(name, expr):
            if held in found:
                continue
            found.add(held)
            if held.value is not None and depth < _DEPTH:
                _collect(tf, held.value, found, depth + 1)


def _index_values(tf: TFModel, expr: cst.BaseExpression, depth: int) -> list[cst.BaseExpression]:
    """The expressions under a ``"task"`` key's ``"index"`` in a TF_CONFIG value: a dict literal or
    ``dict(...)`` call, inside ``json.dumps(...)`` or bound to a name the value reads."""
    found: list[cst.BaseExpression] = []
    for task in _items(tf, expr, "task"):
        found += _items(tf, task, "index")
    if found or depth >= _DEPTH:
        return found
    if isinstance(expr, cst.Call):
        for arg in expr.args:
            found += _index_values(tf, arg.value, depth + 1)
    elif isinstance(expr, cst.Name):
        for held in tf.semantic.reaching(expr.value, expr):
            if held.value is not None:
                found += _index_values(tf, held.value, depth + 1)
    return found


def _items(tf: TFModel, expr: cst.BaseExpression, key: str) -> list[cst.BaseExpression]:
    """The values under ``key`` in a dict literal or a ``dict(key=...)`` call."""
    if isinstance(expr, cst.Dict):
        return [e.value for e in expr.elements if isinstance(e, cst.DictElement) and literal_value(tf, e.key) == key]
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "dict":
        return [a.value for a in expr.args if a.keyword is not None and a.keyword.value == key]
    return []


def _environ_keys(tf: TFModel, expr: cst.BaseExpression) -> list[str]:
    """The environment variables ``expr`` reads: ``os.environ["K"]``, ``os.environ.get("K")``,
    ``os.getenv("K")``."""
    keys: list[cst.BaseExpression] = []
    for attribute in tf.index.attributes:
        if not tf.index.is_within(attribute, expr) or not is_environ(tf, attribute):
            continue
        parent = tf.index.parent.get(attribute)
        if (
            isinstance(parent, cst.Subscript)
            and len(parent.slice) == 1
            and isinstance(parent.slice[0].slice, cst.Index)
        ):
            keys.append(parent.slice[0].slice.value)
        elif isinstance(parent, cst.Attribute) and parent.attr.value == "get":
            call = tf.index.parent.get(parent)
            if isinstance(call, cst.Call) and call.args:
                keys.append(call.args[0].value)
    for call in tf.index.calls:
        if call.args and tf.index.is_within(call, expr) and tf.names.qualified(call.func) == "os.getenv":
            keys.append(call.args[0].value)
    return [v for v in (literal_value(tf, k) for k in keys) if isinstance(v, str)]
