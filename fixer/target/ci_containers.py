"""The TensorFlow containers a GitHub Actions workflow runs the project's tests in: a job's
`container: tensorflow/tensorflow:${{ matrix.tf-version }}-py3` (or `container: image:`) with
`strategy: matrix: tf-version: [2.0.0, 2.1.0]` runs every release its matrix lists, so the project
supports that range (issue 28, ledger10b class 1; docs/target.md, "Releases a CI tests in").

Read as text, line by line by indentation (``yaml_lines``: the project's runtime has no YAML
parser, and only these keys matter): a matrix key given as a flow list (`[a, b]`) or a block list
(`- a`) is substituted into the job's image; an image naming another expression, a matrix
`include:` entry or a value built elsewhere says nothing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from fixer.target.small_files import read_small_text
from fixer.target.sources import Evidence, image_statements
from fixer.target.yaml_lines import YamlLine, block, yaml_lines

if TYPE_CHECKING:
    from pathlib import Path

# A block list's item that is a plain value (`- 2.4.0`), not a mapping (`- tf: 2.4.0`).
_ITEM = re.compile(r"^-\s+(?P<item>[^:{]+?)$")
_IMAGE_KEY = frozenset({"container", "image"})
_MATRIX_REFERENCE = re.compile(r"\$\{\{\s*matrix\.(?P<key>[\w-]+)\s*\}\}")


def workflow_files(folder: Path) -> list[Path]:
    """The GitHub Actions workflows of ``folder`` (a repository root's `.github/workflows/*.yml`)."""
    workflows = folder / ".github" / "workflows"
    return sorted(workflows.glob("*.y*ml")) if workflows.is_dir() else []


def ci_containers(folder: Path) -> list[Evidence]:
    """One statement per TensorFlow release a workflow of ``folder`` runs a job's container on
    (each matrix value substituted into the job's image; a literal versioned tag as it is).
    Unversioned images (`tensorflow/tensorflow:latest`) are left out: they name no release."""
    found: list[Evidence] = []
    for path in workflow_files(folder):
        text = read_small_text(path)
        if text is not None:
            for job in _jobs(yaml_lines(text)):
                found += _job_images(job, str(path))
    return [e for e in found if e.kind == "tensorflow" and not e.allowed.open_ended]


def _value(raw: str) -> str:
    """A YAML scalar without its comment and quotes."""
    return re.sub(r"\s+#.*$", "", raw).strip().strip("'\"")


def _jobs(lines: list[YamlLine]) -> list[list[YamlLine]]:
    """The lines of each job under the top-level `jobs:` key."""
    jobs: list[list[YamlLine]] = []
    for index, line in enumerate(lines):
        if line.indent == 0 and line.key == "jobs":
            body = block(lines, index)[1:]  # each job: its name, at the first indentation, and its lines
            jobs += [block(body, i) for i, name in enumerate(body) if name.indent == body[0].indent]
    return jobs


def _job_images(job: list[YamlLine], path: str) -> list[Evidence]:
    """The TensorFlow statements of one job's container image, each matrix value substituted."""
    matrix = _matrix(job)
    found: list[Evidence] = []
    for line in job:
        # `container: <image>`, or `container:` then `image: <image>` on a line of its own.
        if line.key not in _IMAGE_KEY:
            continue
        image = _value(line.value)
        if "tensorflow" not in image:
            continue
        for resolved, label in _substituted(image, matrix):
            found += [_labelled(e, label) for e in image_statements(resolved, path, line.number)]
    return found


def _labelled(evidence: Evidence, label: str) -> Evidence:
    return Evidence(evidence.kind, evidence.allowed, evidence.path, evidence.line, evidence.text + label)


def _matrix(job: list[YamlLine]) -> dict[str, list[str]]:
    """The job's `strategy: matrix:` keys and their listed values (flow or block lists)."""
    values: dict[str, list[str]] = {}
    start = next((i for i, line in enumerate(job) if line.key == "matrix"), None)
    if start is None:
        return values
    current: str | None = None
    for line in block(job, start)[1:]:
        item = None if line.in_scalar else _ITEM.match(line.text)
        if item is not None and current is not None:
            values[current].append(_value(item.group("item")))
        elif line.key not in (None, "include") and not line.text.startswith("-"):
            current = line.key
            listed = _value(line.value)
            values[current] = [_value(v) for v in listed.strip("[]").split(",") if v.strip()] if listed else []
        else:
            current = None  # an `include:` entry, a mapping or a block scalar's text: not read
    return values


def _substituted(image: str, matrix: dict[str, list[str]]) -> list[tuple[str, str]]:
    """``image`` with its `${{ matrix.<key> }}` replaced by each value the matrix lists, with a
    label saying which; ``image`` itself when it names no matrix key; nothing when it names
    another expression or a key the matrix does not list."""
    references = _MATRIX_REFERENCE.findall(image)
    if not references:
        return [] if "${{" in image else [(image, " (a CI job's container)")]
    if len(set(references)) != 1 or not matrix.get(references[0]):
        return []
    key = references[0]
    resolved = [
        (_MATRIX_REFERENCE.sub(value, image), f" (a CI job's container, matrix {key}: {value})")
        for value in matrix[key]
    ]
    return [(image, label) for image, label in resolved if "${{" not in image]


def ci_oldest(tested: list[Evidence]) -> Evidence | None:
    """The oldest TensorFlow 2 release of ``tested``: renames must run there. A TensorFlow 1
    container tests the project's TF 1 code, which TF 2 names do not concern."""
    releases = [e for e in tested if e.allowed.newest() >= (2, 0)]
    return min(releases, key=lambda e: e.allowed.newest()) if releases else None


def ci_range(tested: list[Evidence]) -> tuple[Evidence, Evidence | None] | None:
    """(newest, floor) of the TensorFlow 2 releases a CI runs the project on: the newest is the
    version judged, the oldest a floor every rename must also exist on (``Target.has``), None when
    it is the newest itself. None when no container is TensorFlow 2: a job on a TF 1 container tests
    the project's TF 1 code, and says nothing about what its TF 2 code runs on."""
    releases = [e for e in tested if e.allowed.newest() >= (2, 0)]
    if not releases:
        return None
    newest = max(releases, key=lambda e: e.allowed.newest())
    oldest = min(releases, key=lambda e: e.allowed.newest())
    return newest, (oldest if oldest.allowed.newest() < newest.allowed.newest() else None)
