"""Readers for the files that say which TensorFlow a project runs. Each reads text statically
(project files are never executed) and returns what it found as :class:`Evidence`."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fixer.target.build_args import pinned_spec
from fixer.target.continuation import logical_lines
from fixer.target.dockerfile_variables import declare, substitute
from fixer.target.local_installs import copies, local_install_statements
from fixer.target.release_images import release_in_image, release_in_name
from fixer.target.requirements import Range, parse_requirement
from fixer.target.setup_arguments import blank_descriptive_arguments
from fixer.target.versions import (
    AZURE_LEGACY_KERAS,
    CURRENT,
    LAST_PY3_TAG_RELEASE,
    MERLIN_TENSORFLOW,
    ngc_tensorflow,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

_LEGACY_TRUE = frozenset({"1", "true", "True"})  # what TensorFlow 2.21 accepts (tensorflow/__init__.py)


@dataclass(frozen=True)
class Evidence:
    """One statement about the target: a requirement, a base image or a TF_USE_LEGACY_KERAS setting.

    ``kind`` is "tensorflow", "tf-nightly", "keras", "tf-keras" (a requirement or an image) or
    "legacy-keras" (``allowed`` is then meaningless and ``legacy`` holds the setting).
    """

    kind: str
    allowed: Range
    path: str
    line: int
    text: str
    legacy: bool = False
    cell: int | None = None  # the notebook cell ``line`` counts in

    @property
    def where(self) -> str:
        """``requirements.txt:3``, ``train.ipynb:cell 2:1``."""
        return f"{self.path}:{self.line}" if self.cell is None else f"{self.path}:cell {self.cell}:{self.line}"


def exactly(version: tuple[int, int]) -> Range:
    """The releases of one minor version: ``(2, 9)`` is 2.9.*."""
    allowed = Range()
    allowed.at_least(version)
    allowed.below((version[0], version[1] + 1))
    return allowed


def line_of(text: str, offset: int) -> int:
    """The 1-based line of ``text`` that holds character ``offset``."""
    return text.count("\n", 0, offset) + 1


def _requirement(text: str, path: str, line: int, **kind: bool) -> list[Evidence]:
    found = parse_requirement(text, **kind)
    return [Evidence(found.kind, found.allowed, path, line, text.strip())] if found is not None else []


def read_requirements(text: str, path: str) -> list[Evidence]:
    """`requirements*.txt` / `constraints*.txt`: one requirement a line; options (`-r`, `--index-url`) skipped."""
    found: list[Evidence] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        if line and not line.startswith("-"):
            found += _requirement(line, path, number)
    return found


def _strings_in(text: str) -> list[tuple[str, int]]:
    """Every quoted string literal of a Python, TOML or INI text, with the line it is on."""
    return [(m.group(2), line_of(text, m.start())) for m in re.finditer(r"""(["'])([^"'\n]+)\1""", text)]


def read_setup_py(text: str, path: str) -> list[Evidence]:
    """`setup.py`: requirement strings anywhere in it (install_requires, extras_require), read as
    text; an f-string of module-level string constants (`f'tensorflow~={tf_version}'`) as its value.
    `setup()`'s other arguments (`keywords=["tensorflow"]`, classifiers) are no requirements."""
    text = _resolve_fstrings(re.sub(r"(?m)(^|\s)#.*$", r"\1", blank_descriptive_arguments(text)))
    return [e for string, line in _strings_in(text) for e in _requirement(string, path, line)]


# `tf_version = '2.12.0'` at the start of a line (a module-level constant).
_CONSTANT = re.compile(r"""(?m)^(\w+)\s*=\s*(["'])([^"'\n]*)\2\s*$""")
_FSTRING = re.compile(r"""(?<![\w"'])[fF](["'])([^"'\n]*)\1""")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _resolve_fstrings(text: str) -> str:
    """``text`` with each one-line f-string whose every placeholder is a module-level string
    constant replaced by its value (a plain string on the same line); others are left as they are."""
    constants: dict[str, str] = {}
    for match in _CONSTANT.finditer(text):
        constants.setdefault(match.group(1), match.group(3))  # the first: a later one may be a variant's

    def resolved(match: re.Match[str]) -> str:
        names = _PLACEHOLDER.findall(match.group(2))
        if not names or any(name not in constants for name in names):
            return match.group(0)
        value = _PLACEHOLDER.sub(lambda m: constants[m.group(1)], match.group(2))
        return f"{match.group(1)}{value}{match.group(1)}"

    return _FSTRING.sub(resolved, text)


def read_setup_cfg(text: str, path: str) -> list[Evidence]:
    """`setup.cfg`: requirement lines under install_requires / extras_require (`gpu = tensorflow-gpu`)."""
    found: list[Evidence] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = re.sub(r"(^|\s)[#;].*$", "", line).strip()
        value = (
            line.split("=", 1)[1] if re.match(r"^[\w.-]+\s*=", line) and not re.match(r"^[\w.-]+\s*==", line) else line
        )
        if value.strip():
            found += _requirement(value.strip(), path, number)
    return found


def _toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def _line_naming(text: str, name: str) -> int:
    match = re.search(rf"(?im)^.*{re.escape(name)}", text)
    return line_of(text, match.start()) if match else 1


def _poetry_table(table: object, text: str, path: str) -> list[Evidence]:
    """`name = "^2.15"` / `name = {version = "~2.15"}` (Poetry and Pipfile tables)."""
    found: list[Evidence] = []
    if not isinstance(table, dict):
        return found
    for name, value in table.items():
        spec = value.get("version", "*") if isinstance(value, dict) else value
        if isinstance(spec, str):
            found += _requirement(f"{name} {spec}", path, _line_naming(text, name), poetry=True)
    return found


def read_pyproject(text: str, path: str) -> list[Evidence]:
    """`pyproject.toml`: PEP 621 dependencies and optional dependencies, Poetry dependencies and groups."""
    data = _toml(text)
    project = data.get("project", {})
    strings = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        strings += extra
    found = [e for s in strings if isinstance(s, str) for e in _requirement(s, path, _line_naming(text, s))]
    poetry = data.get("tool", {}).get("poetry", {})
    found += _poetry_table(poetry.get("dependencies"), text, path)
    found += _poetry_table(poetry.get("dev-dependencies"), text, path)
    for group in poetry.get("group", {}).values():
        found += _poetry_table(group.get("dependencies") if isinstance(group, dict) else None, text, path)
    return found


def read_pipfile(text: str, path: str) -> list[Evidence]:
    """`Pipfile`: the [packages] and [dev-packages] tables (`tensorflow = "==2.3"`, `"*"`)."""
    data = _toml(text)
    return _poetry_table(data.get("packages"), text, path) + _poetry_table(data.get("dev-packages"), text, path)


def read_conda(text: str, path: str) -> list[Evidence]:
    """`environment.yml` / `conda.yaml`: list items, conda's (`tensorflow=2.4`) and a `pip:` list's."""
    found: list[Evidence] = []
    for number, line in enumerate(text.splitlines(), 1):
        item = re.match(r"^\s*-\s*['\"]?([^'\"#]+)", line)
        if item:
            found += _requirement(item.group(1).strip(), path, number, conda=True)
    return found + read_job_config(text, path)


# A container image or runtime name that fixes the TensorFlow version.
_OFFICIAL = re.compile(r"(?<![\w./-])(?:docker\.io/)?tensorflow/tensorflow(?::(?P<tag>[\w.-]+))?")
# An unversioned tag with the retired `-py3` part (`latest-py3-jupyter`): see LAST_PY3_TAG_RELEASE.
_FROZEN_PY3_TAG = re.compile(r"^(?![\d.]|.*nightly)[\w.-]*?(?:^|-)py3(?:-|$)")
_NGC = re.compile(r"nvcr\.io/nvidia/tensorflow:(?P<year>\d\d)\.(?P<month>\d\d)(?:-tf(?P<major>\d))?")
# NVIDIA Merlin's TensorFlow containers: `nvcr.io/nvidia/merlin/merlin-tensorflow-training:22.04`.
_MERLIN = re.compile(r"nvcr\.io/nvidia/merlin/(?P<name>merlin-[\w-]+)(?::(?P<tag>[\w.-]+))?")
# Google deep-learning containers and Vertex AI / AI Platform prebuilt images: `tf2-cpu.2-11`, `tf-gpu.2-3`.
_GOOGLE = re.compile(r"(?<![\w-])tf2?-(?:cpu|gpu|tpu)\.(?P<major>\d+)-(?P<minor>\d+)")
# AWS Deep Learning Containers (SageMaker's framework images): the tag starts with the TensorFlow
# release, `<account>.dkr.ecr.<region>.amazonaws.com/tensorflow-training:2.7.1-gpu-py38-cu112-ubuntu20.04`
# (also `tensorflow-inference`, and their `-neuron` / `-graviton` variants).
_AWS_DLC = re.compile(
    r"\.dkr\.ecr\.[\w-]+\.amazonaws\.com(?:\.cn)?/tensorflow-(?:training|inference)(?:-[a-z]+)?:"
    r"(?P<major>\d+)\.(?P<minor>\d+)"
)
_AZURE = re.compile(r"AzureML-(?:[A-Za-z0-9]+-)*?tensorflow-(?P<major>\d+)\.(?P<minor>\d+)", re.I)
# A job's runtime: `runtimeVersion: '2.1'` (job YAML), `runtime_version="2.8"`, `--runtime-version 2.1` (gcloud).
RUNTIME = re.compile(r"""runtime[_-]?version["']?\s*[:=\s]\s*["']?(?P<major>\d+)\.(?P<minor>\d+)""", re.I)


# Text that each image pattern above needs (`tf2-cpu.` holds `pu.`): a line holding none of them
# names no image, answered by one search instead of one per pattern.
_IMAGE_WORDS = re.compile(r"tensorflow/tensorflow|nvcr\.io/nvidia/|pu\.|\.dkr\.ecr\.|(?i:azureml-)")


def may_name_image(text: str) -> bool:
    """``text`` may name an image :func:`image_tensorflow` knows (a cheap test before its patterns)."""
    return _IMAGE_WORDS.search(text) is not None


def image_tensorflow(text: str) -> tuple[int, int] | None:
    """The TensorFlow a container image or curated environment name ships, from the tables."""
    if not may_name_image(text):
        return None
    if (match := _OFFICIAL.search(text)) is not None:
        tag = match.group("tag") or "latest"
        version = re.match(r"(\d+)\.(\d+)", tag)
        if version is not None:
            return int(version.group(1)), int(version.group(2))
        return LAST_PY3_TAG_RELEASE if _FROZEN_PY3_TAG.match(tag) else CURRENT
    if (match := _NGC.search(text)) is not None:
        if match.group("major") == "1":
            return (1, 15)
        return ngc_tensorflow(int(match.group("year")), int(match.group("month")))
    if (match := _MERLIN.search(text)) is not None and match.group("name") in MERLIN_TENSORFLOW:
        return _merlin_tensorflow(match) or CURRENT  # an unknown release: see unversioned_image
    for pattern in (_GOOGLE, _AWS_DLC, _AZURE):
        if (match := pattern.search(text)) is not None:
            return int(match.group("major")), int(match.group("minor"))
    return None


def _merlin_tensorflow(match: re.Match[str]) -> tuple[int, int] | None:
    """The TensorFlow of a Merlin container release listed in NVIDIA's support matrix, else None."""
    release = re.match(r"(\d\d)\.(\d\d)", match.group("tag") or "")
    table = MERLIN_TENSORFLOW.get(match.group("name"), {})
    return table.get((int(release.group(1)), int(release.group(2)))) if release else None


def unknown_merlin_release(text: str) -> bool:
    """``text`` names a Merlin TensorFlow container whose tag NVIDIA's support matrix does not list
    (`merlin-tensorflow:22.08`, `:latest`): it ships some TensorFlow, which one cannot be told."""
    match = _MERLIN.search(text)
    return match is not None and match.group("name") in MERLIN_TENSORFLOW and _merlin_tensorflow(match) is None


def unversioned_image(text: str) -> bool:
    """``text`` names the official image without a version tag (`tensorflow/tensorflow`,
    `:latest-gpu`): the newest release on the day the image was built, which is not today's. So
    does a Merlin container of a release the support matrix does not list."""
    match = _OFFICIAL.search(text)
    tag = (match.group("tag") or "") if match is not None else ""
    official = match is not None and re.match(r"\d", tag) is None and "nightly" not in tag
    official = official and not _FROZEN_PY3_TAG.match(tag)
    return official or (match is None and unknown_merlin_release(text))


def image_statements(text: str, path: str, line: int, cell: int | None = None) -> list[Evidence]:
    """What the image or curated environment named in ``text`` installs: its TensorFlow (an open
    requirement for the unversioned official image: built from whichever release was newest),
    and for a curated Azure ML image of :data:`AZURE_LEGACY_KERAS` also tf-keras and the
    legacy-Keras switch its build sets."""
    version = image_tensorflow(text)
    if version is None:
        return []
    statement = text.strip()
    if unversioned_image(text):
        return [Evidence("tensorflow", Range(), path, line, statement, cell=cell)]
    found = [Evidence("tensorflow", exactly(version), path, line, statement, cell=cell)]
    if version in AZURE_LEGACY_KERAS and _AZURE.search(text):
        found.append(Evidence("tf-keras", exactly(version), path, line, statement, cell=cell))
        found.append(Evidence("legacy-keras", Range(), path, line, statement, legacy=True, cell=cell))
    return found


def legacy_evidence(value: str, path: str, line: int, text: str, cell: int | None = None) -> Evidence:
    """A TF_USE_LEGACY_KERAS setting to ``value`` (legacy when TensorFlow reads it as true)."""
    return Evidence(
        "legacy-keras", Range(), path, line, text.strip(), legacy=value.strip("'\"") in _LEGACY_TRUE, cell=cell
    )


def _argument_evidence(rest: str, path: str, line: int) -> list[Evidence]:
    """`ARG FROM_IMAGE_NAME=nvcr.io/nvidia/tensorflow:21.02-tf2-py3` (a base image given as the
    argument's default) or `ARG TENSORFLOW_VERSION=2.9.2`."""
    name, _, value = rest.partition("=")
    value = value.strip().strip("'\"")
    if not value:
        return []
    if re.fullmatch(r"(?i)\w*(?:tensorflow|tf)_?version", name.strip()) and re.fullmatch(r"\d+\.\d+(?:\.\d+)?", value):
        major, minor = value.split(".")[:2]
        return [Evidence("tensorflow", exactly((int(major), int(minor))), path, line, rest.strip())]
    # `ARG tensorflow_pip_spec=tf-nightly-gpu==2.3.0.dev20200620`: the requirement the image installs.
    spec = pinned_spec(value)
    return [Evidence("tensorflow", spec, path, line, rest.strip())] if spec else image_statements(value, path, line)


def _named_base_image(rest: str, path: str, line: int) -> list[Evidence]:
    """A base image the tables do not know whose name or tag carries its TensorFlow release
    (`FROM <registry>/tensorflow-2.1.0-notebook-gpu:1.0.0`, a notebook image family whose tag is
    its own release): the image was built on that release, as a compose service's image is read."""
    image = next((word for word in rest.split() if not word.startswith("--")), "")
    release = release_in_image(image)
    return [Evidence("tensorflow", exactly(release), path, line, rest.strip())] if release is not None else []


def read_dockerfile(text: str, path: str) -> list[Evidence]:
    """`Dockerfile`, `*.Dockerfile`, `Containerfile`: the base image (also as an `ARG` default),
    `ARG TENSORFLOW_VERSION=`, `pip install` arguments and `ENV TF_USE_LEGACY_KERAS`. Of several
    stages, every one is read. A file named for a release (`Dockerfile_tf115`) whose text names no
    TensorFlow states that release."""
    found: list[Evidence] = []
    instructions = [(w[0].upper(), w[1]) for _, i in logical_lines(text) if len(w := i.strip().split(None, 1)) == 2]
    copied = copies(instructions)
    variables: dict[str, str] = {}  # the ENV / ARG values declared so far
    for line, instruction in logical_lines(text):
        words = instruction.strip().split(None, 1)
        if len(words) < 2 or words[0].startswith("#"):
            continue
        keyword, rest = words[0].upper(), words[1]
        if keyword in ("ENV", "ARG"):
            declare(keyword, rest, variables)
        elif keyword == "RUN":
            rest = substitute(rest, variables)  # `pip install tensorflow==${TF_VERSION}`
        if keyword == "FROM":
            found += image_statements(rest, path, line) or _named_base_image(rest, path, line)
        elif keyword == "ARG":
            found += _argument_evidence(rest, path, line)
        elif keyword == "RUN":
            for command in re.split(r"&&|;|\|\|", rest):
                if re.search(r"\bpip3?\s+install\b|\bpython3?\s+-m\s+pip\s+install\b", command):
                    for word in command.split():
                        if not word.startswith("-"):
                            found += _requirement(word.strip("'\""), path, line)
                            # The repository's own package copied in, with an extra naming TensorFlow.
                            found += [Evidence(*stated) for stated in local_install_statements(word, copied, path)]
        elif keyword == "ENV":
            setting = re.search(r"\bTF_USE_LEGACY_KERAS(?:\s*=\s*|\s+)(\S+)", rest)
            if setting:
                found.append(legacy_evidence(setting.group(1), path, line, instruction))
    release = release_in_name(path)
    if release is not None and not any(e.kind in ("tensorflow", "tf-nightly") for e in found):
        # One image per supported release, its TensorFlow installed in a way the text does not name.
        named = f"{path.rsplit('/', 1)[-1]} (TF {release[0]}.{release[1]} image)"
        found.append(Evidence("tensorflow", exactly(release), path, 1, named))
    return found


def read_job_config(text: str, path: str) -> list[Evidence]:
    """Cloud job configurations: AI Platform / Vertex `runtimeVersion`, prebuilt training images,
    AzureML curated environment names, and a `TF_USE_LEGACY_KERAS` environment entry."""
    found: list[Evidence] = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue
        runtime = RUNTIME.search(line)
        if runtime:
            version = (int(runtime.group("major")), int(runtime.group("minor")))
            found.append(Evidence("tensorflow", exactly(version), path, number, line.strip()))
        elif any(p.search(line) for p in (_GOOGLE, _AWS_DLC, _AZURE, _OFFICIAL, _NGC, _MERLIN)):
            found += image_statements(line, path, number)
        setting = re.search(r"""TF_USE_LEGACY_KERAS["']?\s*[:=]\s*["']?([\w]+)""", line)
        if setting:
            found.append(legacy_evidence(setting.group(1), path, number, line))
    return found


Reader = Callable[[str, str], list[Evidence]]

_REQUIREMENTS_NAME = re.compile(
    r"(?i)^(?:requirements?|requirments?|requirement|requiremnts?|reqs?|constraints?)(?:[-_.][\w.-]*)?\.(?:txt|in|pip)$"
)
_CONDA_NAME = re.compile(r"(?i)^(?:environment|conda|env)(?:[-_.][\w.-]*)?\.ya?ml$")
_DOCKER_NAME = re.compile(r"(?i)^(?:(?:docker|container)file(?:[-_.][\w.-]+)?|[\w.-]+\.(?:docker|container)file)$")


def reader_for(name: str) -> Reader | None:
    """The reader for a file called ``name``, or None when the target does not depend on it."""
    fixed = {
        "pyproject.toml": read_pyproject,
        "setup.py": read_setup_py,
        "setup.cfg": read_setup_cfg,
        "Pipfile": read_pipfile,
    }
    if name in fixed:
        return fixed[name]
    if _REQUIREMENTS_NAME.match(name):
        return read_requirements
    if _CONDA_NAME.match(name):
        return read_conda
    if _DOCKER_NAME.match(name):
        return read_dockerfile
    if re.search(r"(?i)\.ya?ml$", name):
        return read_job_config
    return None
