"""Which of the project's own files start a script, and whether they give it a TF_CONFIG.

TFD601's rewrite takes a hard-coded TF_CONFIG out of a script so that its launcher sets it. That
is only right when the launcher does: a job file that runs each per-role script with no
environment (a Nomad `raw_exec` task, a shell loop `python chief.py & python worker.py`) gives
the script no TF_CONFIG but its own, and without it every task trains alone.

A *launcher* is a file under the project root (the folder `check` was given, as for the
importers' view, fixer/tf/importers.py) of a kind that starts programs — a shell script, a Nomad
or other HCL job, a YAML manifest (Kubernetes, TFJob, docker-compose, CI), a Makefile, Dockerfile
or Procfile, a notebook's shell and `%run` lines (fixer/notebook_launches.py), or a Python file
that starts processes or submits jobs — and that names the script: by a path that leads to it
from the launcher's folder or the root, or by its file name when no other script of the tree
has it (or the launcher is in the script's folder or one above it). It gives the script a
TF_CONFIG when its text sets one (`TF_CONFIG=`, an `env` stanza, `env=` of a process) or it is
a job that sets TF_CONFIG for each task itself (a Kubeflow TFJob, a SageMaker estimator with a
`distribution`, a Vertex AI custom job).

Read from the texts: the tree is listed once per run (at each question in the language server;
only a TFD601 finding with a rewrite asks), each file is read again only when its stamp changed,
and the launchers that name a script become the dependencies of its result (a changed launcher
invalidates it). A launcher created after a result was cached is not seen until the script
changes.
"""

from __future__ import annotations

import json
import os
import re
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fixer.notebook_cells import code_sources
from fixer.notebook_launches import launches
from fixer.sources import SourceError, open_regular
from fixer.tf.baked_images import baked_into_image
from fixer.tf.cluster_hosts import shell_tf_configs
from fixer.tf.compose_clusters import compose_tf_configs
from fixer.tf.readme_clusters import readme_tf_configs
from fixer.tf.task_copies import covers_cluster

if TYPE_CHECKING:
    from collections.abc import Iterator

Stamp = tuple[int, int] | None  # as fixer.cache.Stamp (that module reaches the TF model, which names this one)

_SHELL_LIKE = (".sh", ".bash", ".zsh", ".nomad", ".hcl", ".yaml", ".yml", ".mk")
_NAMED = frozenset({"Makefile", "makefile", "GNUmakefile", "Dockerfile", "Procfile"})
_SKIPPED_FOLDERS = frozenset({"site-packages", "dist-packages", "node_modules", "__pycache__"})
_MAX_BYTES = 2_000_000  # larger files are data or generated, not launchers

# A `.py` path as a launcher names it: `worker.py`, `./src/chief.py`, `/app/train.py`.
_SCRIPT = re.compile(r"(?<![\w.-])(?P<path>[\w./-]*\w\.py)\b")
# What makes a Python file a launcher: it starts processes or submits training jobs.
_PYTHON_STARTS = re.compile(
    r"\b(?:subprocess|Popen|os\.system|os\.spawn\w*|os\.exec\w*|entry_point\s*=|script_path\s*=|python_module\s*=)"
)
# Jobs whose platform sets TF_CONFIG for every task: a Kubeflow TFJob, a SageMaker estimator
# given a `distribution`, a Vertex AI / AI Platform custom job.
_SETS_ITSELF = re.compile(r"\bTFJob\b|\bdistribution\s*=|\bCustomJob\b|\bCustomTrainingJob\b|\bworker_pool_specs\b")
# Jobs that run every task in its own pod (a Kubeflow TFJob manifest, a Polyaxon `kind: tfjob`
# component): a local path is a different folder on every worker (TFD502, fixer/tf/save_locations.py).
_PER_POD = re.compile(r"\bkind\s*[:=]\s*[\"']?tfjob\b|\btfReplicaSpecs\b", re.IGNORECASE)


# Set while the caller itself starts the checked script with a TF_CONFIG per task (`distfix
# validate` runs the fixed script on its own local cluster): it is then that script's launcher.
_CALLER_LAUNCHES: ContextVar[bool] = ContextVar("distfix_caller_launches_with_tf_config", default=False)


@contextmanager
def caller_launches_with_tf_config() -> Iterator[None]:
    """Within this block the scripts checked or fixed are started by the caller, which gives each
    task its own TF_CONFIG (``distfix validate``'s local cluster)."""
    token = _CALLER_LAUNCHES.set(True)
    try:
        yield
    finally:
        _CALLER_LAUNCHES.reset(token)


