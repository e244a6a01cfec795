"""Can a fixed script run where its validation runs? The reasons a migration skips validating one.

A validation costs TensorFlow runs; a script that cannot run would only come back as "cannot
validate" after them. These checks read the script (``ast``, no TensorFlow) in the folder the
validator will run it from, and ask the Python that will run it which modules it can import:
they run where the validation runs (this machine, or a Ray node).
"""

from __future__ import annotations

import ast
import glob
import json
import os
import subprocess
import sys
from pathlib import Path

from fixer.syntax import parse_module

# Calls that read a file named by their first argument (matched by the called name's last part).
_READERS = frozenset(
    {
        "open",
        "GFile",
        "File",
        "load",
        "loadtxt",
        "genfromtxt",
        "fromfile",
        "read_csv",
        "read_parquet",
        "read_json",
        "read_table",
        "read_pickle",
        "read_feather",
        "read_hdf",
        "read_excel",
        "read_file",
        "TFRecordDataset",
        "TextLineDataset",
        "FixedLengthRecordDataset",
        "image_dataset_from_directory",
        "text_dataset_from_directory",
        "audio_dataset_from_directory",
        "load_model",
        "load_weights",
        "imread",
    }
)
_REMOTE = ("gs://", "s3://", "hdfs://", "az://", "abfs://")
_TPU_NAMES = frozenset({"TPUStrategy", "TPUClusterResolver", "initialize_tpu_system", "TPUEmbedding"})
_NCCL_NAMES = frozenset({"NcclAllReduce", "NCCL"})
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
# Asks the Python that runs the validation which of the names it cannot find (nothing is imported).
_PROBE = (
    "import importlib.util, json, sys; "
    "print(json.dumps([n for n in sys.argv[1:] if importlib.util.find_spec(n) is None]))"
)


def skip_reason(script: Path, text: str, device: str = "auto", project_root: Path | None = None) -> str | None:
    """Why ``text``, run as ``script`` (in its folder, as the validator runs it), cannot be validated
    here, or None when it can. ``device`` is the validation's ``--device``; ``project_root``, the
    root of the script's project (on the run's sys.path too)."""
    reason = intrinsic_skip_reason(script, text)
    if reason is not None:
        return reason
    tree = parse_module(text)
    for check in (_hardware_reason, _data_reason):
        reason = check(script, tree, device)
        if reason:
            return reason
    return _module_reason(script, tree, project_root)


def intrinsic_skip_reason(script: Path, text: str) -> str | None:
    """The reasons that hold on every machine (what the script is, not what the machine has):
    decided before a validation is handed to a worker or a Ray node."""
    if script.suffix == ".ipynb":
        return "a notebook: validation runs scripts (export it with `jupyter nbconvert --to script`)"
    try:
        tree = parse_module(text)
    except SyntaxError as exc:
        return f"the fixed script does not parse: {exc.msg} (line {exc.lineno})"
    if not is_entry_point(tree):
        return (
            "not an entry point: no training code runs at its top level "
            'or under `if __name__ == "__main__"` (a library module)'
        )
    relative = [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level]
    if relative:
        return f"it imports relatively (line {relative[0].lineno}), so it runs only inside its package, not as a script"
    return None


def is_entry_point(tree: ast.Module) -> bool:
    """True when running the module does something: a ``__main__`` guard, or top-level code
    that calls, loops or enters a context (a library module only defines and binds names)."""
    return any(_runs_code(statement) for statement in tree.body)


def _runs_code(statement: ast.stmt) -> bool:
    if isinstance(statement, (ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)):
        return True
    if isinstance(statement, ast.Expr):
        return isinstance(statement.value, (ast.Call, ast.Await))
    if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
        # `strategy = tf.distribute.MirroredStrategy()` or `history = model.fit(...)` is training code;
        # `log = logging.getLogger(__name__)` in a library is not.
        return any(_called_name(call).endswith(("Strategy", "fit", "run")) for call in _calls(statement.value))
    if isinstance(statement, ast.If):
        return _is_main_guard(statement.test) or any(_runs_code(s) for s in (*statement.body, *statement.orelse))
    if isinstance(statement, ast.Try):
        blocks = (
            *statement.body,
            *statement.orelse,
            *statement.finalbody,
            *(s for h in statement.handlers for s in h.body),
        )
        return any(_runs_code(s) for s in blocks)
    return False


def _is_main_guard(test: ast.expr) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
    )


