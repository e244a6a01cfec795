"""Start validation runs as child processes and collect what they dumped.

Every child runs in its own session in a copy of the script's folder, its output going to a
file. A run that outlives its timeout has every process group killed with SIGKILL (a
multi-worker process waiting for a peer ignores SIGTERM); when one worker fails, the others are
killed at once instead of waiting for a peer that will never come. The validator picks every
port on 127.0.0.1 itself, and the child maps every address the script names to one of them.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fixer.doctor.probe import free_ports
from fixer.launcher.plan import launcher_plan
from fixer.validate.ray_worker import start_bootstrap

if TYPE_CHECKING:
    import subprocess

    from fixer.validate.project import Entry

BOOTSTRAP = Path(__file__).with_name("bootstrap.py")
TOLERANCE = 1e-4  # relative, for float noise between copies of a value
SPARE_PORTS = 8  # for addresses the script builds at run time
_JUNK = {
    ".git",
    ".venv",
    "venv",
    "__pycache__",
    ".distfix_cache",
    ".ipynb_checkpoints",
    "node_modules",
    ".pytest_cache",
}
# A script's folder is copied whole (it may read data files next to it) unless it is this big.
MAX_COPY_FILES = 2000
MAX_COPY_BYTES = 200 * 1024 * 1024


@dataclass(frozen=True)
class RunSpec:
    """How to run one variant."""

    replicas: int = 2
    workers: int = 1
    device: str = "auto"
    max_steps: int = 20
    timeout: float = 120.0
    synthetic_data: bool = False
    keep_temp: bool = False
    backend: str = "local"  # local (processes on 127.0.0.1) | ray (actors on a Ray cluster, see ray_backend.py)
    address: str | None = None  # ray: the cluster to join; None starts a local Ray for the run
    gpus_per_worker: float = 0.0  # ray: the GPUs each worker's actor asks Ray for
    entry: Entry | None = None  # how the project runs the script (project.py); None: `python script.py` in its folder


@dataclass
class WorkerDump:
    """What one worker process reported (see ``child/state.py`` for the fields)."""

    status: str  # ok | error | timeout | stopped (killed because another worker failed)
    error: dict[str, Any] | None = None
    steps: int = 0
    stopped: bool = False  # stopped cleanly after --max-steps
    inputs: list[str] = field(default_factory=list)
    variables: dict[str, dict[str, Any]] = field(default_factory=dict)
    history: list[dict[str, list[float]]] = field(default_factory=list)
    mirrored: int = 0
    divergence: dict[str, Any] | None = None
    nonfinite: dict[str, Any] | None = None
    values_checked: int = 0
    addresses: dict[str, str] = field(default_factory=dict)
    feed: list[list[Any]] = field(default_factory=list)  # per batch drawn: [global rows, digest of the rows]
    gradients: list[float] = field(default_factory=list)  # per optimizer update: norm of the summed gradients
    claimed: list[int | None] = field(default_factory=list)  # script lines that read the claimed replica count
    topology: dict[str, Any] | None = None  # what ran: {"in_sync", "local"} of the first strategy the script made
    devices: str | None = None  # GPU, logical GPU, logical CPU or CPU
    examples: list[str] = field(default_factory=list)  # short digest of each example drawn
    pass_examples: list[list[str]] = field(
        default_factory=list
    )  # per distributed dataset: examples of the data-only pass
    fit_arrays: bool = False  # Keras fit built the input from arrays (its own per-worker shuffle)
    writes: list[dict[str, Any]] = field(default_factory=list)  # checkpoints and models saved: {"path", "what", "line"}
    output: str = ""


def _addresses(path: str, text: str) -> list[str]:
    found: list[str] = []
    for config in launcher_plan(path, text).configs:
        for addresses in config.get("cluster", {}).values():
            for address in addresses if isinstance(addresses, list) else []:
                if isinstance(address, str) and address not in found:
                    found.append(address)
    return found


@dataclass(frozen=True)
class Prepared:
    """A variant's copy of the project: the script in it, and where and how it runs (relative to ``root``)."""

    root: Path  # the copy of the project (``folder/src``)
    script: Path  # the variant's script in the copy
    cwd: Path  # the folder the script runs in, in the copy
    addresses: list[str]  # the addresses the script names


