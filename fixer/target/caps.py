"""Bounds on the newest TensorFlow a project can install that its TensorFlow requirement does not
state: the Python its CI installs it on (TensorFlow 2.11 is the last release for Python 3.7; a
CircleCI job's Python is its image's, `circleci/python:3.8`), and a
requirement on a package built on Keras 2 (TensorFlow Addons: TensorFlow <= 2.15). They cap a
requirement that is open above (`tensorflow>=2.6`), never a pinned one (docs/target.md, "Versions
stated outside pin files"). A module that imports such a package is Keras 2 code (`import_cap`)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from fixer.target.ci_containers import workflow_files
from fixer.target.ci_installs import circleci_files
from fixer.target.requirements import Range
from fixer.target.small_files import read_small_text
from fixer.target.sources import Evidence, line_of
from fixer.target.versions import CAPPING_IMPORTS, KERAS2_PACKAGES, NEWEST_FOR_PYTHON

if TYPE_CHECKING:
    from pathlib import Path

# `python-version: 3.7`, `python-version: ["3.7", "3.8"]`, `python: [3.7]` (a workflow's or Travis'
# key, also as a matrix entry `- python-version: 3.7`); list items may follow on the next lines.
_PYTHON_KEY = re.compile(r"(?m)^(?P<indent>\s*)(?:-\s*)?python(?:-version|_version)?\s*:(?P<value>.*)$")
_LIST_ITEM = re.compile(r"""^\s*-\s*["']?(\d+\.\d+)""")
_PYTHON = re.compile(r"""(?<![\d.])(3\.\d+)(?![\d])""")
_TOX_ENV = re.compile(r"(?<![\w])py3(\d+)(?![\d])")
# A CircleCI job's Python is its Docker image's: `- image: circleci/python:3.8`, `cimg/python:3.8.12`,
# the official `python:3.8-slim`.
_PYTHON_IMAGE = re.compile(
    r"""(?m)^\s*(?:-\s*)?image\s*:\s*["']?(?:docker\.io/)?(?:library/|circleci/|cimg/)?python:(?P<version>3\.\d+)(?!\d)"""
)


def _workflow_pythons(text: str) -> list[tuple[str, int]]:
    """The Python versions a workflow or `.travis.yml` installs, with their lines."""
    found: list[tuple[str, int]] = []
    lines = text.splitlines()
    for match in _PYTHON_KEY.finditer(text):
        number = line_of(text, match.start())
        value = match.group("value").split("#", 1)[0]
        found += [(v, number) for v in _PYTHON.findall(value)]
        if value.strip():
            continue
        for offset, line in enumerate(lines[number:], number + 1):
            item = _LIST_ITEM.match(line)
            if item is None:
                break
            found.append((item.group(1), offset))
    return found


def _image_pythons(text: str) -> list[tuple[str, int]]:
    """The Python versions of the Python images a CircleCI configuration runs its jobs in."""
    return [(m.group("version"), line_of(text, m.start())) for m in _PYTHON_IMAGE.finditer(text)]


def _tox_pythons(text: str) -> list[tuple[str, int]]:
    """`envlist = py37, py38` in tox.ini."""
    return [(f"3.{m.group(1)}", line_of(text, m.start())) for m in _TOX_ENV.finditer(text)]


def _ci_files(folder: Path) -> list[Path]:
    """The CI configurations of a repository root: GitHub workflows, `.travis.yml`, `tox.ini`,
    CircleCI's configuration."""
    others = (folder / ".travis.yml", folder / "tox.ini", *circleci_files(folder))
    return [*workflow_files(folder), *(p for p in others if p.is_file())]


def python_cap(folder: Path) -> tuple[Evidence | None, list[Path]]:
    """The cap the CI of ``folder`` sets, from the newest Python it names (a project tested on 3.7
    and 3.10 runs the newest release), and the files read. None when CI names no Python or a
    Python the current release supports."""
    named: list[tuple[tuple[int, int], Path, int]] = []
    files = _ci_files(folder)
    for path in files:
        text = read_small_text(path)
        if text is None:
            continue
        pythons = _tox_pythons(text) if path.name == "tox.ini" else _workflow_pythons(text)
        if path.parent.name == ".circleci":
            pythons += _image_pythons(text)
        named += [((3, int(v.split(".")[1])), path, line) for v, line in pythons]
    if not named:
        return None, files
    python, path, line = max(named, key=lambda n: n[0])
    newest = NEWEST_FOR_PYTHON.get(python)
    if newest is None:
        return None, files
    text = f"CI installs the project on Python {python[0]}.{python[1]} (TensorFlow <= {newest[0]}.{newest[1]})"
    return Evidence("python-cap", _at_most(newest), str(path), line, text), files


def package_cap(requirement: Evidence) -> Evidence | None:
    """A requirement on a package built on Keras 2 (its kind is the package's name, see
    `requirements.package_kind`) as the cap it sets: `tensorflow-addons`, TensorFlow <= 2.15.
    None for any other statement."""
    package = KERAS2_PACKAGES.get(requirement.kind)
    if package is None:
        return None
    return Evidence(requirement.kind, _at_most(package[1]), requirement.path, requirement.line, requirement.text)


# `import tensorflow_addons as tfa`, `from uncertainty_baselines.datasets import x`,
# `from tensorflow_estimator.python.estimator.export import export_lib`, at any indent.
_KERAS2_IMPORT = re.compile(
    r"(?m)^[ \t]*(?:import|from)[ \t]+(?P<module>" + "|".join(re.escape(m) for m in CAPPING_IMPORTS) + r")\b.*$"
)


def import_cap(text: str, path: str) -> Evidence | None:
    """The first import in ``text`` (the module at ``path``) of a package built on Keras 2 or of
    the estimator package, as the cap it sets (versions.CAPPING_IMPORTS): the module runs where that
    package can be imported."""
    found = _KERAS2_IMPORT.search(text)
    if found is None:
        return None
    name, newest = CAPPING_IMPORTS[found.group("module")]
    allowed = _at_most(newest)
    return Evidence(name, allowed, path, line_of(text, found.start("module")), found.group(0).strip())


def _at_most(version: tuple[int, int]) -> Range:
    allowed = Range()
    allowed.below((version[0], version[1] + 1))
    return allowed


def capped(version: tuple[int, int], allowed: Range, caps: list[Evidence]) -> tuple[tuple[int, int], Evidence | None]:
    """``version`` (resolved from ``allowed``, a requirement open above) under the lowest cap in
    ``caps`` that binds it, with that cap; ``version`` and None when none binds or the range is
    bounded above (the project chose its release)."""
    if not caps or not allowed.open_above:
        return version, None
    cap = min(caps, key=lambda c: c.allowed.high)
    newest = (cap.allowed.high[0], cap.allowed.high[1] - 1)
    if newest >= version or not allowed.allows(newest):
        return version, None
    return newest, cap