def _calls(node: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Call)]


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _names(tree: ast.AST) -> set[str]:
    """Every name and attribute the module mentions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.alias):
            found.add(node.name.rsplit(".", 1)[-1])
    return found


def gpu_available(device: str = "auto") -> bool:
    """True when the validation's processes can see an NVIDIA GPU (Ray hides them from tasks
    that asked for none by emptying CUDA_VISIBLE_DEVICES)."""
    if device == "cpu" or os.environ.get("CUDA_VISIBLE_DEVICES") in ("", "-1"):
        return False
    return Path("/dev/nvidiactl").exists() or Path("/dev/nvidia0").exists()


def tpu_available() -> bool:
    """True on a TPU VM (its chips are /dev/accel*)."""
    return bool(glob.glob("/dev/accel*"))


def _hardware_reason(script: Path, tree: ast.Module, device: str) -> str | None:
    names = _names(tree)
    tpu = sorted(names & _TPU_NAMES)
    if tpu and not tpu_available():
        return f"needs a TPU (`{tpu[0]}`), which this run does not have"
    if gpu_available(device):
        return None
    nccl = sorted(names & _NCCL_NAMES)
    if nccl:
        return f"needs GPUs (`{nccl[0]}`: NCCL all-reduce runs on GPUs only), which this run does not have"
    for call in _calls(tree):
        if not _called_name(call).endswith("Strategy"):
            continue
        for node in ast.walk(call):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _is_gpu_device(node.value):
                return f"needs GPUs (the strategy names the device {node.value!r}), which this run does not have"
    return None


def _is_gpu_device(name: str) -> bool:
    lowered = name.lower().lstrip("/")
    return lowered.startswith(("gpu:", "device:gpu:")) or "/device:gpu:" in lowered


def _data_reason(script: Path, tree: ast.Module, device: str) -> str | None:
    for call in _calls(tree):
        if _called_name(call) not in _READERS or not call.args or _writes(call):
            continue
        name = _literal_path(call.args[0])
        if name is None:
            continue
        if name.startswith(_REMOTE):
            return f"reads remote data `{name}` (line {call.lineno}), which the run does not fetch"
        if "://" in name:
            continue
        where = Path(name) if os.path.isabs(name) else script.parent / name
        present = glob.glob(str(where)) if glob.has_magic(name) else where.exists()
        if not present:
            return (
                f"reads `{name}` (line {call.lineno}), which is not there "
                "(the validation runs a copy of the script's own folder)"
            )
    return None


def _writes(call: ast.Call) -> bool:
    """True for ``open(path, "w")`` and the like: the file is an output, not an input."""
    mode = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "mode"), None)
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and bool(set(mode.value) & set("wax"))


def _literal_path(node: ast.expr) -> str | None:
    """The path a literal, ``Path("...")`` or ``os.path.join("...", ...)`` of literals names."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Call) and _called_name(node) in ("Path", "join") and node.args:
        parts = [_literal_path(a) for a in node.args]
        known = [p for p in parts if p is not None]
        return os.path.join(*known) if len(known) == len(parts) else None
    return None


def _module_reason(script: Path, tree: ast.Module, project_root: Path | None) -> str | None:
    missing = missing_modules(sorted(_required_modules(tree)), script.parent)
    if missing and project_root is not None:  # the project's own packages, found from its root
        missing = missing_modules(missing, project_root)
    if missing:
        listed = ", ".join(f"`{name}`" for name in missing)
        return (
            f"imports {listed}, which the Python that runs the validation cannot import "
            "(and no module of that name is next to the script)"
        )
    return None


def _required_modules(tree: ast.Module) -> set[str]:
    """Top-level names of the modules the script imports, except optional ones
    (inside ``try: ... except ImportError``) and ``if TYPE_CHECKING:`` imports."""
    optional: set[int] = set()
    for node in ast.walk(tree):
        guarded = isinstance(node, ast.Try) and any(_catches_import_error(h) for h in node.handlers)
        type_only = isinstance(node, ast.If) and "TYPE_CHECKING" in _names(node.test)
        if isinstance(node, (ast.Try, ast.If)) and (guarded or type_only):
            optional.update(id(n) for statement in node.body for n in ast.walk(statement))
    needed: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in optional:
            continue
        if isinstance(node, ast.Import):
            needed.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            needed.add(node.module.split(".")[0])
    return needed - {"__future__"}


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    return handler.type is None or bool(_names(handler.type) & _IMPORT_ERRORS)


def missing_modules(names: list[str], folder: Path) -> list[str]:
    """The ``names`` that the interpreter the validator starts (this one, with this environment)
    cannot find when run from ``folder``: modules next to the script are found, as in the run."""
    if not names:
        return []
    env = {k: v for k, v in os.environ.items() if k != "TF_CONFIG"}
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, *names],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    missing: list[str] = json.loads(out.stdout)
    return missing