def prepare(script: Path, text: str, folder: Path, entry: Entry | None = None) -> Prepared:
    """Copy the project (or the script's folder) into ``folder/src`` with ``text`` as the script.

    A project too big to copy quickly is replaced by the script's own folder (then the script
    runs there and only its folder is on sys.path).
    """
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "src"
    root, cwd = (entry.root, entry.cwd) if entry else (script.parent, script.parent)
    if not copy_script_folder(root, source, {folder, folder.parent}) and root != script.parent:
        shutil.rmtree(source, ignore_errors=True)
        root, cwd = script.parent, script.parent
        copy_script_folder(root, source, {folder, folder.parent})
    where = entry.script if entry else script
    target = source / where.relative_to(root) if where.is_relative_to(root) else source / script.name
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink():  # the variant's text replaces the link, not the file it points to
        target.unlink()
    target.write_text(text, encoding="utf-8")
    run_in = source / cwd.relative_to(root) if cwd.is_relative_to(root) else target.parent
    return Prepared(source, target, run_in, _addresses(str(script), text))


def worker_settings(spec: RunSpec, replicas: int | None, claim_replicas: int | None) -> dict[str, Any]:
    """What every worker of a run is told (the bootstrap reads it); each backend adds the paths and addresses."""
    entry = spec.entry
    return {
        "replicas": replicas or spec.replicas,
        "workers": spec.workers,
        "device": spec.device,
        "max_steps": spec.max_steps,
        "synthetic_data": spec.synthetic_data,
        "claim_replicas": claim_replicas,
        "tolerance": TOLERANCE,
        "module": entry.module if entry else None,
        "args": list(entry.args) if entry else [],
        "env": dict(entry.env) if entry else {},
    }


def run_paths(prepared: Prepared, base: Path | None = None) -> dict[str, Any]:
    """The script, its folder and the project root of ``prepared`` (relative to ``base`` when given)."""

    def rel(path: Path) -> str:
        return str(path.relative_to(base)) if base is not None else str(path)

    return {"script": rel(prepared.script), "cwd": rel(prepared.cwd), "path": [rel(prepared.root)]}


def tf_config(cluster: list[str], index: int) -> str | None:
    """The TF_CONFIG of worker ``index`` (none for a single worker)."""
    if len(cluster) < 2:
        return None
    return json.dumps({"cluster": {"worker": cluster}, "task": {"type": "worker", "index": index}})


def run_script(
    script: Path, text: str, spec: RunSpec, folder: Path, replicas: int | None = None, claim_replicas: int | None = None
) -> list[WorkerDump]:
    """Run ``text`` as ``script`` in ``folder``; one dump per worker.

    ``replicas`` overrides spec.replicas; ``claim_replicas`` is the replica count the script's
    set-up code is told (the 1-replica reference run, see ``child/claim.py``). With
    ``spec.backend == "ray"`` the workers run as Ray actors (a Ray session must be open).
    """
    if spec.backend == "ray":
        from fixer.validate.ray_backend import run_on_ray

        return run_on_ray(script, text, spec, folder, replicas, claim_replicas)
    prepared = prepare(script, text, folder, spec.entry)
    addresses = prepared.addresses
    ports = free_ports(spec.workers + len(addresses) + SPARE_PORTS)
    cluster = [f"127.0.0.1:{p}" for p in ports[: spec.workers]]
    mapped = ports[spec.workers : spec.workers + len(addresses)]
    processes = []
    started = time.monotonic()
    for index in range(spec.workers):
        settings = {
            **worker_settings(spec, replicas, claim_replicas),
            **run_paths(prepared),
            "address_map": {address: f"127.0.0.1:{port}" for address, port in zip(addresses, mapped, strict=True)},
            "spare_ports": ports[spec.workers + len(addresses) :],
            "dump": str(folder / f"dump_{index}.json"),
            "tf_config": tf_config(cluster, index),
        }
        settings_path = folder / f"settings_{index}.json"
        settings_path.write_text(json.dumps(settings), encoding="utf-8")
        processes.append(
            start_bootstrap(BOOTSTRAP, settings_path, folder / f"output_{index}.txt", prepared.cwd, spec.device)
        )
    endings = _wait(processes, started + spec.timeout)
    return [_collect(folder, index, ending) for index, ending in enumerate(endings)]


