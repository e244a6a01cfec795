"""The project-target model: which TensorFlow and which Keras a project runs, and where that came
from. Computed once per folder and kept while every file and folder it looked at is unchanged."""

from __future__ import annotations

import os
import re
import zlib
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from fixer.cache import Stamp, file_stamp
from fixer.target.apis import added_in, exists_in
from fixer.target.azureml_environments import azureml_environments
from fixer.target.caps import capped, package_cap, python_cap
from fixer.target.ci_containers import ci_containers, ci_oldest, ci_range, workflow_files
from fixer.target.ci_installs import ci_installed_requirements, ci_installs, ci_root, circleci_files
from fixer.target.ci_switch import CI_FOLDERS, CI_ROOT_FILES, ci_legacy_switch
from fixer.target.cloud_launchers import Launch, launched_scripts, may_launch
from fixer.target.constraints import constrained
from fixer.target.copied_images import copied_into_images
from fixer.target.image_range import release_range
from fixer.target.job_programs import job_programs, may_run_job
from fixer.target.manifests import COMPOSE_NAME, job_scripts, read_compose
from fixer.target.multibackend_keras import NEWEST_TENSORFLOW, multi_backend, multi_backend_cap, multi_backend_floor
from fixer.target.notebook import NotebookPins, notebook_pins, upgrades
from fixer.target.notebook_exports import export_markers, exported_from
from fixer.target.own_base_images import own_base_images
from fixer.target.packaging_folders import packaging_statements
from fixer.target.platform_pins import METADATA_NAMES, platform_image, platform_pin, undated_pin
from fixer.target.project_files import (
    docker_folder_statements,
    install_guide_statements,
    is_install_guide,
    tool_folder_tpus,
)
from fixer.target.readme import README_NAME, read_readme
from fixer.target.recorded_keras import recorded_keras2
from fixer.target.saved_runs import describe, oldest_release
from fixer.target.script_installs import script_installs
from fixer.target.shell_scripts import SHELL_SUFFIXES, read_shell_script
from fixer.target.singularity import DEFINITION_NAME, read_definition
from fixer.target.small_files import MAX_BYTES, read_small_text
from fixer.target.sources import (
    Evidence,
    Reader,
    read_conda,
    read_pipfile,
    read_pyproject,
    read_requirements,
    read_setup_cfg,
    read_setup_py,
    reader_for,
    unversioned_image,
)
from fixer.target.submission_readmes import system_readme_statements
from fixer.target.submission_systems import submission_statements
from fixer.target.venv_jobs import venv_jobs
from fixer.target.versions import CAPPING_IMPORTS, CURRENT, KERAS2_PACKAGES, KERAS3_FROM

if TYPE_CHECKING:
    from collections.abc import Iterator


# The kinds of the statements an import that caps TensorFlow makes (caps.import_cap).
_CAPPING_NAMES = frozenset(name for name, _ in CAPPING_IMPORTS.values())


