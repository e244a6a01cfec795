"""The TensorFlow version a project pins, read from its dependency files (no import, no network).

Requirement specifiers are parsed as whole sets (PEP 440 ``>=2.12,<2.16``, ``~=2.15``,
``==2.15.*``, conda's ``tensorflow=2.15`` and Poetry's ``^2.15`` / ``~2.15``): a project
"pins below 2.16" when no version its constraints allow is 2.16 or newer. A lower bound alone
(``>=2.10``) or a compatible release that reaches 2.16 (``~=2.15`` allows 2.21) does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DEPENDENCY_FILES = ("requirements.txt", "requirements-dev.txt", "pyproject.toml", "setup.py", "setup.cfg", "environment.yml", "environment.yaml")

Version = tuple[int, ...]
_INFINITY: Version = (1 << 30,)

# A TensorFlow distribution name (not tensorflow-datasets, tensorflow-probability, ...).
_NAME = r"(?<![\w.-])tensorflow(?:[-_](?:cpu|gpu|macos|intel|aarch64))?(?![\w.-])"
_VERSION = r"\d+(?:\.\d+)*(?:\.\*)?"
_OPERATOR = r"===|==|!=|<=|>=|~=|<|>|=|\^|~"
_CLAUSE = rf"(?:{_OPERATOR})\s*{_VERSION}"
# PEP 508 / conda: `tensorflow[and-cuda] >=2.12, <2.16`.
_REQUIREMENT = re.compile(rf"{_NAME}\s*(?:\[[^\]]*\])?\s*(?P<spec>{_CLAUSE}(?:\s*,\s*{_CLAUSE})*)")
# conda's list form with a bare version: `- tensorflow 2.15.*`.
_CONDA_BARE = re.compile(rf"^\s*-\s*{_NAME}\s+(?P<spec>{_VERSION})\s*$", re.M)
# Poetry: `tensorflow = "^2.15"` or `tensorflow = { version = "~2.15", ... }`.
_POETRY = re.compile(rf"""{_NAME}\s*=\s*(?:\{{[^}}]*?\bversion\s*=\s*)?["'](?P<spec>[^"']+)["']""")
_PART = re.compile(rf"\s*(?P<op>{_OPERATOR})?\s*(?P<version>{_VERSION})\s*")


def _parse_version(text: str) -> tuple[Version, bool]:
    """``2.15.*`` -> ((2, 15), True)."""
    wildcard = text.endswith(".*")
    return tuple(int(p) for p in text.removesuffix(".*").split(".")), wildcard


def _bump(version: Version) -> Version:
    """The first version after every version starting with ``version`` (2.15 -> 2.16)."""
    return (*version[:-1], version[-1] + 1)


def _pad(version: Version, length: int = 4) -> Version:
    return version + (0,) * (length - len(version))


class Range:
    """The versions a specifier set allows, as one interval [low, high) (exclusions are ignored)."""

    def __init__(self) -> None:
        self.low: Version = (0,)
        self.high: Version = _INFINITY  # exclusive

    def at_least(self, version: Version) -> None:
        self.low = max(self.low, _pad(version))

    def below(self, version: Version) -> None:
        self.high = min(self.high, _pad(version))

    def allows_at_least(self, version: Version) -> bool:
        """Some allowed version is >= ``version``."""
        start = max(self.low, _pad(version))
        return start < self.high


def specifier_range(spec: str, poetry: bool = False) -> Range | None:
    """The interval a specifier set such as ``>=2.12,<2.16`` allows; None when it cannot be read.

    A bare version means ``==`` (conda and Poetry); conda's single ``=2.15`` means ``2.15.*``.
    """
    allowed = Range()
    for clause in spec.split(","):
        if not clause.strip():
            continue
        match = _PART.fullmatch(clause)
        if match is None:
            return None
        op = match.group("op") or "=="
        version, wildcard = _parse_version(match.group("version"))
        if op == "=":
            op, wildcard = "==", True  # conda: `tensorflow=2.15` is 2.15.*
        if op in ("==", "==="):
            allowed.at_least(version)
            allowed.below(_bump(version) if wildcard else (*_pad(version), 1))
        elif op in (">=", ">"):
            allowed.at_least(version if op == ">=" else (*_pad(version), 1))
        elif op == "<":
            allowed.below(version)
        elif op == "<=":
            allowed.below((*_pad(version), 1))
        elif op == "~=":
            if len(version) < 2:
                return None
            allowed.at_least(version)
            allowed.below(_bump(version[:-1]))
        elif op == "^" and poetry:
            allowed.at_least(version)
            first = next((i for i, part in enumerate(version) if part != 0), len(version) - 1)
            allowed.below(_bump(version[: first + 1]))
        elif op == "~" and poetry:
            allowed.at_least(version)
            allowed.below(_bump(version[:2]) if len(version) > 1 else _bump(version))
        # `!=` excludes single versions: it cannot decide a bound.
    return allowed


def tensorflow_ranges(text: str) -> list[Range]:
    """The version ranges every TensorFlow requirement in a dependency file's text allows."""
    text = re.sub(r"(?m)(^|\s)#.*$", r"\1", text)  # comments (requirements, TOML, YAML, setup.py)
    ranges = []
    for match in [*_REQUIREMENT.finditer(text), *_CONDA_BARE.finditer(text)]:
        found = specifier_range(match.group("spec").replace(" ", ""))
        if found is not None:
            ranges.append(found)
    for match in _POETRY.finditer(text):
        found = specifier_range(match.group("spec").replace(" ", ""), poetry=True)
        if found is not None:
            ranges.append(found)
    return ranges