def _kill(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:  # the group is gone already
        pass
    process.wait()


def _wait(processes: list[subprocess.Popen[bytes]], deadline: float) -> list[str]:
    """How each process ended: exited, timeout, or stopped (killed because another one failed)."""
    endings: list[str | None] = [None] * len(processes)
    while None in endings:
        time.sleep(0.05)
        exited = [process.poll() for process in processes]
        endings = [e or ("exited" if code is not None else None) for e, code in zip(endings, exited, strict=True)]
        if any(code not in (None, 0) for code in exited):
            endings = [e or "stopped" for e in endings]
        elif time.monotonic() > deadline:
            endings = [e or "timeout" for e in endings]
    for process in processes:
        _kill(process)  # also whatever the script started in its session
    return endings  # type: ignore[return-value]


def _collect(folder: Path, index: int, ending: str) -> WorkerDump:
    output = (folder / f"output_{index}.txt").read_text(encoding="utf-8", errors="replace")
    dump_path = folder / f"dump_{index}.json"
    return worker_dump(ending, output, dump_path.read_text(encoding="utf-8") if dump_path.exists() else None)


def worker_dump(ending: str, output: str, dump: str | None) -> WorkerDump:
    """The dump of one worker from how it ended (exited, timeout, stopped), its output and the JSON it wrote."""
    if ending != "exited":
        return WorkerDump(ending, output=output)
    if dump is None:
        last = [line for line in output.strip().splitlines() if line.strip()][-1:] or ["no output"]
        error = {"type": "crash", "message": last[0][:500], "line": None, "network": False, "missing": None}
        return WorkerDump("error", error=error, output=output)
    data = json.loads(dump)
    known = set(WorkerDump.__dataclass_fields__) - {"output"}
    return WorkerDump(**{k: v for k, v in data.items() if k in known}, output=output)


def copy_script_folder(source: Path, destination: Path, temp: set[Path]) -> bool:
    """Copy the script's folder (small ones whole, without junk and without the ``temp`` folders).

    Symbolic links are copied as links, so a relative link to a sibling still resolves in the
    copy. A folder too big to copy quickly (a home or /tmp) gives an empty copy: only the script
    runs. Returns whether the folder was copied.
    """
    files, size = 0, 0
    for dirpath, dirnames, filenames in os.walk(source):
        dirnames[:] = [d for d in dirnames if d not in _JUNK and Path(dirpath, d) not in temp]
        files += len(filenames)
        size += sum(_size(Path(dirpath, name)) for name in filenames)
        if files > MAX_COPY_FILES or size > MAX_COPY_BYTES:
            destination.mkdir(parents=True)
            return False

    def ignore(directory: str, names: list[str]) -> set[str]:
        return {n for n in names if n in _JUNK or Path(directory, n) in temp}

    try:
        shutil.copytree(source, destination, ignore=ignore, symlinks=True)
    except (shutil.Error, OSError):
        shutil.rmtree(destination, ignore_errors=True)
        destination.mkdir(parents=True)
        return False
    return True


def _size(path: Path) -> int:
    try:
        return path.lstat().st_size
    except OSError:
        return 0