@dataclass(frozen=True)
class Target:
    """The TensorFlow and Keras a project's code must work on.

    ``pinned`` is what the project's files say (None: they say nothing); ``requested`` is
    `target-version` / `--target-version`; ``version`` is the one rules judge against: the
    requested one, else the pinned one, else the current release (then ``assumed`` is True).
    """

    pinned: tuple[int, int] | None = None
    requested: tuple[int, int] | None = None
    tensorflow_from: Evidence | None = None
    keras_pin: Evidence | None = None
    legacy_env: Evidence | None = None
    tf_keras_from: Evidence | None = None
    evidence: tuple[Evidence, ...] = ()
    consulted: tuple[tuple[str, Stamp], ...] = field(default=(), compare=False)
    tf1_from: Evidence | None = None  # the checked file is written for TensorFlow 1.x APIs: what shows it
    floor_from: Evidence | None = None  # a package's declared lowest TensorFlow (`tensorflow>=1.15` in setup.py)
    keras2_from: Evidence | None = None  # a call only Keras 2 accepts in the checked file (`Adam(lr=...)`)
    recorded_keras_from: Evidence | None = None  # a notebook's saved output shows a Keras 2 run
    cap_from: Evidence | None = None  # what caps an open requirement (CI on Python 3.7, tensorflow-addons)
    # A release the same repository pins farther from the code than the open requirement that
    # decided (`tensorflow_gpu==2.3.1` in the root README above a vendored `tensorflow>=2.4.0`).
    older_from: Evidence | None = None
    # Scripts of this folder a notebook submits as Vertex AI jobs, with the jobs' containers.
    submitted: tuple[tuple[str, tuple[Evidence, ...]], ...] = field(default=(), compare=False)
    # The TF 2 run a notebook's saved outputs show (the checked notebook's own, else the oldest of
    # its folder's notebooks): a past run, which never moves the version judged.
    saved_run: Evidence | None = None
    # The oldest release the repository's CI installs, when older than the version judged: some job
    # runs the code there, so a name it lacks is not one to rename to (``has``; fixer/target/ci_installs.py).
    tested_from: Evidence | None = None
    # The oldest of the release lines a README lists as supported ("TensorFlow: 1.15.x & 2.4.x",
    # fixer/target/supported_lines.py): some of the project's code runs there, so a rename to a
    # name it lacks is no safe edit; a file written for both majors is judged on it (for_both_lines).
    lines_from: Evidence | None = None
    # The checked notebook's code cells as (cell number, saved execution count): where the counts
    # start over, the kernel was restarted (fixer/tf/restart_cells.py).
    cell_counts: tuple[tuple[int, int | None], ...] = field(default=(), compare=False)
    # Scripts of this folder a notebook of the folder runs (`!python main.py`), with that notebook:
    # the script runs in the notebook's environment, so the notebook's statements are its own.
    launched_by: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    # The checked notebook's code cells whose saved outputs show a run that raised nothing.
    ran_clean: frozenset[int] = field(default=frozenset(), compare=False)

    @property
    def version(self) -> tuple[int, int]:
        return self.requested or self.pinned or CURRENT

    @property
    def assumed(self) -> bool:
        """Nothing said which TensorFlow: the current release is assumed."""
        return self.requested is None and self.pinned is None

    @property
    def upgrade(self) -> bool:
        """The requested target is newer than the pinned version: findings are about upgrading."""
        return self.requested is not None and self.pinned is not None and self.requested > self.pinned

    @property
    def keras(self) -> int:
        """2 (tf-keras / Keras 2) or 3: what `tf.keras` is on the target, before the script's own
        TF_USE_LEGACY_KERAS (which rules read from the script)."""
        if self.version < KERAS3_FROM:
            return 2
        if self.legacy_env is not None and self.legacy_env.legacy:
            return 2
        if self.keras2_from is not None and self.version_unknown and not self.declares_keras3:
            return 2  # no release can be told, and the code is written for Keras 2
        if self.recorded_keras2:
            return 2
        return 3

    @property
    def recorded_keras2(self) -> bool:
        """The notebook's saved output shows it ran on Keras 2 (fixer/target/recorded_keras.py), and
        nothing else states a Keras: no release can be told, no Keras 3 requirement, no
        TF_USE_LEGACY_KERAS. A pin, an install cell or an image that names a release wins."""
        return (
            self.recorded_keras_from is not None
            and self.version_unknown
            and not self.declares_keras3
            and self.legacy_env is None
        )

    @property
    def version_unknown(self) -> bool:
        """No release can be told: nothing names TensorFlow, or only the unversioned official
        image does (built from whichever release was newest on the day it was built). A bare
        `tensorflow` requirement is known: every fresh install gets the newest release."""
        if self.requested is not None:
            return False
        source = self.tensorflow_from or self.keras_pin
        return source is None or (source.allowed.open_ended and (unversioned_image(source.text) or undated_pin(source)))

    @property
    def floor(self) -> tuple[int, int] | None:
        """The oldest TensorFlow the code may meet, below the version judged: a package's declared
        lower bound (`tensorflow>=1.15,<3` in setup.py resolves to 2.21 but admits 1.15: its users
        may run it), or an older release the same repository pins farther up (``older_from``).
        None with a requested target-version, which is the version the code must work on."""
        if self.requested is None and self.older_from is not None:
            older = self.older_from.allowed.newest()
            if older < self.version:
                return min(older, self._package_floor() or older)
        return self._package_floor()

    def _package_floor(self) -> tuple[int, int] | None:
        if self.requested is not None or self.floor_from is None:
            return None
        low = self.floor_from.allowed.low
        floor = (low[0], low[1] if len(low) > 1 else 0)
        return floor if floor < self.version else None

    def has(self, name: str) -> bool:
        """``name`` (of fixer/target/apis.py's tables) exists on the target, on the package's
        declared floor and on the oldest release its CI installs: a rename to it works for every
        user. A frozen platform image has no known oldest release, so a name some release lacks is
        never known to exist there; and the image never moves, so the old name keeps working in it
        (prec27)."""
        if self.frozen_platform_image and added_in(name) is not None:
            return False
        if self.tested_oldest is not None and not exists_in(name, self.tested_oldest):
            return False
        return exists_in(name, self.version) and (self.floor is None or exists_in(name, self.floor))

    @property
    def tested_oldest(self) -> tuple[int, int] | None:
        """The oldest release the repository's CI installs, when older than the version judged and
        no target-version is requested: the project tests its code there, so a name that release
        lacks is not one its code can use (fix22b; docs/target.md, "Releases a CI installs")."""
        if self.requested is not None or self.tested_from is None:
            return None
        oldest = self.tested_from.allowed.newest()
        return oldest if oldest < self.version else None

    @property
    def past_run(self) -> Evidence | None:
        """The saved run renames must also work on: where no release is stated (a stated one is
        what the code runs on, whatever an older output shows)."""
        return self.saved_run if self.assumed or self.version_unknown else None

    def saved_run_lacks(self, name: str) -> str | None:
        """Why a rename to ``name`` is not safe although the target has it: where no release is
        stated, a notebook's saved output shows a run on a release without ``name``; the clause
        for the message, None otherwise. The finding stays (true on the TensorFlow a rerun gets
        today); the rewrite would break the notebook on the release it last ran on."""
        run = self.past_run
        if run is None or exists_in(name, oldest_release(run)):
            return None
        spelled = name.replace("tensorflow.", "tf.", 1)
        # A bound (`TF 2.3 or older`) admits releases with the name too: only its oldest lacks it.
        printed = run.allowed.low != (0,) and not run.allowed.open_above
        lacking = "which has no" if printed else "which may not have"
        return f"{Path(run.path).name}'s saved output shows {describe(run)}, {lacking} `{spelled}`"

    def lines_lack(self, name: str) -> str | None:
        """Why a rename to ``name`` is not safe although the target has it: the oldest release line
        the README supports lacks it; the clause for the message, None otherwise. The finding stays
        (the newer line has the name); the rewrite would break the older line. (The oldest release a
        CI installs bounds ``has`` instead: the project tests its code there.)"""
        lines = self.lines_from
        if self.requested is not None or lines is None or exists_in(name, release := lines.allowed.newest()):
            return None
        spelled = name.replace("tensorflow.", "tf.", 1)
        where = f"{Path(lines.path).name}:{lines.line}"
        return f"{where} also lists TensorFlow {release[0]}.{release[1]}, which has no `{spelled}`"

    def for_both_lines(self) -> Target:
        """This target for a file written for both TensorFlow majors (it tests which one runs): it
        runs on every line the README supports, so the oldest bounds its names as a floor does."""
        lines = self.lines_from
        if lines is None or self.requested is not None or lines.allowed.newest() >= self.version:
            return self
        older = self.older_from
        if older is not None and older.allowed.newest() <= lines.allowed.newest():
            return self
        return replace(self, older_from=lines)

    @property
    def frozen_platform_image(self) -> bool:
        """The code runs in a notebook platform's image frozen on the day the notebook was first
        published (`docker_image_pinning_type` "original"), not in a fresh install: the newest
        release it can hold is known at best (a dated pin), the oldest never."""
        return self.requested is None and self.tensorflow_from is not None and platform_image(self.tensorflow_from)

    def disagreement(self, name: str) -> str | None:
        """Why ``name`` cannot be written for every release the project states, for advice: the
        older release the repository pins farther up lacks it (``older_from``); None otherwise."""
        older = self.older_from
        added = added_in(name)
        if self.requested is not None or older is None or added is None or exists_in(name, older.allowed.newest()):
            return None
        release = older.allowed.newest()
        return (
            f"needs TF {added[0]}.{added[1]}, but {Path(older.path).name}:{older.line} states "
            f"TensorFlow {release[0]}.{release[1]}"
        )

    def with_keras2_usage(self, evidence: Evidence | None) -> Target:
        """This target for a file that ``evidence`` shows is written for Keras 2 (a call Keras 3
        rejects): `tf.keras` counts as Keras 2 where no TensorFlow version is stated. An import of a
        package built on Keras 2 (`import tensorflow_addons`) also caps a TensorFlow requirement
        open above, as a requirement on that package would: the file runs where it imports."""
        if evidence is None:
            return self
        usage = replace(self, keras2_from=evidence, evidence=(*self.evidence, evidence))
        tensorflow = self.tensorflow_from
        if (
            evidence.kind not in _CAPPING_NAMES
            or self.pinned is None
            or tensorflow is None
            or tensorflow.kind != "tensorflow"
            or not _dependency_statement(tensorflow)
        ):
            return usage
        pinned, cap = capped(self.pinned, tensorflow.allowed, [evidence])
        return usage if cap is None else replace(usage, pinned=pinned, cap_from=cap)

    @property
    def tf1_program(self) -> bool:
        """The checked file is a TensorFlow 1.x program (`tf.contrib`, `tf.Session`,
        `import tensorflow.compat.v1 as tf`, `disable_v2_behavior()`): TF 2 names are no advice there."""
        return self.tf1_from is not None

    def in_tf1_program(self, evidence: Evidence | None) -> Target:
        """This target for a file that ``evidence`` shows is written for TensorFlow 1.x. A name only
        1.x has (its ``allowed`` is 1.15) is the most specific source: the file runs on 1.15 whatever
        its folder pins; the `tf.compat.v1` API (an open ``allowed``) runs on the pinned TensorFlow 2."""
        if evidence is None:
            return self
        if evidence.allowed.open_ended:
            return replace(self, tf1_from=evidence, evidence=(evidence, *self.evidence))
        return replace(
            self, tf1_from=evidence, tensorflow_from=evidence, pinned=(1, 15), evidence=(evidence, *self.evidence)
        )

    @property
    def declares_keras3(self) -> bool:
        """A requirement admits only Keras 3 (`keras>=3.15`): the project is written for Keras 3."""
        return any(e.kind == "keras" and e.allowed.low >= (3,) for e in self.evidence)

    @property
    def declares_tf_keras(self) -> bool:
        return self.tf_keras_from is not None

    def label(self) -> str:
        """``TensorFlow 2.5`` for messages."""
        return f"TensorFlow {self.version[0]}.{self.version[1]}"

    def assumed_note(self) -> str:
        """ "; 2.21 assumed: no pin found" for a message that cites the version of an assumed target."""
        return f"; {self.version[0]}.{self.version[1]} assumed: no pin found" if self.assumed else ""

    def upgrade_prefix(self, same_at_pin: bool = False) -> str:
        """ "on upgrade to TF 2.21: " for a finding about the requested upgrade, else "". A rule
        passes ``same_at_pin`` when the pinned version gets the same finding: it is no upgrade finding."""
        return f"on upgrade to TF {self.version[0]}.{self.version[1]}: " if self.upgrade and not same_at_pin else ""

    def at_pin(self) -> Target:
        """This target without the requested version: what the project runs today."""
        return replace(self, requested=None)

    def provenance(self) -> str:
        """Where the version came from, for messages: `pinned in requirements.txt:3`."""
        if self.requested is not None:
            return "the requested target-version"
        if self.tensorflow_from is not None and self.cap_from is not None:
            return f"from {self.tensorflow_from.where}, capped by {self.cap_from.where}: {self.cap_from.text}"
        if self.tensorflow_from is not None:
            return f"from {self.tensorflow_from.where}"
        if self.keras_pin is not None:
            return f"from the Keras pin at {self.keras_pin.where}"
        return "assumed: no dependency file names TensorFlow"

    def dependency_file(self) -> str | None:
        """The dependency file the pin came from (requirements, pyproject, setup files, Pipfile,
        conda environment), where a requirement belongs; None for an image or a job config."""
        source = self.tensorflow_from or self.keras_pin
        if source is None:
            return None
        reader = _reader(Path(source.path).name, Path(source.path).parent.name == "requirements")
        return source.path if reader in _DEPENDENCY_READERS else None

    def tf_keras_requirement(self) -> str:
        """The requirement that gives this target tf-keras: `tf-keras~=2.17.0`."""
        major, minor = max(self.version, KERAS3_FROM)
        return f"tf-keras~={major}.{minor}.0"

    def with_request(self, requested: tuple[int, int] | None) -> Target:
        return replace(self, requested=requested) if requested != self.requested else self


