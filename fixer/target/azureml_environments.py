"""The environment an Azure ML CLI v2 job runs in, when the job names one the project defines.

A job YAML (`command: python train.py`, `distribution: type: tensorflow`) names its environment:

    environment: azureml:tf-environment:1

and an environment definition YAML of the project registers that name and version, with the
conda file pip and conda install from (under any file name) and a docker image:

    name: tf-environment
    version: 1
    image: mcr.microsoft.com/azureml/openmpi3.1.2-ubuntu18.04
    conda_file: file:./tf_conda.yml

The job's code runs on what that conda file pins (`tensorflow-gpu==2.3.0`) and on the TensorFlow
of the image when the image names one. A definition is looked for in the job's folder and up to
three folders above it (not past a repository root), and in their subfolders named for
environments (`environments/`, `env/`). A YAML that names its own conda file (a definition
beside the code, or a job's inline `environment:`) is read the same way.
Read as text (never executed).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from fixer.cache import Stamp, file_stamp
from fixer.target.manifests import named_image_tensorflow
from fixer.target.small_files import read_small_text
from fixer.target.sources import Evidence, exactly, image_statements, image_tensorflow, read_conda

# `environment: azureml:tf-environment:1`, `azureml:name@latest`, `azureml:name` (newest version).
_REFERENCE = re.compile(
    r"""(?m)^\s*environment\s*:\s*["']?azureml:(?P<name>[A-Za-z0-9][\w.-]*?)(?::(?P<version>[\w.-]+)|@[\w.-]+)?["']?\s*(?:#.*)?$"""
)
_TOP_KEY = re.compile(r"""(?m)^(?P<key>name|version)\s*:\s*["']?(?P<value>[^"'#\s]+)["']?""")
_CONDA_FILE = re.compile(r"""(?m)^\s*conda_file\s*:\s*["']?(?:file:)?(?P<path>[^"'#\s]+)["']?""")
_IMAGE = re.compile(r"""(?m)^\s*image\s*:\s*["']?(?P<image>[^"'#\s]+)["']?""")
_YAML = re.compile(r"(?i)\.ya?ml$")
_FOLDERS_ABOVE = 3


def azureml_environments(folder: Path, consulted: dict[str, Stamp]) -> list[Evidence]:
    """What the environments the Azure ML YAMLs directly in ``folder`` use say about TensorFlow:
    the conda files they (or the definitions they name) install from, and a versioned image."""
    found: dict[tuple[str, int], Evidence] = {}
    for path, text in _yaml_files(folder, consulted):
        statements = _conda_statements(path, text, consulted)
        for match in _REFERENCE.finditer(text):
            statements += _named(folder, match.group("name"), match.group("version"), consulted)
        for evidence in statements:
            found.setdefault((evidence.path, evidence.line), evidence)
    return list(found.values())


def _yaml_files(folder: Path, consulted: dict[str, Stamp]) -> list[tuple[str, str]]:
    """(path, text) of the readable YAML files directly in ``folder``, each entered in ``consulted``."""
    try:
        entries = sorted((e for e in os.scandir(folder) if _YAML.search(e.name) and e.is_file()), key=lambda e: e.name)
    except OSError:
        return []
    files: list[tuple[str, str]] = []
    for entry in entries:
        consulted[entry.path] = file_stamp(entry.path)
        text = read_small_text(entry.path)
        if text is not None:
            files.append((entry.path, text))
    return files


def _named(job_folder: Path, name: str, version: str | None, consulted: dict[str, Stamp]) -> list[Evidence]:
    """The statements of the project's definition of environment ``name`` (at ``version``; the
    newest defined when None), searched near the job (module docstring)."""
    definitions: list[tuple[str, str, str]] = []  # (version, path, text)
    for place in _search_folders(job_folder, consulted):
        for path, text in _yaml_files(place, consulted):
            keys = {m.group("key"): m.group("value") for m in _TOP_KEY.finditer(text)}
            if keys.get("name") != name or not (_CONDA_FILE.search(text) or _IMAGE.search(text)):
                continue
            if version is None or keys.get("version") == version:
                definitions.append((keys.get("version", ""), path, text))
    if not definitions:
        return []
    _, path, text = max(definitions, key=lambda found: _version_key(found[0]))
    return _conda_statements(path, text, consulted) + _image_statements(path, text)


def _search_folders(job_folder: Path, consulted: dict[str, Stamp]) -> list[Path]:
    """The job's folder, up to three folders above it (stopping at a repository root), and each
    one's subfolders whose name says they hold environments."""
    places: list[Path] = []
    for place in [job_folder, *job_folder.parents][: _FOLDERS_ABOVE + 1]:
        places.append(place)
        try:
            found = sorted(e.path for e in os.scandir(place) if "env" in e.name.lower() and e.is_dir())
        except OSError:
            found = []
        for subfolder in found:
            consulted[subfolder] = file_stamp(subfolder)  # a definition added or removed there
            places.append(Path(subfolder))
        if (place / ".git").exists():
            break
    return places


def _conda_statements(path: str, text: str, consulted: dict[str, Stamp]) -> list[Evidence]:
    """What the conda file a YAML names (`conda_file: file:./tf_conda.yml`, relative to it) pins."""
    found: list[Evidence] = []
    for match in _CONDA_FILE.finditer(text):
        conda = os.path.normpath(os.path.join(os.path.dirname(path), match.group("path")))
        consulted[conda] = file_stamp(conda)
        conda_text = read_small_text(conda)
        found += read_conda(conda_text, conda) if conda_text is not None else []
    return found


def _image_statements(path: str, text: str) -> list[Evidence]:
    """The TensorFlow of a definition's docker image, when the image names a release."""
    found: list[Evidence] = []
    for match in _IMAGE.finditer(text):
        image, line = match.group("image"), text.count("\n", 0, match.start("image")) + 1
        if image_tensorflow(image) is not None:
            found += image_statements(image, path, line)
        elif (version := named_image_tensorflow(image)) is not None:
            found.append(Evidence("tensorflow", exactly(version), path, line, match.group(0).strip()))
    return found


def _version_key(version: str) -> tuple[int, ...]:
    """An environment version for ordering: `2` > `1`, a non-number oldest."""
    return tuple(int(part) for part in version.split(".")) if re.fullmatch(r"\d+(?:\.\d+)*", version) else (-1,)