def caller_launches() -> bool:
    """The caller starts the checked script with a TF_CONFIG per task (see above)."""
    return _CALLER_LAUNCHES.get()


_UNWRITTEN: ContextVar[bool] = ContextVar("distfix_run_writes_no_file", default=False)


@contextmanager
def files_unwritten_in_run() -> Iterator[None]:
    """Within this block the run writes no file (``check``, not ``fix --write``): each root's
    launchers, read once, hold until the run ends (:func:`forget_listings`)."""
    token = _UNWRITTEN.set(True)
    try:
        yield
    finally:
        _UNWRITTEN.reset(token)


@dataclass(frozen=True)
class Launcher:
    """A project file that starts a script, whether it gives the script a TF_CONFIG, whether
    it runs every task in its own pod (a TFJob), and the literal TF_CONFIG texts it sets."""

    path: str
    with_tf_config: bool
    per_pod: bool = False
    tf_configs: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Read:
    """What one launcher file says: the `.py` paths it starts, which of them get a TF_CONFIG,
    whether it is a job that runs each task in its own pod, and the TF_CONFIG texts it assigns
    as quoted shell words."""

    started: tuple[str, ...]
    with_tf_config: frozenset[str]
    per_pod: bool = False
    tf_configs: tuple[str, ...] = ()


class ScriptLaunchers:
    """The launchers of one checked script; those found become the result's dependencies."""

    def __init__(self, script: str, root: str, live: bool = False) -> None:
        self.script = os.path.abspath(script)
        self.root = root
        self.live = live  # files may change between questions (the language server): list again
        self.consulted: dict[str, Stamp] = {}

    def launchers(self) -> list[Launcher]:
        """Every launcher in the project that names this script, in path order."""
        files, scripts = _project_files(self.root, self.live)
        same_name = sum(1 for path in scripts if os.path.basename(path) == os.path.basename(self.script))
        found = []
        for path, (stamp, read) in files.items():
            if path == self.script:
                continue  # a script's own usage line (`python worker.py`) starts nothing
            named = [s for s in read.started if _names(s, path, self.script, self.root, same_name == 1)]
            if named:
                self.consulted[path] = stamp
                given = any(started in read.with_tf_config for started in named)
                found.append(Launcher(path, given, read.per_pod, read.tf_configs if given else ()))
        return found

    def readme_tf_configs(self) -> list[str]:
        """The TF_CONFIG texts the project's READMEs write for this script (fixer/tf/readme_clusters.py)."""
        from fixer.cache import file_stamp  # here: see Stamp

        configs, readmes = readme_tf_configs(self.script, self.root)
        for path in readmes:
            self.consulted[path] = file_stamp(path)
        return configs

    def compose_tf_configs(self) -> list[str]:
        """The TF_CONFIG texts the project's compose services give this script (fixer/tf/compose_clusters.py)."""
        from fixer.cache import file_stamp  # here: see Stamp

        configs, files = compose_tf_configs(self.script, self.root)
        for path in files:
            self.consulted[path] = file_stamp(path)
        return configs

    def baked_into_image(self) -> bool:
        """A Dockerfile of this script's folder copies it into its image (fixer/tf/baked_images.py)."""
        from fixer.cache import file_stamp  # here: see Stamp

        baked, files = baked_into_image(self.script)
        for path in files:
            self.consulted[path] = file_stamp(path)
        return baked

    def read_by_project(self) -> bool:
        """A `.py` file or notebook of the project imports this module or names its file
        (fixer/tf/module_readers.py); every such file of the root becomes one dependency."""
        from fixer.tf.module_readers import PYTHON_FILES, python_files_stamp, read_by_project

        key = self.root + PYTHON_FILES
        self.consulted[key] = python_files_stamp(key)
        return read_by_project(self.script, self.root)

    def task_copies_cover(self, cluster: object, task_type: str, index: int) -> bool:
        """Sibling files of this script set the same cluster and, with it, every index of
        ``task_type``: together they are the launch (fixer/tf/task_copies.py)."""
        return covers_cluster(self.script, cluster, task_type, index, self.consulted)


def launchers_of(script: str) -> ScriptLaunchers | None:
    """The launchers' view of ``script``, or None outside every project root (nothing is known)."""
    # Imported here: the importers' graph reaches the TF model, which names this module's class.
    from fixer.tf.importers import view_for

    view = view_for(script)
    return None if view is None else ScriptLaunchers(script, view.root, view.live)


# Per process: each candidate file's reading, by path, with the stamp it was read at.
_READS: dict[str, tuple[Stamp, _Read]] = {}