# A consulted entry for a folder's list of the files the target reads (not its modification time,
# which a new .py file or the cache folder would change): `<folder>|target-files`.
LISTING = "|target-files"


def _target_files(folder: str) -> list[os.DirEntry[str]]:
    """The files of ``folder`` a reader exists for (in `requirements/`, every .txt)."""
    inside_requirements = os.path.basename(folder) == "requirements"
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    return [e for e in entries if _reader(e.name, inside_requirements) is not None and e.is_file()]


def listing_stamp(key: str) -> Stamp:
    """Which target files a folder holds, as a stamp: changes when one is added, removed or renamed.
    Its notebooks count too: their saved outputs and Vertex jobs speak for the folder's scripts."""
    folder = key.removesuffix(LISTING)
    inside_requirements = os.path.basename(folder) == "requirements"
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return None
    names = "\0".join(
        e.name
        for e in entries
        if (e.name.endswith(".ipynb") or _reader(e.name, inside_requirements) is not None) and e.is_file()
    )
    return (len(names), zlib.crc32(names.encode("utf-8", "surrogateescape"))) if names else None


# Cached by name: a folder's listing is stamped again for every file checked in it (target_for),
# and a name's reader is four regular expressions away (tf-keras: 194,000 asks for 755 files).
@lru_cache(maxsize=4096)
def _reader(name: str, inside_requirements: bool) -> Reader | None:
    if inside_requirements and name.endswith((".txt", ".in")):
        return read_requirements
    if README_NAME.match(name):
        return read_readme
    if COMPOSE_NAME.match(name):
        return read_compose
    if name.endswith(SHELL_SUFFIXES):
        return read_shell_script  # a TPU's software version, an HPC module a job loads
    if DEFINITION_NAME.match(name):
        return read_definition  # a Singularity / Apptainer image an HPC job runs in
    return reader_for(name)


# Files an editor should report changes of (LSP file watchers): every name a reader exists for.
WATCH_GLOBS = (
    "**/requirements*.txt",
    "**/requirments*.txt",
    "**/constraints*.txt",
    "**/requirements/*.txt",
    "**/setup.py",
    "**/setup.cfg",
    "**/Pipfile",
    "**/*.yml",
    "**/*.yaml",
    "**/Dockerfile*",
    "**/*.Dockerfile",
    "**/Containerfile",
    "**/*.def",
    "**/Singularity*",
    *(f"**/*{suffix}" for suffix in SHELL_SUFFIXES),
    "**/[Rr][Ee][Aa][Dd][Mm][Ee].*",
    "**/docs/**/*.{md,markdown,rst}",
    "**/doc/**/*.{md,markdown,rst}",
    "**/g3doc/**/*.{md,markdown,rst}",
    *(f"**/{name}" for name in METADATA_NAMES),
)


def is_target_file(path: str) -> bool:
    """The project-target model reads ``path`` when it is in a folder the model looks at."""
    name, folder = os.path.basename(path), os.path.basename(os.path.dirname(path))
    return name in METADATA_NAMES or _reader(name, folder == "requirements") is not None or is_install_guide(path)


_DEPENDENCY_READERS = (read_requirements, read_pyproject, read_setup_py, read_setup_cfg, read_pipfile, read_conda)


def _read_folder(folder: Path, consulted: dict[str, Stamp]) -> list[Evidence]:
    """Everything the files of one folder (and of its `requirements/` subfolder) say."""
    found: list[Evidence] = []
    for place in (str(folder), str(folder / "requirements")):
        consulted[place + LISTING] = listing_stamp(place + LISTING)
        for entry in _target_files(place):
            consulted[entry.path] = file_stamp(entry.path)
            text = read_small_text(entry.path)
            if text is None:
                continue
            reader = _reader(entry.name, place != str(folder))
            stated = reader(text, entry.path) if reader is not None else []
            if reader is read_requirements:  # `-c constraints.txt`: its pins are the versions installed
                stated = constrained(
                    text, entry.path, stated, lambda path: consulted.__setitem__(path, file_stamp(path))
                )
            found += stated
            if reader is read_setup_py:
                found += _setup_modules(text, Path(place), consulted)
    return found


