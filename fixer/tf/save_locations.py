"""Where a save path leads: a folder each worker's own container has, or one the workers share.

TFD502 is about workers racing on one set of files. Two workers in different containers (or
pods) that write the same *local* path write different files: SageMaker's model folder
(`SM_MODEL_DIR`, `/opt/ml/model`) is local to each training instance, and a Kubeflow TFJob runs
every replica in its own pod, so `/tmp/model` is one folder per worker there; so is a temporary
folder (`/tmp`, `/var/tmp`, `/dev/shm`) when every address of the TF_CONFIG clusters the project
sets names a host of its own (other absolute paths may be a network mount the hosts share), or when
the script is baked into an image (a Dockerfile of its folder copies it in) and no file of the
project sets its cluster: each worker is a container of that image (fix22b). Shared storage
(`gs://`, `s3://`, `hdfs://`, `AIP_MODEL_DIR`) and local paths of workers that are processes of
one host still race.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.calls import argument_value
from fixer.tf.cluster_hosts import every_task_on_its_own_host
from fixer.tf.flags import flag_read
from fixer.tf.tf_config_sources import tf_config_of, tf_config_setters

if TYPE_CHECKING:
    from fixer.tf.model import TFModel
    from fixer.tf.script_launchers import Launcher

# SageMaker's per-instance model folder: the environment variable and the folder it names.
_CONTAINER_MODEL_DIR_VARIABLES = frozenset({"SM_MODEL_DIR"})
_CONTAINER_MODEL_DIR = "/opt/ml/model"
_MACHINE_LOCAL = ("/tmp", "/var/tmp", "/dev/shm")
_JOINS = frozenset({"os.path.join", "posixpath.join", "pathlib.Path", "pathlib.PurePosixPath"})
_ENVIRONMENT_READS = frozenset({"os.environ.get", "os.getenv", "os.environ.__getitem__"})


def _leading(tf: TFModel, path: cst.BaseExpression) -> cst.BaseExpression:
    """The part of ``path`` that says where it starts: the first piece of a join, a `+` or an
    f-string (``os.path.join(base, "m.keras")`` starts where ``base`` does)."""
    while True:
        if isinstance(path, cst.Call) and tf.names.callee(path) in _JOINS and path.args:
            path = path.args[0].value
        elif isinstance(path, cst.BinaryOperation) and isinstance(path.operator, cst.Add | cst.Divide):
            path = path.left
        elif isinstance(path, cst.Call) and isinstance(path.func, cst.Name) and path.func.value == "str" and path.args:
            path = path.args[0].value
        else:
            return path


def _environment_variable(tf: TFModel, node: cst.BaseExpression) -> str | None:
    """The variable ``os.environ["X"]``, ``os.environ.get("X")`` or ``os.getenv("X")`` reads."""
    key: cst.BaseExpression | None = None
    if isinstance(node, cst.Subscript) and tf.names.qualified(node.value) == "os.environ" and len(node.slice) == 1:
        element = node.slice[0].slice
        key = element.value if isinstance(element, cst.Index) else None
    elif isinstance(node, cst.Call) and tf.names.callee(node) in _ENVIRONMENT_READS:
        key = argument_value(node, 0, "key")
    if isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str):
        return key.evaluated_value
    return None


def _starts(tf: TFModel, path: cst.BaseExpression, depth: int = 0) -> list[str]:
    """Where ``path`` may start, each as ``"$VARIABLE"`` (an environment variable's value), a
    literal prefix (``"/tmp/model"``, ``"gs://bucket"``) or ``"?"`` (unknown). Names are followed
    to the assignments that reach them, flags to their defaults."""
    start = _leading(tf, path)
    variable = _environment_variable(tf, start)
    if variable is not None:
        return [f"${variable}"]
    if isinstance(start, cst.SimpleString) and isinstance(start.evaluated_value, str):
        return [start.evaluated_value]
    if isinstance(start, cst.FormattedString):
        first = start.parts[0] if start.parts else None
        if isinstance(first, cst.FormattedStringText):
            return [first.value]
        if isinstance(first, cst.FormattedStringExpression):
            return _starts(tf, first.expression, depth + 1)
        return ["?"]
    if depth >= 4:
        return ["?"]
    if isinstance(start, cst.BooleanOperation):  # `os.environ.get("X") or "/tmp/m"`
        return _starts(tf, start.left, depth + 1) + _starts(tf, start.right, depth + 1)
    flag = flag_read(tf, start)
    if flag is not None:
        return _starts(tf, flag.default, depth + 1) if flag.default is not None else ["?"]
    if isinstance(start, cst.Name):
        values = []
        for binding in tf.semantic.reaching(start.value, start):
            statement = binding.statement
            if not isinstance(statement, cst.Assign | cst.AnnAssign) or statement.value is None:
                return ["?"]
            values.extend(_starts(tf, statement.value, depth + 1))
        return values or ["?"]
    return ["?"]


def _container_model_dir(start: str) -> bool:
    if start.startswith("$"):
        return start[1:] in _CONTAINER_MODEL_DIR_VARIABLES
    return start.rstrip("/") == _CONTAINER_MODEL_DIR or start.startswith(_CONTAINER_MODEL_DIR + "/")


def _local_absolute(start: str) -> bool:
    return start.startswith("/") and "://" not in start


def _relative(start: str) -> bool:
    """A literal relative path (`model.h5`, `out/ckpt`): under the folder each worker runs from."""
    return bool(start) and start != "?" and not start.startswith(("/", "~", "$", "\\")) and ":" not in start


def _machine_local(start: str) -> bool:
    """A folder each machine has of its own: the temporary folders (`/tmp`, `/var/tmp`, `/dev/shm`),
    and a relative path, under the working folder of each host's own copy of the code (ledger10a
    class 1: a README that runs the script once per machine)."""
    return _relative(start) or any(start == folder or start.startswith(folder + "/") for folder in _MACHINE_LOCAL)


def per_container(tf: TFModel, path: cst.BaseExpression) -> bool:
    """True when every place ``path`` may start is a folder of the worker's own container:
    SageMaker's model folder, or a local absolute path in a script a per-pod job of the project
    runs (a Kubeflow TFJob: fixer/tf/script_launchers.py) or whose TF_CONFIG clusters put every
    task on a host of its own (fixer/tf/cluster_hosts.py; also as a README or a
    docker-compose service writes them), or a machine-local path of a script baked into an
    image whose cluster no file of the project sets (fixer/tf/baked_images.py)."""
    starts = _starts(tf, path)
    if all(_container_model_dir(s) for s in starts):
        return True
    if not all(_container_model_dir(s) or _local_absolute(s) or _relative(s) for s in starts):
        return False
    launchers = tf.launchers
    found = launchers.launchers() if launchers is not None else []
    if any(launcher.per_pod for launcher in found):
        return True
    # Separate machines often share a network mount (`/home`, `/data`, `/mnt`): only a folder
    # that is each machine's own by convention is per host there.
    if not all(_machine_local(s) for s in starts):
        return False
    own = _tf_configs(tf, found)
    if own is None:
        return False  # a cluster set where we cannot read it may put tasks anywhere
    written = launchers.readme_tf_configs() + launchers.compose_tf_configs() if launchers is not None else []
    if not own and not written and launchers is not None and launchers.baked_into_image():
        # No file of the project sets a cluster (no workers as processes of one host): whatever
        # runs the image gives each worker its container (fixer/tf/baked_images.py).
        return True
    return every_task_on_its_own_host(own + written)


def _tf_configs(tf: TFModel, launchers: list[Launcher]) -> list[str] | None:
    """The TF_CONFIG texts the project sets for this script: each literal one the script sets
    itself and each one its launchers assign. None when any setter is not a literal (a cluster
    the script computes may put tasks anywhere)."""
    if any(launcher.with_tf_config and not launcher.tf_configs for launcher in launchers):
        return None  # a launcher sets one we cannot read (a job spec, a computed value)
    texts = [text for launcher in launchers for text in launcher.tf_configs]
    for setter in tf_config_setters(tf):
        config = tf_config_of(tf, setter)
        if not isinstance(config, str):
            return None
        texts.append(config)
    return texts
