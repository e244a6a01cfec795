"""Project-wide statements kept in a subfolder of a project folder: the Dockerfiles and Singularity /
Apptainer definition files of a `docker/` (`dockerfiles/`, `.devcontainer/`, `singularity/`,
`apptainer/`) folder, and an install guide in a documentation folder
(`g3doc/setup/installation.md`, `docs/install.md`) telling users to `pip install tensorflow==2.6`.

The walk (fixer/target/model.py) reads these for each project root it passes (a folder with
`.git`, packaging or a licence file), as statements of that folder. A Dockerfile there is the
project's image, as one beside the code would be; an install guide is weaker, like a README: it
decides only when no pin file of the folder names TensorFlow, or when the pins set no upper bound
and admit the release the guide installs.
Read as text (never executed).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from fixer.cache import Stamp, file_stamp
from fixer.target.notebook import install_evidence
from fixer.target.readme import code_lines, read_readme
from fixer.target.shell_scripts import SHELL_SUFFIXES, read_tpu_creations
from fixer.target.singularity import DEFINITION_NAME, read_definition
from fixer.target.small_files import read_small_text
from fixer.target.sources import Evidence, Reader, read_dockerfile

DOCKER_FOLDERS = ("docker", "dockerfiles", ".devcontainer", "singularity", "apptainer")
_DOCS_FOLDERS = ("docs", "doc", "g3doc")
_DOCKER_NAME = re.compile(r"(?i)^(?:(?:docker|container)file(?:[-_.][\w.-]+)?|[\w.-]+\.(?:docker|container)file)$")
# A page or folder of a documentation tree about installing: `installation.md`, `setup/`, `getting_started.md`.
_GUIDE_WORD = re.compile(r"(?i)install|setup|getting[-_ ]?started|quick[-_ ]?start")
_GUIDE_SUFFIXES = (".md", ".markdown", ".rst")
_MAX_DEPTH = 3  # folders below the documentation folder searched for guides
_MAX_GUIDES = 50
# What marks the root of a project (a repository): project-wide files are read there only, so a
# tool's own `tools/docker/` or a job's `training/docker/` says nothing about the code beside it.
_ROOT_MARKERS = (".git", "setup.py", "setup.cfg", "pyproject.toml", "LICENSE", "LICENSE.txt", "LICENSE.md", "COPYING")


def project_root(folder: Path, consulted: dict[str, Stamp]) -> bool:
    """``folder`` is a project's root: it holds `.git`, packaging or a licence file."""
    found = False
    for marker in _ROOT_MARKERS:
        path = str(folder / marker)
        consulted[path] = file_stamp(path)
        found = found or consulted[path] is not None
    return found


def docker_folder_statements(folder: Path, consulted: dict[str, Stamp]) -> list[Evidence]:
    """What the Dockerfiles directly in the `docker/`-like subfolders of a project root (and one
    level below them: `docker/gpu/Dockerfile`) say: base images, installs, TF_USE_LEGACY_KERAS."""
    found: list[Evidence] = []
    if not project_root(folder, consulted):
        return found
    for name in DOCKER_FOLDERS:
        top = folder / name
        consulted[str(top)] = file_stamp(str(top))
        if consulted[str(top)] is None:
            continue
        for place in _with_subfolders(top, consulted):
            for entry in _entries(place):
                reader = _container_reader(entry.name)
                if reader is not None and entry.is_file():
                    consulted[entry.path] = file_stamp(entry.path)
                    text = read_small_text(entry.path)
                    found += reader(text, entry.path) if text is not None else []
    return found


def _container_reader(name: str) -> Reader | None:
    """The reader of a container file called ``name``: a Dockerfile, or a Singularity / Apptainer
    definition file (`docker/singularity_image.def`), else None."""
    if _DOCKER_NAME.match(name):
        return read_dockerfile
    return read_definition if DEFINITION_NAME.match(name) else None