_IMPORTED = re.compile(r"(?m)^\s*(?:from\s+(\w+)\s+import\b|import\s+(\w+)\s*$)")


def _setup_modules(setup: str, folder: Path, consulted: dict[str, Stamp]) -> list[Evidence]:
    """What the modules beside `setup.py` that it imports declare (`from dependencies import
    make_required_install_packages`): a requirement list built in code, read as setup.py is."""
    found: list[Evidence] = []
    for match in _IMPORTED.finditer(setup):
        module = folder / f"{match.group(1) or match.group(2)}.py"
        consulted[str(module)] = file_stamp(str(module))
        text = read_small_text(module) if module.name != "setup.py" else None
        if text is not None:
            found += read_setup_py(text, str(module))
    return found


def _keras2_only(evidence: Evidence) -> bool:
    """A Keras requirement below 3 (`keras==2.14`, `keras<3`): a Keras 2 pin. `keras>=3.15`
    admits no Keras 2 and is no such pin."""
    return evidence.allowed.high <= (3, 0, 0)


def _package_floor_file(evidence: Evidence) -> bool:
    """The statement is a package's declaration: setup.py or a module it imports, setup.cfg, pyproject.toml."""
    name = Path(evidence.path).name
    return name.endswith(".py") or name in ("setup.cfg", "pyproject.toml")


def _package_floor(tensorflow: Evidence | None) -> Evidence | None:
    """``tensorflow`` when it is a package's declaration with a lower bound: users of the package
    may run that release."""
    if tensorflow is None or tensorflow.kind != "tensorflow" or tensorflow.allowed.low == (0,):
        return None
    return tensorflow if _package_floor_file(tensorflow) else None


def _folder_notebook_pins(folder: Path, consulted: dict[str, Stamp]) -> Iterator[NotebookPins]:
    """The pins of each notebook directly in ``folder`` (none when it cannot be listed), each
    notebook entered in ``consulted`` so an edit of it invalidates the answer."""
    try:
        notebooks = sorted(e.path for e in os.scandir(folder) if e.name.endswith(".ipynb") and e.is_file())
    except OSError:
        return
    for notebook in notebooks:
        stamp, pins = _pins(Path(notebook))
        consulted[notebook] = stamp
        yield pins


def _submitted(candidate: Path, folder: Path, consulted: dict[str, Stamp]) -> list[tuple[str, tuple[Evidence, ...]]]:
    """The scripts of ``folder`` that notebooks in ``candidate`` submit as Vertex AI jobs
    (`CustomTrainingJob(script_path="task.py", container_uri=".../tf-gpu.2-4:latest")`), each with
    the containers the notebook names: the script runs there, not beside the notebook."""
    found: list[tuple[str, tuple[Evidence, ...]]] = []
    for pins in _folder_notebook_pins(candidate, consulted):
        jobs = tuple(e for e in pins.containers if e.kind in ("tensorflow", "tf-nightly"))
        for script in pins.scripts if jobs else ():
            path = Path(os.path.normpath(candidate / script))
            if path.parent == folder:
                found.append((str(path), jobs))
    return found


# Per launcher file: its stamp, whether it may launch (a cheap text test), the scripts it launches.
_LAUNCHERS: dict[str, tuple[Stamp, bool, list[Launch]]] = {}


def _cloud_launched(
    candidate: Path, folder: Path, consulted: dict[str, Stamp]
) -> list[tuple[str, tuple[Evidence, ...]]]:
    """The scripts of ``folder`` that launchers in ``candidate`` (notebooks and scripts) run as
    SageMaker TensorFlow estimators or in Vertex AI prebuilt containers, each with the TensorFlow
    the launcher names (fixer/target/cloud_launchers.py). Each file is read again only when it
    changes; only files that may launch become dependencies, so editing an ordinary module does
    not invalidate its neighbours' results (a launcher written later is seen once they change)."""
    root = next((p for p in [candidate, *candidate.parents] if (p / ".git").exists()), Path(candidate.anchor))
    try:
        launchers = sorted(e.path for e in os.scandir(candidate) if e.name.endswith((".py", ".ipynb")) and e.is_file())
    except OSError:
        return []
    jobs: dict[str, list[Evidence]] = {}
    for launcher in launchers:
        stamp = file_stamp(launcher)
        known = _LAUNCHERS.get(launcher)
        if known is None or known[0] != stamp:
            limit = _MAX_NOTEBOOK_BYTES if launcher.endswith(".ipynb") else MAX_BYTES
            text = _read_text(launcher) if stamp is not None and stamp[0] <= limit else None
            launching = text is not None and may_launch(text)
            known = _LAUNCHERS[launcher] = (stamp, launching, launched_scripts(text, launcher, root) if text else [])
        if known[1]:
            consulted[launcher] = stamp
        for script, evidence in known[2]:
            if Path(script).parent == folder:
                jobs.setdefault(script, []).append(evidence)
    return [(script, tuple(evidence)) for script, evidence in jobs.items()]


# Per job script: its stamp, whether it may install and run (a cheap text test), what it runs.
_JOBS: dict[str, tuple[Stamp, bool, list[Launch]]] = {}


def _job_programs(candidate: Path, folder: Path, consulted: dict[str, Stamp]) -> list[tuple[str, tuple[Evidence, ...]]]:
    """The files of ``folder`` that job scripts in ``candidate`` or a folder directly below it
    (`pipelines/job_script.py` beside `main.py`'s folder) run after installing a TensorFlow: the
    program and the project modules it imports (fixer/target/job_programs.py). As for cloud
    launchers, each file is read again only when it changes and only files that may run a job
    become dependencies."""
    root = next((p for p in [candidate, *candidate.parents] if (p / ".git").exists()), Path(candidate.anchor))
    try:
        below = [e.path for e in os.scandir(candidate) if e.is_dir() and not e.name.startswith(".")]
    except OSError:
        return []
    jobs: dict[str, list[Evidence]] = {}
    for place in [str(candidate), *sorted(below)]:
        try:
            scripts = sorted(
                e.path for e in os.scandir(place) if e.name.endswith((".py", *SHELL_SUFFIXES)) and e.is_file()
            )
        except OSError:
            continue
        for script in scripts:
            stamp = file_stamp(script)
            known = _JOBS.get(script)
            if known is None or known[0] != stamp:
                text = _read_text(script) if stamp is not None and stamp[0] <= MAX_BYTES else None
                running = text is not None and may_run_job(text)
                known = _JOBS[script] = (stamp, running, job_programs(text, script, root) if text and running else [])
            if known[1]:
                consulted[script] = stamp
            for program, evidence in known[2]:
                if Path(program).parent == folder:
                    jobs.setdefault(program, []).append(evidence)
    return [(program, tuple(evidence)) for program, evidence in jobs.items()]