@lru_cache(maxsize=256)
def pinned_below(folder: Path, version: tuple[int, int]) -> bool:
    """True when the nearest project around ``folder`` pins TensorFlow to versions below ``version``.

    ``==2.15.1``, ``<2.16``, ``>=2.12,<2.16``, ``<=2.15``, ``~=2.15.0``, ``==2.15.*`` all count;
    a lower bound alone does not, and neither does ``~=2.15`` (it allows 2.21).
    """
    for candidate in [folder, *folder.parents]:
        files = [candidate / name for name in DEPENDENCY_FILES] + sorted(candidate.glob("requirements*.txt"))
        found = False
        for path in dict.fromkeys(files):
            if not path.is_file():
                continue
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            ranges = tensorflow_ranges(text)
            if not ranges:
                continue
            found = True
            if any(not r.allows_at_least(version) for r in ranges):
                return True
        if found or (candidate / ".git").exists():
            return False  # the project root: stop looking further up
    return False


# tf-keras as a requirement: `tf-keras`, `tf_keras==2.15.1`, conda's `- tf-keras`.
_TF_KERAS = re.compile(r"(?<![\w.-])tf[-_]keras(?![\w.-])")


@dataclass(frozen=True)
class ProjectFacts:
    """What the dependency files of the project around a file say about TensorFlow and Keras.

    ``declares_tensorflow`` False means no dependency file was found that names TensorFlow:
    then nothing is known, and rules assume the installed, current TensorFlow (2.21, Keras 3).
    """

    declares_tensorflow: bool
    keras2: bool  # TensorFlow pinned below 2.16: every Keras spelling is Keras 2
    declares_tf_keras: bool


@lru_cache(maxsize=256)
def project_facts(folder: Path) -> ProjectFacts:
    """The facts of the nearest project around ``folder`` (its root: the first folder with a
    dependency file naming TensorFlow, or with `.git`)."""
    for candidate in [folder, *folder.parents]:
        texts = []
        files = [candidate / name for name in DEPENDENCY_FILES] + sorted(candidate.glob("requirements*.txt"))
        for path in dict.fromkeys(files):
            if path.is_file():
                try:
                    texts.append(re.sub(r"(?m)(^|\s)#.*$", r"\1", path.read_text(encoding="utf-8", errors="replace")))
                except OSError:
                    continue
        ranges = [r for text in texts for r in tensorflow_ranges(text)]
        if ranges:
            return ProjectFacts(
                declares_tensorflow=True,
                keras2=any(not r.allows_at_least((2, 16)) for r in ranges),
                declares_tf_keras=any(_TF_KERAS.search(text) for text in texts),
            )
        if (candidate / ".git").exists():
            break
    return ProjectFacts(declares_tensorflow=False, keras2=False, declares_tf_keras=False)