def tool_folder_tpus(folder: Path, consulted: dict[str, Stamp]) -> list[Evidence]:
    """The TPU software versions the shell scripts directly in a project root's subfolders create
    TPUs with (`tpu_utils/tpu_create.sh`: `gcloud compute tpus create ... --version=2.5.0`): the
    TPU the whole project runs on. Only scripts that create a TPU become dependencies."""
    found: list[Evidence] = []
    if not project_root(folder, consulted):
        return found
    for entry in _entries(str(folder)):
        if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
            continue
        for script in _entries(entry.path):
            if not script.name.endswith(SHELL_SUFFIXES) or not script.is_file():
                continue
            text = read_small_text(script.path)
            stated = read_tpu_creations(text, script.path) if text is not None and "tpu" in text else []
            if stated:
                consulted[script.path] = file_stamp(script.path)
                found += stated
    return found


def _entries(place: str) -> list[os.DirEntry[str]]:
    try:
        return sorted(os.scandir(place), key=lambda e: e.name)
    except OSError:
        return []


def _with_subfolders(top: Path, consulted: dict[str, Stamp]) -> list[str]:
    places = [str(top)]
    for entry in _entries(str(top)):
        if entry.is_dir(follow_symlinks=False):
            consulted[entry.path] = file_stamp(entry.path)
            places.append(entry.path)
    return places


def is_install_guide(path: str) -> bool:
    """``path`` is a page of a documentation folder about installing (what :func:`install_guides` reads)."""
    parts = Path(path).parts
    docs = [i for i, part in enumerate(parts[:-1]) if part in _DOCS_FOLDERS]
    if not docs or not path.endswith(_GUIDE_SUFFIXES):
        return False
    return any(_GUIDE_WORD.search(part) for part in parts[docs[-1] + 1 :])


def install_guide_statements(folder: Path, consulted: dict[str, Stamp]) -> list[Evidence]:
    """What the install guides of ``folder``'s documentation folders tell users to install: the
    versioned TensorFlow of their code lines (as a README's), and a Keras 2 pin installed there
    (`pip install tensorflow==2.6 keras==2.6`). Read at a project root only."""
    found: list[Evidence] = []
    if not project_root(folder, consulted):
        return found
    for name in _DOCS_FOLDERS:
        top = str(folder / name)
        known = _GUIDES.get(top)
        if known is None or any(file_stamp(path) != stamp for path, stamp in known[0].items()):
            known = _GUIDES[top] = _read_guides(top)
        consulted.update(known[0])
        found += known[1]
    return found


# The guides of each documentation folder, with the stamps of what was read: every folder of a
# project walks up to the same root, so its docs tree is walked once while nothing there changes.
_GUIDES: dict[str, tuple[dict[str, Stamp], list[Evidence]]] = {}


def _read_guides(top: str) -> tuple[dict[str, Stamp], list[Evidence]]:
    read: dict[str, Stamp] = {top: file_stamp(top)}
    found: list[Evidence] = []
    if read[top] is None:
        return read, found
    guides = 0
    for root, dirs, files in os.walk(top):
        read[root] = file_stamp(root)
        dirs[:] = sorted(dirs) if len(Path(root).relative_to(top).parts) < _MAX_DEPTH else []
        for file in sorted(files):
            path = os.path.join(root, file)
            if guides >= _MAX_GUIDES or not is_install_guide(path):
                continue
            guides += 1
            read[path] = file_stamp(path)
            text = read_small_text(path)
            found += _guide_statements(text, path) if text is not None else []
    return read, found


def _guide_statements(text: str, path: str) -> list[Evidence]:
    """A guide's versioned TensorFlow (read as a README) and its bounded Keras installs."""
    keras = [
        e
        for number, code in code_lines(text)
        for e in install_evidence(re.sub(r"^\s*[$#>%]\s+", "", code), path, number)
        if e.kind == "keras" and not e.allowed.open_ended
    ]
    return read_readme(text, path) + keras
