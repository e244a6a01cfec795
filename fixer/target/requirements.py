"""Requirement strings as pip, conda and Poetry write them, reduced to what the target needs: which
package (TensorFlow, Keras or tf-keras) and the version pip would install within its constraints."""

from __future__ import annotations

import re
from dataclasses import dataclass

from fixer.target.versions import CURRENT, KERAS2_PACKAGES, Version, released

_INFINITY: Version = (1 << 30,)

# PEP 503 names (lower case, runs of -_. as one -) of the distributions that install TensorFlow.
_TENSORFLOW = frozenset(
    {
        "tensorflow",
        "tensorflow-cpu",
        "tensorflow-gpu",
        "tensorflow-macos",
        "tensorflow-intel",
        "tensorflow-aarch64",
        "tensorflow-rocm",
        "intel-tensorflow",
        "tensorflow-cpu-aws",
    }
)
_NIGHTLY = frozenset({"tf-nightly", "tf-nightly-cpu", "tf-nightly-gpu"})
# The dated development builds of TensorFlow 2.0 published before its release under their own names
# (`tf-nightly-gpu-2.0-preview==2.0.0.dev20190526`, PEP 503 form `tf-nightly-gpu-2-0-preview`): the
# release they preview, whatever their dated version says, not today's nightly.
_PREVIEW = re.compile(r"^tf-nightly(?:-cpu|-gpu)?-(?P<major>\d+)-(?P<minor>\d+)-preview$")
# A nightly pinned to one dated development build of a release (`==2.3.0.dev20200620`).
_DATED_NIGHTLY = re.compile(r"===?(?P<major>\d+)\.(?P<minor>\d+)\.\d+\.?dev\d{8}")
_KERAS = frozenset({"keras", "keras-nightly"})
_TF_KERAS = frozenset({"tf-keras", "tf-keras-nightly"})

_VERSION = r"\d+(?:\.\d+)*(?:\.\*)?"
_OPERATOR = r"===|==|!=|<=|>=|~=|<|>|=|\^|~"
_PART = re.compile(rf"\s*(?P<op>{_OPERATOR})?\s*v?(?P<version>{_VERSION})[\w.+-]*\s*")
# `name[extras] spec ; markers` (PEP 508), also `name (spec)` and conda's `name 2.15.*` / `name=2.15=build`.
_REQUIREMENT = re.compile(r"\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*\(?(?P<spec>[^;#)]*)\)?")


def normalise(name: str) -> str:
    """The PEP 503 form of a distribution name: `Tensorflow_GPU` -> `tensorflow-gpu`."""
    return re.sub(r"[-_.]+", "-", name).lower()


def package_kind(name: str) -> str | None:
    """ "tensorflow", "tf-nightly", "keras", "tf-keras", or the name of a package built on Keras 2
    (`tensorflow-addons`, which caps TensorFlow at 2.15: versions.KERAS2_PACKAGES) for a
    distribution that decides the target."""
    normal = normalise(name)
    if normal in _TENSORFLOW:
        return "tensorflow"
    if normal in _NIGHTLY:
        return "tf-nightly"
    if _PREVIEW.match(normal):
        return "tensorflow"
    if normal in _KERAS:
        return "keras"
    if normal in _TF_KERAS:
        return "tf-keras"
    if normal in KERAS2_PACKAGES:
        return normal
    return None


def _parse_version(text: str) -> tuple[Version, bool]:
    """``2.15.*`` -> ((2, 15), True)."""
    wildcard = text.endswith(".*")
    return tuple(int(p) for p in text.removesuffix(".*").split(".")), wildcard


def _bump(version: Version) -> Version:
    """The first version after every version starting with ``version`` (2.15 -> 2.16)."""
    return (*version[:-1], version[-1] + 1)


def _pad(version: Version, length: int = 3) -> Version:
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

    def allows(self, version: Version) -> bool:
        return self.low <= _pad(version) < self.high

    @property
    def open_ended(self) -> bool:
        """Nothing constrains the version (a bare name, `*`)."""
        return self.low == (0,) and self.high == _INFINITY

    @property
    def open_above(self) -> bool:
        """No upper bound: pip installs the newest release the interpreter can run."""
        return self.high == _INFINITY

    def newest(self) -> tuple[int, int]:
        """The minor version pip would install: the newest release allowed; for a range no release
        is in yet (`==2.22`), its lower bound."""
        allowed = [version for version in released() if self.allows(version)]
        if allowed:
            return allowed[-1][0], allowed[-1][1]
        if self.low != (0,):
            return self.low[0], (self.low[1] if len(self.low) > 1 else 0)
        return CURRENT


def specifier_range(spec: str, *, poetry: bool = False) -> Range | None:
    """The interval a specifier set such as ``>=2.12,<2.16`` allows; None when it cannot be read.

    A bare version means ``==`` (conda and Poetry); conda's single ``=2.15`` means ``2.15.*``;
    ``*`` and the empty string allow everything.
    """
    allowed = Range()
    for clause in spec.replace(" ", "").split(","):
        if not clause.strip() or clause.strip() == "*":
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


@dataclass(frozen=True)
class Requirement:
    """A requirement on one of the packages that decide the target."""

    kind: str  # see `package_kind`
    name: str  # as written
    allowed: Range


def parse_requirement(text: str, *, poetry: bool = False, conda: bool = False) -> Requirement | None:
    """The requirement ``text`` states (`Tensorflow-GPU>=2.4,<2.6`), or None when it is not about
    TensorFlow or Keras or its specifier cannot be read."""
    match = _REQUIREMENT.match(text)
    if match is None:
        return None
    kind = package_kind(match.group("name"))
    if kind is None:
        return None
    spec = match.group("spec").strip().strip("'\"")
    if conda:
        spec = re.sub(r"^(=?=?[\d.*]+)=\S+$", r"\1", spec)  # `=2.4=gpu_py38h...`: drop the build string
    if spec and not re.match(rf"({_OPERATOR}|\*|\d)", spec):
        return None  # `tensorflow @ https://...`, `tensorflow and ...`: not a specifier
    preview = _PREVIEW.match(normalise(match.group("name")))
    if preview is not None:
        return Requirement(kind, match.group("name"), _previewed(int(preview["major"]), int(preview["minor"])))
    dated = _DATED_NIGHTLY.fullmatch(spec.replace(" ", "")) if kind == "tf-nightly" else None
    if dated is not None:
        # `tf-nightly-gpu==2.3.0.dev20200620`: one day's build of the 2.3 branch, not today's nightly.
        return Requirement("tensorflow", match.group("name"), _previewed(int(dated["major"]), int(dated["minor"])))
    allowed = specifier_range(spec, poetry=poetry)
    return Requirement(kind, match.group("name"), allowed) if allowed is not None else None


def _previewed(major: int, minor: int) -> Range:
    """The release a preview package builds towards (`tf-nightly-2.0-preview`: 2.0.x)."""
    allowed = Range()
    allowed.at_least((major, minor))
    allowed.below((major, minor + 1))
    return allowed
