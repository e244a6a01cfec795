"""Whether anything says a script runs on several workers (a cluster), or only ever on one.

A `MultiWorkerMirroredStrategy` made with no TF_CONFIG and no cluster resolver is one worker on
its local devices, and Keras 3 `fit`/`evaluate` work under it (measured:
benchmarks/probe_ledger9b_premises.py); what TFD504 quotes needs two workers. The signs of a
cluster looked for, in words:

- in the script: TF_CONFIG read or written, a cluster resolver (not a `TPUClusterResolver`, which
  names a TPU) or `ClusterSpec`, a launcher library that sets TF_CONFIG for each task
  (TensorFlowOnSpark, Ray, `multi_process_runner`);
- in a project file that starts the script (fixer/tf/script_launchers.py): a TF_CONFIG, a job that
  sets one per task (a TFJob, a SageMaker `distribution`, a Vertex AI custom job), or a multi-node
  batch job or launcher (PBS `select=2`, Slurm `--nodes=2`, `mpirun`, `srun`, `horovodrun`);
- anywhere in the project tree: a file that writes or reads TF_CONFIG (a cluster set up by a
  helper module, a notebook, a job spec the launcher view does not tie to the script), or a
  multi-node job file (`.pbs`, `.slurm`, ...) that names the script's file.

Read as text, never executed; the tree once per run. The language server, where files change
between questions, lists the tree at each question and reads again only the files whose stamp
(size, modification time) changed since it last read them: reading every file of the tree took
1.9 s per edit in the distfix repository and 4.7 s in tf-keras (benchmarks/README.md, lsp7).
The files found become the result's dependencies; a file created later is not seen until the
script changes (as for the launchers).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from fixer.sources import SourceError, open_regular

if TYPE_CHECKING:
    from collections.abc import Iterator

    from fixer.tf.model import TFModel

Stamp = tuple[int, int] | None  # as fixer.cache.Stamp

_IN_SCRIPT = re.compile(
    r"TF_CONFIG|ClusterResolver|cluster_resolver|ClusterSpec|\bTFCluster\b|\bTFNode\b|tensorflowonspark"
    r"|^\s*(?:import|from)\s+ray\b|multi_process_runner",
    re.MULTILINE,
)
# `tf.distribute.cluster_resolver.TPUClusterResolver`, with its module path if spelled.
_TPU_RESOLVER = re.compile(r"(?:[\w.]*cluster_resolver\.)?TPUClusterResolver")
# A batch job or launcher that starts several nodes or processes.
_MULTI_NODE = re.compile(
    r"\bselect=(?:[2-9]|\d{2,})|--nodes[= ](?:[2-9]|\d{2,})|#SBATCH\s+-N\s*(?:[2-9]|\d{2,})"
    r"|\bmpirun\b|\bmpiexec\b|\bsrun\b|\bhorovodrun\b|--nnodes|\bTFJob\b|\btfReplicaSpecs\b"
)
# A word each branch of _MULTI_NODE contains. The regex tries every branch at every position: 3.6
# of vertex-ai-samples' 15.8 CPU s went to it over its notebooks' 38 MB; looking for these words
# first (a fast substring search) takes 0.17 s, and the regex still decides (benchmarks/README.md, speed13).
_MULTI_NODE_WORDS = (
    "select=",
    "--nodes",
    "#SBATCH",
    "mpirun",
    "mpiexec",
    "srun",
    "horovodrun",
    "--nnodes",
    "TFJob",
    "tfReplicaSpecs",
)
_TREE_FILES = (".py", ".ipynb", ".sh", ".bash", ".yaml", ".yml", ".json", ".pbs", ".slurm", ".sbatch", ".job")
_SKIPPED_FOLDERS = frozenset({"site-packages", "dist-packages", "node_modules", "__pycache__"})
_MAX_BYTES = 2_000_000

# What one file shows: its stamp when read, whether it names TF_CONFIG, and the `.py` file names a
# multi-node job in it starts.
Signs = tuple[Stamp, bool, frozenset[str]]
# Per process: each root's files that show a cluster (a TF_CONFIG, or a multi-node job and the
# `.py` file names it starts), with the stamps they were read at.
_TREES: dict[str, dict[str, Signs]] = {}
# The language server's: each root's every file read, signs or not, so that a file whose stamp
# did not change is not read again.
_READ: dict[str, dict[str, Signs]] = {}
_SCRIPT_NAME = re.compile(r"[\w.-]+\.py\b")


# Hopsworks' launcher, which runs the function it is given on Spark executors as chief and workers
# with a TF_CONFIG each (`experiment.mirrored(train_fn)`; `collective_all_reduce` before hops 2.0).
_EXECUTOR_LAUNCH = re.compile(r"\bexperiment\.(?:mirrored|collective_all_reduce)\s*\(")


def launched_on_executors(tf: TFModel) -> bool:
    """The script hands its training function to Hopsworks' `experiment.mirrored`, which starts it
    as several workers. A sign of a cluster for TFD202; not yet for TFD504 (through
    :func:`shows_a_cluster`): the notebooks that use it state in prose the TF 2.4 they were tested
    with, which the target does not read, and Keras 2's `fit` trains there."""
    return "experiment." in tf.text and _EXECUTOR_LAUNCH.search(tf.text) is not None