def _read_text(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _launched(folder: Path, start: Path, consulted: dict[str, Stamp]) -> list[Evidence]:
    """The job containers that notebooks in ``folder`` name, when they also name a folder below
    it holding ``start`` (`command(code="./src", environment="AzureML-tensorflow-2.16-cuda12")`):
    the code there runs in that container."""
    found: list[Evidence] = []
    for pins in _folder_notebook_pins(folder, consulted):
        for named in pins.paths:
            code = Path(os.path.normpath(folder / named))
            if code != folder and folder in code.parents and (code == start or code in start.parents):
                found += pins.containers
                break
    return found


def _lowest(evidence: list[Evidence]) -> Evidence:
    """Of several statements in one folder, the one resolving to the oldest TensorFlow: the code
    must run on it (an unbounded `tensorflow` only when nothing is pinned)."""
    pinned = [e for e in evidence if not e.allowed.open_ended] or evidence
    return min(pinned, key=lambda e: e.allowed.newest())


def _run_in(statements: list[Evidence], pins: list[Evidence]) -> list[Evidence]:
    """The README / install-guide statements of a folder whose pins set no upper bound and admit
    the release they name (`tensorflow>=1.15` beside `docker run ...merlin-tensorflow-training:22.04`):
    installed in that container, the pin keeps the container's TensorFlow, so the container decides."""
    named = [e for e in statements if _from_readme(e) and e.kind == "tensorflow" and not e.allowed.open_above]
    if not pins or any(e.kind != "tensorflow" or not e.allowed.open_above for e in pins):
        return []
    return [e for e in named if all(pin.allowed.allows((*e.allowed.newest(), 0)) for pin in pins)]


def _from_readme(evidence: Evidence) -> bool:
    """The statement is a README's or an install guide's (docs/target.md: weaker than a pin file
    of its folder)."""
    return README_NAME.match(Path(evidence.path).name) is not None or is_install_guide(evidence.path)


def _pinned_version(tensorflow: Evidence | None, keras_pin: Evidence | None) -> tuple[int, int] | None:
    if tensorflow is not None:
        return CURRENT if tensorflow.kind == "tf-nightly" else tensorflow.allowed.newest()
    if multi_backend(keras_pin):
        return NEWEST_TENSORFLOW  # standalone multi-backend Keras (below 2.4) ran on TensorFlow <= 2.2
    if keras_pin is not None:
        # TensorFlow 2.6-2.15 each require the Keras 2 of their own minor version; pip resolves
        # an unpinned TensorFlow beside `keras==2.14` to TensorFlow 2.14.
        minor = keras_pin.allowed.newest()[1]
        return (2, minor) if 6 <= minor <= 15 else (2, 15)
    return None


def _caps(folder: Path, found: list[Evidence], consulted: dict[str, Stamp]) -> list[Evidence]:
    """What caps an open TensorFlow requirement in ``folder``: its CI's Python, a requirement on a
    package built on Keras 2 such as tensorflow-addons (fixer/target/caps.py)."""
    workflows = str(folder / ".github" / "workflows")
    consulted[workflows] = file_stamp(workflows)  # a workflow added or removed changes the folder
    python, files = python_cap(folder)
    for path in files:
        consulted[str(path)] = file_stamp(str(path))
    for path in (folder / ".travis.yml", folder / "tox.ini", *circleci_files(folder)):
        consulted.setdefault(str(path), file_stamp(str(path)))
    packages = [package_cap(e) or multi_backend_cap(e) for e in found if _dependency_statement(e)]
    return ([python] if python is not None else []) + [cap for cap in packages if cap is not None]


def _ci_switch(
    folder: Path, consulted: dict[str, Stamp]
) -> tuple[list[Evidence], list[tuple[str, tuple[Evidence, ...]]]]:
    """The TF_USE_LEGACY_KERAS setting of ``folder``'s CI (fixer/target/ci_switch.py): one for the
    whole project, as a statement of the folder weaker than its own files (it comes after them),
    and those of workflow steps that run named scripts, as a job's for those scripts."""
    for parts in CI_FOLDERS:
        scripts = str(folder.joinpath(*parts))
        consulted.setdefault(scripts, file_stamp(scripts))  # a script added or removed changes the folder
    for name in CI_ROOT_FILES:
        consulted.setdefault(str(folder / name), file_stamp(str(folder / name)))
    switch, scoped, files = ci_legacy_switch(folder)
    for path in files:
        consulted[str(path)] = file_stamp(str(path))
    return ([switch] if switch is not None else []), [(script, (setting,)) for script, setting in scoped]


def _dependency_statement(evidence: Evidence) -> bool:
    """The statement is a dependency file's (what pip installs), not an image's or a job's."""
    path = Path(evidence.path)
    return _reader(path.name, path.parent.name == "requirements") in _DEPENDENCY_READERS


def _decide(folder: Path) -> Target:
    consulted: dict[str, Stamp] = {}
    tensorflow: Evidence | None = None
    declared: Evidence | None = None  # the folder's own pin, whose lower bound is a package's floor
    image_floor: Evidence | None = None  # the oldest of one image per supported release
    keras_pin = legacy = tf_keras = None
    everything: list[Evidence] = []
    caps: list[Evidence] = []
    submitted: list[tuple[str, tuple[Evidence, ...]]] = []
    ci_tested: list[Evidence] = []
    ci_installed: list[Evidence] = []  # the releases CI jobs install with pip
    # A package's floor binds the modules its users import (a folder with `__init__.py`), not the
    # scripts and test data beside them, which run on whatever TensorFlow is installed.
    init = str(folder / "__init__.py")
    consulted[init] = file_stamp(init)
    decided_at: Path | None = None  # the folder whose files decided, unless a launcher's job did
    for candidate in [folder, *folder.parents]:
        launched = _launched(candidate, folder, consulted) if candidate != folder else []
        submitted += _submitted(candidate, folder, consulted) + job_scripts(candidate, folder)
        submitted += venv_jobs(candidate, folder, lambda path: consulted.__setitem__(path, file_stamp(path)))
        found = launched + _read_folder(candidate, consulted)
        if candidate == folder:
            # Images elsewhere in the repository that copy this folder in (a job's Dockerfile
            # installing TensorFlow beside a shared library): statements of the folder itself.
            found += copied_into_images(folder, consulted)
            # Its Dockerfile built `FROM` an image the repository builds itself: that image's folder.
            found += own_base_images(folder, consulted, _read_folder)
        # A setup script in a packaging subfolder that builds on this folder's requirements file.
        found += packaging_statements(candidate, lambda path: consulted.__setitem__(path, file_stamp(path)))
        # Project-wide files kept in subfolders: `docker/Dockerfile`, `g3doc/setup/installation.md`.
        found += docker_folder_statements(candidate, consulted) + install_guide_statements(candidate, consulted)
        found += tool_folder_tpus(candidate, consulted)  # `tpu_utils/create.sh`: the project's TPU
        found += azureml_environments(candidate, consulted)  # a job's `environment: azureml:<name>:<version>`
        found += submission_statements(candidate, consulted)  # an MLPerf submitter's `systems/*.json` framework
        found += system_readme_statements(candidate, consulted)  # an MLPerf system's README beside the code
        caps += _caps(candidate, found, consulted)
        switch, stepped = _ci_switch(candidate, consulted)
        found += switch
        submitted += stepped
        ci_tested += ci_containers(candidate)  # the releases a CI job's container matrix runs
        ci_installed += _ci_installs(candidate, consulted)
        everything += found
        tf_here = [e for e in found if e.kind in ("tensorflow", "tf-nightly")]
        if tensorflow is None and tf_here:
            # The job container a launcher names for this code is where it runs; a README is
            # weaker than the folder's real pin files: it decides only without them.
            pinned_here = [e for e in tf_here if not _from_readme(e)]
            job = [e for e in launched if e.kind in ("tensorflow", "tf-nightly")]
            tensorflow = _lowest(job or _run_in(tf_here, pinned_here) or pinned_here or tf_here)
            decided_at = None if job else candidate
            images = None if job else release_range(pinned_here)  # one image per supported release
            if images is not None:
                tensorflow, image_floor = images
            # A package's declared floor still binds its modules when a container decides the
            # folder's scripts: the package's users import it on any release the pin admits.
            declared = _lowest(pinned_here) if pinned_here and not job else tensorflow
        for e in found:
            if e.kind == "keras" and keras_pin is None and _keras2_only(e):
                keras_pin = e
            elif e.kind == "legacy-keras" and legacy is None:
                legacy = e
            elif e.kind == "tf-keras" and tf_keras is None:
                tf_keras = e
        tested = ci_range(ci_tested) if tensorflow is None else None
        if tested is not None:
            # Nothing else names TensorFlow: the CI's TF 2 containers are the supported range.
            tensorflow, image_floor = tested
            declared = tensorflow
        if tf_here or tested is not None or (candidate / ".git").exists():
            break  # the nearest project that names TensorFlow, or the repository root
    tensorflow, tested_from = _with_ci_installs(tensorflow, ci_installed)
    if tensorflow is not None and declared is None:
        declared = tensorflow
    everything += ci_installed
    older = None
    if tensorflow is not None and decided_at is not None and tensorflow.allowed.open_above:
        farther = _farther_release(decided_at, consulted)
        if farther is not None and farther.allowed.newest() < (2, 0):
            farther = None  # a TensorFlow 1 release is another program's: TF 2 code cannot run there
        if farther is not None and tensorflow.kind == "tf-nightly":
            # `tf-nightly` names no release (the development head of whichever day it was
            # written): the release the enclosing project pins is what its code runs on.
            tensorflow = declared = farther
        elif farther is not None:
            older = farther  # sources disagree: checked against the version below (Target.floor)
        everything += [farther] if farther is not None else []
    if tensorflow is not None and tensorflow.kind == "tensorflow" and tensorflow.allowed.open_above:
        # An open requirement that CI tests on older containers: renames must run on the oldest.
        oldest = ci_oldest(ci_tested + (_ci_above(decided_at, consulted) if decided_at is not None else []))
        if oldest is not None and (older is None or oldest.allowed.newest() < older.allowed.newest()):
            older = oldest
    everything += ci_tested
    # A cloud launcher names the TensorFlow of one script, above any pin of its folder: it may sit
    # above the folder that pins (a SageMaker `source_dir` with its own requirements.txt).
    for candidate in [folder, *folder.parents]:
        submitted += _cloud_launched(candidate, folder, consulted)
        submitted += _job_programs(candidate, folder, consulted)
        if (candidate / ".git").exists():
            break
    saved_run = _oldest_saved_run(folder, consulted)
    launched_by = _notebook_launched(folder, consulted)
    pinned, cap = _pinned_version(tensorflow, keras_pin), None
    if (
        tensorflow is not None
        and pinned is not None
        and tensorflow.kind == "tensorflow"
        and _dependency_statement(tensorflow)
    ):
        # The CI's Python binds a package's declaration (setup.py, setup.cfg, pyproject.toml), which
        # its users import on the Pythons it is tested on; an application's requirements file is
        # installed by whoever runs the scripts, on their own Python (as for a floor), unless the
        # CI itself installs that file (`pip install -r requirements.txt` on Python 3.6).
        package = _package_floor_file(tensorflow)
        binding = [c for c in caps if package or c.kind != "python-cap" or _installed_by_ci(tensorflow, c)]
        pinned, cap = capped(pinned, tensorflow.allowed, binding)
    return Target(
        pinned=pinned,
        cap_from=cap,
        submitted=tuple(submitted),
        launched_by=launched_by,
        tensorflow_from=tensorflow,
        keras_pin=keras_pin,
        legacy_env=legacy,
        tf_keras_from=tf_keras,
        evidence=(*everything, *(c for c in caps if c.kind == "python-cap")),
        consulted=tuple(sorted(consulted.items())),
        floor_from=image_floor
        or (multi_backend_floor(keras_pin) if tensorflow is None else None)
        or (_package_floor(declared) if consulted[init] is not None else None),
        older_from=older,
        keras2_from=_keras2_requirement(everything) if tensorflow is None and keras_pin is None else None,
        saved_run=saved_run,
        tested_from=tested_from,
        lines_from=min(lines, key=lambda e: e.allowed.newest()) if (lines := _supported_lines(everything)) else None,
    )


def _supported_lines(found: list[Evidence]) -> list[Evidence]:
    """The README lines listing several supported releases (fixer/target/supported_lines.py)."""
    return [e for e in found if e.kind == "supported-lines"]


def _ci_installs(folder: Path, consulted: dict[str, Stamp]) -> list[Evidence]:
    """The TensorFlow 2 releases ``folder``'s CI installs with pip (fixer/target/ci_installs.py),
    recording what was read so that a new or edited workflow, action or `.travis.yml` counts."""
    installed, files = ci_installs(folder)
    for path in [folder / ".github" / "actions", folder / ".travis.yml", *circleci_files(folder), *files]:
        consulted.setdefault(str(path), file_stamp(str(path)))
    return installed


def _installed_by_ci(requirement: Evidence, python: Evidence) -> bool:
    """The CI whose Python ``python`` states installs the requirements file ``requirement`` is
    in (`pip install -r requirements.txt`): that file is tested on that Python, so its open
    TensorFlow requirement resolves to what pip finds for it (fixer/target/caps.py)."""
    root = ci_root(Path(python.path))
    try:
        relative = Path(requirement.path).resolve().relative_to(root).as_posix()
    except ValueError:
        return False
    return relative in ci_installed_requirements(root)


def _with_ci_installs(
    tensorflow: Evidence | None, installed: list[Evidence]
) -> tuple[Evidence | None, Evidence | None]:
    """The statement that decides, given the releases the CI installs with pip, and the oldest of
    those when it is older than the decided one (``Target.tested_from``). The newest installed
    release decides where nothing else names TensorFlow, and over a dependency file's requirement
    that is open above and admits it (`tensorflow>=2.0.0` says only what the code needs at least;
    the CI's `pip install tensorflow==2.9.0` is what it is tested on: docs/target.md, "Releases a
    CI installs"). A bounded pin, an image or a job's container keeps deciding."""
    if not installed:
        return tensorflow, None
    newest = max(installed, key=lambda e: e.allowed.newest())
    oldest = min(installed, key=lambda e: e.allowed.newest())
    if tensorflow is not None and not (
        tensorflow.kind == "tensorflow"
        and tensorflow.allowed.open_above
        and _dependency_statement(tensorflow)
        and tensorflow.allowed.allows((*newest.allowed.newest(), 0))
    ):
        return tensorflow, None
    return newest, (oldest if oldest.allowed.newest() < newest.allowed.newest() else None)


def _oldest_saved_run(folder: Path, consulted: dict[str, Stamp]) -> Evidence | None:
    """The oldest TF 2 run the saved outputs of ``folder``'s notebooks show: the folder's code
    ran on it (a script beside the notebook that recorded it, or the notebook itself)."""
    runs = [pins.saved_run for pins in _folder_notebook_pins(folder, consulted) if pins.saved_run is not None]
    return min(runs, key=oldest_release, default=None)


def _farther_release(decided_at: Path, consulted: dict[str, Stamp]) -> Evidence | None:
    """The release the same repository states farther from the code than ``decided_at`` (whose
    requirement is open above: a lower bound, a bare name, `tf-nightly`): in the first folder
    above it, up to the repository root, that names TensorFlow, its bounded statement resolving
    to the oldest release (`tensorflow==2.4.1`, `tensorflow~=2.12.0`, a README's
    `tensorflow_gpu==2.3.1`, a versioned image; a README as in the walk). None when that
    folder names only open requirements, or when no repository root (`.git`) holds the folder:
    without one, the folders above are no project of the code's."""
    root = next((p for p in decided_at.parents if (p / ".git").exists()), None)
    if root is None or (decided_at / ".git").exists():
        return None
    for candidate in decided_at.parents:
        found = _read_folder(candidate, consulted)
        found += packaging_statements(candidate, lambda path: consulted.__setitem__(path, file_stamp(path)))
        found += docker_folder_statements(candidate, consulted) + tool_folder_tpus(candidate, consulted)
        found += submission_statements(candidate, consulted)
        tf_here = [e for e in found if e.kind in ("tensorflow", "tf-nightly")]
        if tf_here:
            # The folder's own precedence: a README counts only without pin files (or as their container).
            pins = [e for e in tf_here if not _from_readme(e)]
            chosen = _run_in(tf_here, pins) or pins or tf_here
            bounded = [e for e in chosen if e.kind == "tensorflow" and not e.allowed.open_above]
            return _lowest(bounded) if bounded else None
        if candidate == root:
            return None
    return None


def _ci_above(decided_at: Path, consulted: dict[str, Stamp]) -> list[Evidence]:
    """The CI containers of the folders above ``decided_at`` up to its repository root (none
    without one), where a repository's workflows live."""
    root = next((p for p in [decided_at, *decided_at.parents] if (p / ".git").exists()), None)
    if root is None or root == decided_at:
        return []
    for candidate in decided_at.parents:
        if candidate == root:
            _consult_workflows(candidate, consulted)
            return ci_containers(candidate)
    return []


def _consult_workflows(folder: Path, consulted: dict[str, Stamp]) -> None:
    """Record ``folder``'s workflows folder and files, so that editing one invalidates the answer."""
    workflows = str(folder / ".github" / "workflows")
    consulted.setdefault(workflows, file_stamp(workflows))
    for path in workflow_files(folder):
        consulted.setdefault(str(path), file_stamp(str(path)))


def _keras2_requirement(found: list[Evidence]) -> Evidence | None:
    """A dependency file's requirement on a package built on Keras 2 (`tensorflow-addons`) where
    nothing names TensorFlow: the package imports only on TensorFlow <= 2.15 (versions.KERAS2_PACKAGES),
    so the project's `tf.keras` is Keras 2, as for an import of it (``Target.with_keras2_usage``)."""
    return next((e for e in found if e.kind in KERAS2_PACKAGES and _dependency_statement(e)), None)


_CACHE: dict[Path, Target] = {}


def target_for(path: str | Path, requested: tuple[int, int] | None = None, text: str = "") -> Target:
    """The target of the project around ``path`` (a file or a folder), with ``requested`` (the
    configured target-version) applied. Recomputed when a file or folder it read has changed.

    For a notebook, what the notebook itself installs (or, for ``text`` made of its `%%writefile`
    cells, the container its trainer is submitted to) outranks the folder's files: the most
    specific source wins (docs/target.md)."""
    start = Path(path).resolve()
    folder = start if start.is_dir() else start.parent
    known = _CACHE.get(folder)
    if known is None or any(file_stamp(p) != stamp for p, stamp in known.consulted):
        known = _CACHE[folder] = _decide(folder)
    script = (text or read_small_text(start) or "") if start.suffix == ".py" and start.is_file() else None
    notebook = _exported_notebook(start, script) if script is not None else None
    if start.suffix == ".ipynb" and start.is_file():
        known = _in_notebook(_with_platform_pin(known, start), start, text)
    elif notebook is not None:
        known = _in_notebook(_with_platform_pin(known, notebook), notebook, "")
    elif (launcher := _launching_notebook(known, start)) is not None:
        known = _in_notebook(_with_platform_pin(known, launcher), launcher, "")
    elif known.submitted:
        known = _in_job(known, str(start))
    if script is not None:
        known = _with_script_installs(known, script_installs(script, str(start)))
    return known.with_request(requested)


def _notebook_launched(folder: Path, consulted: dict[str, Stamp]) -> tuple[tuple[str, str], ...]:
    """(script, notebook) for each script of ``folder`` that a notebook of ``folder`` runs in its
    kernel's environment (`%%bash` / `!python main.py`, `%run`); the first notebook, by name, wins."""
    try:
        notebooks = sorted(e.path for e in os.scandir(folder) if e.name.endswith(".ipynb") and e.is_file())
    except OSError:
        return ()
    found: dict[str, str] = {}
    for notebook in notebooks:
        stamp, pins = _pins(Path(notebook))
        consulted[notebook] = stamp
        for script in sorted(pins.launched):
            path = Path(os.path.normpath(folder / script))
            if path.parent == folder:
                found.setdefault(str(path), notebook)
    return tuple(found.items())


def _launching_notebook(folder: Target, script: Path) -> Path | None:
    """The notebook of ``script``'s folder that runs it (``folder.launched_by``), if any."""
    if script.suffix != ".py" or not folder.launched_by:
        return None
    return next((Path(notebook) for path, notebook in folder.launched_by if path == str(script)), None)


def _exported_notebook(script: Path, text: str) -> Path | None:
    """The executed notebook ``script`` (whose source is ``text``) is the nbconvert export of: its
    `# In[N]:` markers are that notebook's execution counts (fixer/target/notebook_exports.py)."""
    notebook = exported_from(script, text)
    if notebook is None or _pins(notebook)[1].counts != export_markers(text):
        return None
    return notebook


def _with_script_installs(folder: Target, installs: list[Evidence]) -> Target:
    """``folder``'s target for a script that pip-installs its own TensorFlow (or Keras, tf-keras)
    before it trains (fixer/target/script_installs.py): what it installs is what it runs, above its
    folder's files and its job's container; the last install wins, as a notebook's install cells."""
    if not installs:
        return folder
    decisive = [e for e in installs if e.kind == "tf-nightly" or (e.kind == "tensorflow" and _decisive(e))]
    keras_pin = _last([e for e in installs if e.kind == "keras" and _keras2_only(e)], "keras") or folder.keras_pin
    tensorflow = decisive[-1] if decisive else folder.tensorflow_from
    tf_keras = _last(installs, "tf-keras") or folder.tf_keras_from
    own = replace(folder, tf_keras_from=tf_keras, evidence=(*installs, *folder.evidence))
    if tensorflow is folder.tensorflow_from and keras_pin is folder.keras_pin:
        return own
    pinned = _pinned_version(tensorflow, keras_pin)
    return replace(
        own,
        pinned=pinned,
        cap_from=None,
        tensorflow_from=tensorflow,
        keras_pin=keras_pin,
        floor_from=None,
        older_from=None,
    )


def _decisive(install: Evidence) -> bool:
    """An install that sets the TensorFlow: a version, or `-U` (the newest). A bare `pip install
    tensorflow` keeps a TensorFlow already there (the platform's)."""
    return not install.allowed.open_ended or upgrades(install)


def _with_platform_pin(folder: Target, notebook: Path) -> Target:
    """``folder``'s target for a notebook that a platform's metadata (in its folder or up to two
    above, within the repository) pins to the image of its first publication: that image beats
    the folder's files; the notebook's own install cells still beat it (``_in_notebook``)."""
    folders = [notebook.parent]
    while len(folders) < 3 and not (folders[-1] / ".git").exists() and folders[-1].parent != folders[-1]:
        folders.append(folders[-1].parent)
    pin, looked = platform_pin(notebook, folders)
    consulted = tuple(sorted({**dict(folder.consulted), **{path: file_stamp(path) for path in looked}}.items()))
    if pin is None:
        return replace(folder, consulted=consulted)
    return replace(
        folder,
        pinned=_pinned_version(pin, folder.keras_pin),
        tensorflow_from=pin,
        cap_from=None,
        floor_from=None,
        older_from=None,
        evidence=(pin, *folder.evidence),
        consulted=consulted,
    )


def _in_job(folder: Target, script: str) -> Target:
    """``folder``'s target for ``script`` when a launcher runs it as a job (a notebook's Vertex AI
    job, a job manifest, a SageMaker estimator): the job's TensorFlow decides (the oldest, when
    several are named: the script must run on each)."""
    # One statement may be read twice (a notebook's Vertex job is also a cloud launcher's).
    named = {
        (e.path, e.cell, e.line, e.text): e
        for path, containers in folder.submitted
        if path == script
        for e in containers
    }
    legacy = [e for e in named.values() if e.kind == "legacy-keras"]  # a CI step's own switch
    if legacy:
        folder = replace(folder, legacy_env=legacy[0], evidence=(*legacy, *folder.evidence))
    jobs = [e for e in named.values() if e.kind != "legacy-keras"]
    if not jobs:
        return folder
    tensorflow = _lowest(jobs)
    return replace(
        folder,
        pinned=_pinned_version(tensorflow, folder.keras_pin),
        tensorflow_from=tensorflow,
        cap_from=None,
        floor_from=None,
        older_from=None,
        evidence=(*jobs, *folder.evidence),
    )


_MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024  # notebooks carry their outputs: larger than a dependency file
_NOTEBOOKS: dict[Path, tuple[Stamp, NotebookPins]] = {}
_CELL_MARK = re.compile(r"(?m)^# distfix-cell (\d+)$")  # fixer/notebook.py's cell boundary


def _pins(notebook: Path) -> tuple[Stamp, NotebookPins]:
    """What the notebook file says (kept while its stamp is unchanged)."""
    stamp = file_stamp(str(notebook))
    known = _NOTEBOOKS.get(notebook)
    if known is None or known[0] != stamp:
        pins = NotebookPins()
        if stamp is not None and stamp[0] <= _MAX_NOTEBOOK_BYTES:
            try:
                pins = notebook_pins(notebook.read_text(encoding="utf-8", errors="replace"), str(notebook))
            except OSError:
                pass
        known = _NOTEBOOKS[notebook] = (stamp, pins)
    return known


def _last(evidence: list[Evidence], kind: str) -> Evidence | None:
    """The last statement of ``kind``: a later install cell replaces what an earlier one installed."""
    return next((e for e in reversed(evidence) if e.kind == kind), None)


def _in_notebook(folder: Target, notebook: Path, text: str) -> Target:
    """``folder``'s target refined by the notebook's own statements. ``text`` is the module being
    checked: the notebook's cells, or only `%%writefile` cells (a module the notebook writes)."""
    stamp, pins = _pins(notebook)
    cells = {int(number) for number in _CELL_MARK.findall(text)}
    written = bool(cells) and cells <= pins.writers
    own = list(pins.own)
    tensorflow = folder.tensorflow_from
    installed = [e for e in own if e.kind in ("tensorflow", "tf-nightly")]
    decisive = [e for e in installed if e.kind == "tf-nightly" or not e.allowed.open_ended or upgrades(e)]
    job = list(pins.containers) if written else []
    if job:
        # The job's image: the code must run on each one named.
        tensorflow = _lowest([e for e in job if e.kind in ("tensorflow", "tf-nightly")])
    elif decisive:
        # A bare `pip install tensorflow` (no version, no -U) is not: it keeps a TensorFlow already
        # there (Colab's, a base image's), whichever that is.
        tensorflow = decisive[-1]
    elif pins.instructions and (folder.version_unknown or (tensorflow is not None and _from_readme(tensorflow))):
        # The image its text says to run it in: weaker than a pin file, like a README's.
        tensorflow = _lowest(list(pins.instructions))
    keras = _last([e for e in own if _keras2_only(e)], "keras")
    keras_pin = keras or folder.keras_pin
    kept = tensorflow is folder.tensorflow_from and keras_pin is folder.keras_pin
    # The kernel's saved outputs say which Keras ran the notebook's cells, not a written module's job.
    recorded = None if written else recorded_keras2(notebook, stamp)
    return replace(
        folder,
        # The folder's decision, cap included, unless the notebook installs or submits its own.
        pinned=folder.pinned if kept else _pinned_version(tensorflow, keras_pin),
        cap_from=folder.cap_from if kept else None,
        tensorflow_from=tensorflow,
        keras_pin=keras_pin,
        legacy_env=_last(job, "legacy-keras") or _last(own, "legacy-keras") or folder.legacy_env,
        tf_keras_from=_last(job, "tf-keras") or _last(own, "tf-keras") or folder.tf_keras_from,
        # A package's floor is about the folder's declaration, not a notebook's own install or job.
        floor_from=folder.floor_from if tensorflow is folder.tensorflow_from else None,
        older_from=folder.older_from if tensorflow is folder.tensorflow_from else None,
        recorded_keras_from=recorded,
        evidence=(*own, *job, *pins.instructions, *([recorded] if recorded else []), *folder.evidence),
        consulted=tuple(sorted({**dict(folder.consulted), str(notebook): stamp}.items())),
        # A module the notebook writes runs in its job, not in the kernel whose run was recorded.
        saved_run=None if written else pins.saved_run or folder.saved_run,
        cell_counts=() if written else pins.cell_counts,
        ran_clean=frozenset() if written else pins.ran_clean,
    )