# Per run (the command line): each root's candidate files, listed once; `forget_views` of the
# importers' view (a new run may see other files) forgets them too.
_LISTINGS: dict[str, list[str]] = {}
# Per run that writes no file: each root's launchers and scripts (`_project_files`' answer), so the
# dozens of questions a tree asks do not stat its hundreds of files each (forgotten with the listings).
_FOUND: dict[str, tuple[dict[str, tuple[Stamp, _Read]], list[str]]] = {}


def forget_listings() -> None:
    """Drop the listings of the roots seen so far; the readings stay, kept by each file's stamp."""
    _LISTINGS.clear()
    _FOUND.clear()


def _project_files(root: str, live: bool) -> tuple[dict[str, tuple[Stamp, _Read]], list[str]]:
    """Every launcher-like file under ``root`` that names some `.py` file, with its reading; and
    every `.py` file of the tree."""
    frozen = not live and _UNWRITTEN.get()
    if frozen and root in _FOUND:
        return _FOUND[root]
    answer = _stamped_files(root, live)
    if frozen:
        _FOUND[root] = answer
    return answer


def _stamped_files(root: str, live: bool) -> tuple[dict[str, tuple[Stamp, _Read]], list[str]]:
    """:func:`_project_files` with every candidate stat'ed now (and read again when it changed)."""
    from fixer.cache import file_stamp  # here: see Stamp

    found = {}
    candidates = _LISTINGS.get(root) if not live else None
    if candidates is None:
        candidates = _LISTINGS[root] = _candidates(root)
    for path in candidates:
        stamp = file_stamp(path)
        cached = _READS.get(path)
        if cached is None or cached[0] != stamp:
            cached = _READS[path] = (stamp, _read(path, stamp))
        if cached[1].started:
            found[path] = cached
    return found, [path for path in candidates if path.endswith(".py")]


def _candidates(root: str) -> list[str]:
    """The files under ``root`` that may start programs, outside hidden folders and libraries."""
    paths = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_FOLDERS)
        for name in sorted(files):
            if name.endswith((*_SHELL_LIKE, ".py", ".ipynb")) or name in _NAMED or name.startswith("Dockerfile"):
                paths.append(os.path.join(folder, name))
    return paths


def _read(path: str, stamp: Stamp) -> _Read:
    """The scripts ``path`` starts and which of them get a TF_CONFIG; nothing for other files."""
    if stamp is None or stamp[0] > _MAX_BYTES:
        return _Read((), frozenset())
    try:
        with open_regular(path) as handle:
            text = handle.read().decode("utf-8", errors="replace")
    except (OSError, SourceError):
        return _Read((), frozenset())
    if path.endswith(".ipynb"):
        return _notebook(text)
    if path.endswith(".py") and not _PYTHON_STARTS.search(text):
        return _Read((), frozenset())  # a module that only mentions a script (a usage line)
    started = tuple(dict.fromkeys(m.group("path") for m in _SCRIPT.finditer(text)))
    # The whole file counts: an `env` stanza, `export TF_CONFIG=` or `env=` may be far from the
    # line that names the script, and a job kind that sets it applies to every task.
    given = "TF_CONFIG" in text or bool(_SETS_ITSELF.search(text))
    configs = shell_tf_configs(text) if path.endswith(_SHELL_LIKE) else ()
    return _Read(started, frozenset(started) if given else frozenset(), bool(_PER_POD.search(text)), configs)


def _notebook(text: str) -> _Read:
    """A notebook's launches (`!python x.py`, `%%bash`, `%run`, `subprocess`), in its code cells."""
    try:
        data = json.loads(text)
    except ValueError:
        return _Read((), frozenset())
    found = launches(code_sources(data))
    return _Read(
        tuple(dict.fromkeys(launch.script for launch in found)),
        frozenset(launch.script for launch in found if launch.with_tf_config),
    )


def _names(started: str, launcher: str, script: str, root: str, only_one: bool) -> bool:
    """``started`` (as ``launcher`` writes it) is ``script``: a path from the launcher's folder or
    the root that leads to it; or else the same file name (bare, or a path this tree does not
    hold, `/app/x.py`) when the tree has no other script of that name (``only_one``) or the
    launcher is in the script's folder or one above it, where the name leads to it."""
    relative = started.removeprefix("./")
    here = os.path.dirname(launcher)
    if "/" in relative and not relative.startswith("/"):
        leads = (os.path.normpath(os.path.join(here, relative)), os.path.normpath(os.path.join(root, relative)))
        if script in leads:
            return True
        if any(os.path.exists(path) for path in leads):
            return False  # another file of the tree
    if os.path.basename(relative) != os.path.basename(script):
        return False
    return only_one or os.path.commonpath([here, os.path.dirname(script)]) == here