def shows_a_cluster(tf: TFModel) -> bool:
    """The script, a file that starts it, or its project tree shows that it runs on several workers."""
    text = tf.text
    if "TPUClusterResolver" in text:
        # A TPU's resolver names a TPU, not workers (an arm beside `MultiWorkerMirroredStrategy()`).
        text = _TPU_RESOLVER.sub("", text)
    if _IN_SCRIPT.search(text):
        return True
    launchers = tf.launchers
    if launchers is None or not tf.path:
        return True  # no project around the file: nothing tells, keep the finding
    for launcher in launchers.launchers():
        if launcher.with_tf_config or launcher.per_pod or _multi_node(_text(launcher.path) or ""):
            return True
    script = os.path.abspath(tf.path)
    found = False
    for path, (stamp, tf_config, multi_node_runs) in _tree_signs(launchers.root, launchers.live).items():
        launchers.consulted[path] = stamp  # a changed file may change the answer (the cache)
        found = found or (path != script and (tf_config or os.path.basename(script) in multi_node_runs))
    return found


def _tree_signs(root: str, live: bool) -> dict[str, Signs]:
    """The files under ``root`` that write or read TF_CONFIG, or are multi-node jobs (with the
    file names of the scripts they start); looked at again at each question when files may
    change between questions (``live``: the language server), reading only the changed ones."""
    from fixer.cache import file_stamp  # here: that module reaches the TF model

    found = None if live else _TREES.get(root)
    if found is not None:
        return found
    before = _READ.get(root, {}) if live else {}
    read: dict[str, Signs] = {}
    for path in _tree_files(root):
        stamp = file_stamp(path)
        known = before.get(path)
        signs = known if known is not None and stamp is not None and known[0] == stamp else _signs(path, stamp)
        if signs is not None:
            read[path] = signs
    if live:
        _READ[root] = read  # files gone from the tree are forgotten
    found = _TREES[root] = {path: signs for path, signs in read.items() if signs[1] or signs[2]}
    return found


def _tree_files(root: str) -> Iterator[str]:
    """The files under ``root`` that may show a cluster (scripts, notebooks, shell and job
    files), in a stable order, outside hidden and package folders."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_FOLDERS)
        for name in sorted(files):
            if name.endswith(_TREE_FILES):
                yield os.path.join(folder, name)


def _signs(path: str, stamp: Stamp) -> Signs | None:
    """What the file shows, read now (its stamp taken just before); None when it cannot be read."""
    text = _text(path)
    if text is None:
        return None
    runs = frozenset(_SCRIPT_NAME.findall(text)) if _multi_node(text) else frozenset()
    return stamp, "TF_CONFIG" in text, runs


def _multi_node(text: str) -> bool:
    """``text`` is a batch job or launcher that starts several nodes or processes."""
    return any(word in text for word in _MULTI_NODE_WORDS) and _MULTI_NODE.search(text) is not None


def _text(path: str) -> str | None:
    """The file's text, or None when it cannot be read or is too large to be a script or job."""
    try:
        if os.path.getsize(path) > _MAX_BYTES:
            return None
        with open_regular(path) as handle:
            return handle.read().decode("utf-8", errors="replace")
    except (OSError, SourceError):
        return None
