"""A Dockerfile `FROM` an image the repository builds itself: `FROM learn/basedtf:1.0.0`, where the
README's install steps run `cd BaseImage` and `docker build -t learn/basedtf:1.0.0 .`, runs on what
that base image installs (its folder's `requirements.txt`: `tensorflow==2.10.0`), though no file of
the job's folder names TensorFlow (issue 28, ledger20b; docs/target.md, "An image the repository
builds itself").

Which build tags the image: a `docker build` (or `docker buildx build`) command with `-t`/`--tag`
naming it, in a Markdown file or shell script of the job's folder or of a parent up to the
repository root. Its context (the command's last positional argument) is resolved against the
folder the command runs in: the file's folder, changed by a `cd` before it (in a Markdown file, from
the start of its code block). The base is read as the walk reads a folder (``read_folder``), so the
statements are that folder's: its Dockerfile's pins and its requirements files. Only a `FROM` image
the image tables do not know is followed; a base tagged by no build command says nothing. Read as
text, never executed.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from fixer.cache import Stamp, file_stamp
from fixer.target.continuation import logical_lines
from fixer.target.copied_images import DOCKER_BUILD, docker_build_arguments
from fixer.target.release_images import release_in_image
from fixer.target.small_files import read_small_text
from fixer.target.sources import image_tensorflow

if TYPE_CHECKING:
    from collections.abc import Callable

    from fixer.target.sources import Evidence

_DOCKERFILE = re.compile(r"(?i)^(?:docker|container)file$")
_FROM = re.compile(r"(?i)^\s*FROM\s+(?:--\S+\s+)*(?P<image>\S+)")
_CD = re.compile(r"^\s*`?cd\s+(?P<folder>[^\s`;&|]+)")
_FENCE = re.compile(r"^\s*(?:```|~~~)")


def own_base_images(
    folder: Path, consulted: dict[str, Stamp], read_folder: Callable[[Path, dict[str, Stamp]], list[Evidence]]
) -> list[Evidence]:
    """What the base images the Dockerfile of ``folder`` is built `FROM` install, for each base the
    repository builds itself (none when the folder has no Dockerfile or is in no repository)."""
    root = next((p for p in [folder, *folder.parents] if (p / ".git").exists()), None)
    bases = _unknown_bases(folder, consulted)
    if root is None or not bases:
        return []
    found: list[Evidence] = []
    for context in _tagged_contexts(folder, root, bases, consulted):
        if context != folder:
            found += read_folder(context, consulted)
    return found


def _unknown_bases(folder: Path, consulted: dict[str, Stamp]) -> set[str]:
    """The `FROM` images of ``folder``'s Dockerfiles that the image tables do not know."""
    try:
        dockerfiles = sorted(e.path for e in os.scandir(folder) if _DOCKERFILE.match(e.name) and e.is_file())
    except OSError:
        return set()
    bases: set[str] = set()
    for path in dockerfiles:
        consulted[path] = file_stamp(path)
        for _, line in logical_lines(read_small_text(Path(path)) or ""):
            match = _FROM.match(line)
            if match and image_tensorflow(match["image"]) is None and release_in_image(match["image"]) is None:
                bases.add(match["image"])
    return bases


def _tagged_contexts(folder: Path, root: Path, bases: set[str], consulted: dict[str, Stamp]) -> list[Path]:
    """The build contexts, holding a Dockerfile, of the `docker build` commands that tag one of
    ``bases``, from the Markdown files and shell scripts of ``folder`` and its parents up to ``root``."""
    contexts: list[Path] = []
    for place in [folder, *folder.parents]:
        for path in _instruction_files(place):
            consulted[str(path)] = file_stamp(str(path))
            for tag, context in _builds(path):
                if tag in bases and context not in contexts and (context / "Dockerfile").is_file():
                    contexts.append(context)
        if place == root:
            break
    return contexts


def _instruction_files(place: Path) -> list[Path]:
    """The Markdown files and shell scripts directly in ``place``."""
    try:
        names = sorted(e.name for e in os.scandir(place) if e.name.lower().endswith((".md", ".sh")) and e.is_file())
    except OSError:
        return []
    return [place / name for name in names]


def _builds(path: Path) -> list[tuple[str, Path]]:
    """(tag, context folder) of each `docker build -t <tag> <context>` in ``path``, the context
    resolved against the folder the command runs in."""
    text = read_small_text(path)
    if text is None or "docker" not in text:
        return []
    found: list[tuple[str, Path]] = []
    working = path.parent
    for _, line in logical_lines(text):
        if _FENCE.match(line):
            working = path.parent  # each code block of a guide starts where the guide is
            continue
        for step in re.split(r"&&|;", line):
            if (cd := _CD.search(step)) is not None:
                working = Path(os.path.normpath(working / cd["folder"]))
            elif (build := DOCKER_BUILD.search(step)) is not None:
                _, tags, positional = docker_build_arguments([w.strip("`'\"") for w in build["args"].split()])
                if positional:
                    context = Path(os.path.normpath(working / positional[-1]))
                    found += [(tag, context) for tag in tags]
    return found
