"""Images elsewhere in the repository that copy a folder of it in: a platform's job image built
from `job/trainer/Dockerfile` installs `tensorflow==2.3.0` and does `COPY job/pkgs /app/job/pkgs`,
so the library in `job/pkgs` runs on TensorFlow 2.3, though no file of its own folder says so.

Where such Dockerfiles sit: in a direct subfolder of the folder or of one of its parents, up to the
repository root (the job folders beside a shared library). The COPY / ADD source is resolved in
the image's build context: the one a build script beside the Dockerfile gives
(`docker build -f job/trainer/Dockerfile .`, run from the folder that makes the `-f` path the
Dockerfile), else the first of the Dockerfile's folder and its parents where the source exists.
A source covers a folder when it names it or a folder above it (`COPY job/pkgs ...`), or names
its files by a pattern (`COPY job/model/*.py ...`). A copy of the whole context (`COPY . /app`)
is left out: that is the Dockerfile's own project, read by the walk where it is a project file.
Only images that state a TensorFlow count; several images give several statements and the oldest
decides, as for any folder (the code must run in each; one image per release named for it, as
`docker/Dockerfile_tf115` ... `Dockerfile_tf212`, is a supported range: fixer/target/image_range.py).
Limits: a Dockerfile added to an existing subfolder, or one edited to copy the folder in, is seen
once the listing or the process changes. Read as text, never executed.
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path
from typing import NamedTuple

from fixer.cache import Stamp, file_stamp
from fixer.target.continuation import logical_lines
from fixer.target.small_files import read_small_text
from fixer.target.sources import Evidence, read_dockerfile

_DOCKER_NAME = re.compile(r"(?i)^(?:(?:docker|container)file(?:[-_.][\w.-]+)?|[\w.-]+\.(?:docker|container)file)$")
DOCKER_BUILD = re.compile(r"\bdocker\s+(?:buildx\s+)?build\b(?P<args>[^;&|\n]*)")
# `docker build` options that take no value; every other option without `=` takes the next word.
DOCKER_BUILD_FLAGS = frozenset(
    {"--pull", "--no-cache", "--rm", "--force-rm", "-q", "--quiet", "--squash", "--load", "--push"}
)
_MAX_SUBFOLDERS = 200  # subfolders of one folder searched for Dockerfiles


# Per folder: its stamp and the Dockerfiles of its subfolders. Every folder of a project walks up
# through the same parents, so each is listed once while it is unchanged (limit: a Dockerfile added
# to an existing subfolder is seen when the parent folder changes or the process restarts).
_LISTED: dict[Path, tuple[Stamp, list[Path]]] = {}


def _subfolder_dockerfiles(folder: Path) -> list[Path]:
    """The Dockerfiles directly in the subfolders of ``folder`` (kept while ``folder`` is unchanged)."""
    stamp = file_stamp(str(folder))
    known = _LISTED.get(folder)
    if known is None or known[0] != stamp:
        known = _LISTED[folder] = (stamp, _list_dockerfiles(folder))
    return known[1]


def _list_dockerfiles(folder: Path) -> list[Path]:
    found: list[Path] = []
    try:
        subfolders = sorted(e.path for e in os.scandir(folder) if e.is_dir(follow_symlinks=False))
    except OSError:
        return found
    for subfolder in subfolders[:_MAX_SUBFOLDERS]:
        try:
            entries = sorted(os.scandir(subfolder), key=lambda e: e.name)
        except OSError:
            continue
        found += [Path(e.path) for e in entries if _DOCKER_NAME.match(e.name) and e.is_file()]
    return found


def _build_script_context(dockerfile: Path) -> Path | None:
    """The build context a shell script beside ``dockerfile`` gives it (`docker build -f
    job/trainer/Dockerfile .` makes the folder holding `job/` the working folder), else None."""
    try:
        scripts = sorted(e.path for e in os.scandir(dockerfile.parent) if e.name.endswith(".sh") and e.is_file())
    except OSError:
        return None
    for script in scripts:
        for match in DOCKER_BUILD.finditer(read_small_text(script) or ""):
            named, _, positional = docker_build_arguments(match.group("args").split())
            if named is None or not positional:
                continue
            written = posixpath.normpath(named)  # `./job/trainer/Dockerfile` -> `job/trainer/Dockerfile`
            whole = dockerfile.as_posix()
            if whole.endswith("/" + written):
                working = Path(whole[: len(whole) - len(written)])
                return Path(os.path.normpath(working / positional[-1]))
    return None


class DockerBuildArguments(NamedTuple):
    """What a `docker build` command's words name: its `-f` Dockerfile, its `-t` tags and its
    positional arguments (the last is the build context)."""

    file: str | None
    tags: list[str]
    positional: list[str]


def docker_build_arguments(words: list[str]) -> DockerBuildArguments:
    """The `-f` Dockerfile, the `-t` tags and the positional arguments of a `docker build`
    command's words; other options are skipped with their value unless DOCKER_BUILD_FLAGS says
    they take none."""
    named: str | None = None
    tags: list[str] = []
    positional: list[str] = []
    skip_next = False
    for index, word in enumerate(words):
        if skip_next:
            skip_next = False
        elif word in ("-f", "--file"):
            named = words[index + 1] if index + 1 < len(words) else None
            skip_next = True
        elif word.startswith("--file="):
            named = word.split("=", 1)[1]
        elif word in ("-t", "--tag"):
            tags += words[index + 1 : index + 2]
            skip_next = True
        elif word.startswith("--tag="):
            tags.append(word.split("=", 1)[1])
        elif word.startswith("-"):
            skip_next = "=" not in word and word not in DOCKER_BUILD_FLAGS
        else:
            positional.append(word)
    return DockerBuildArguments(named, tags, positional)


def _covers(context: Path, source: str, folder: Path) -> bool | None:
    """Whether a COPY of ``source`` in ``context`` takes ``folder`` in; None when the source does
    not exist there (another context is tried)."""
    source = source.strip("'\"")
    if "*" in posixpath.dirname(source) or source.startswith(("http://", "https://", "$")):
        return False
    pattern = any(c in posixpath.basename(source) for c in "*?[")
    base = posixpath.dirname(source) if pattern else source
    if posixpath.normpath(base) in (".", ""):
        return False  # the whole context: the Dockerfile's own project
    place = Path(os.path.normpath(context / base))
    if not place.is_dir():
        return None if not place.exists() else False
    return place == folder if pattern else (place == folder or place in folder.parents)


# Per Dockerfile: its stamp, the TensorFlow it states and the sources it copies (every folder below
# the Dockerfile's parent asks about the same files).
_IMAGES: dict[Path, tuple[Stamp, list[Evidence], list[str]]] = {}


def _image(dockerfile: Path) -> tuple[list[Evidence], list[str]]:
    """(the TensorFlow statements, the COPY / ADD sources) of ``dockerfile``."""
    stamp = file_stamp(str(dockerfile))
    known = _IMAGES.get(dockerfile)
    if known is None or known[0] != stamp:
        text = read_small_text(dockerfile) or ""
        instructions = [(w[0].upper(), w[1]) for _, i in logical_lines(text) if len(w := i.strip().split(None, 1)) == 2]
        sources = _copy_sources(instructions)
        stated = [e for e in read_dockerfile(text, str(dockerfile)) if e.kind in ("tensorflow", "tf-nightly")]
        known = _IMAGES[dockerfile] = (stamp, stated if sources else [], sources)
    return known[1], known[2]


def _copy_sources(instructions: list[tuple[str, str]]) -> list[str]:
    """The build-context sources of each `COPY` / `ADD` (every word but the options and the last,
    the destination; a leading `/` is the context's root). A copy from another build stage or
    image (`--from=builder`) and the JSON form are not the context's."""
    found: list[str] = []
    for keyword, rest in instructions:
        words = rest.split()
        if (
            keyword not in ("COPY", "ADD")
            or rest.lstrip().startswith("[")
            or any(w.startswith("--from") for w in words)
        ):
            continue
        paths = [w for w in words if not w.startswith("--")]
        found += [path.lstrip("/") or "." for path in paths[:-1]]
    return found


def _copied_in(dockerfile: Path, sources: list[str], folder: Path, root: Path) -> bool:
    """``dockerfile`` copies ``folder`` (or a folder above it) into its image from ``sources``."""
    given = _build_script_context(dockerfile)
    contexts = [given] if given is not None else [dockerfile.parent, *dockerfile.parent.parents]
    for source in sources:
        for context in contexts:
            if context != root and root not in context.parents:
                break
            covered = _covers(context, source, folder)
            if covered is not None:
                if covered:
                    return True
                break
    return False


def copied_into_images(folder: Path, consulted: dict[str, Stamp]) -> list[Evidence]:
    """The TensorFlow of each image that copies ``folder`` in, from Dockerfiles in the subfolders
    of ``folder`` and of its parents up to the repository root (none without one)."""
    root = next((p for p in [folder, *folder.parents] if (p / ".git").exists()), None)
    if root is None:
        return []
    found: list[Evidence] = []
    for place in [folder, *folder.parents]:
        for dockerfile in _subfolder_dockerfiles(place):
            if dockerfile.parent == folder:
                continue  # the folder's own Dockerfile: the walk reads it
            stated, sources = _image(dockerfile)
            if stated and _copied_in(dockerfile, sources, folder, root):
                consulted[str(dockerfile)] = file_stamp(str(dockerfile))
                found += stated
        if place == root:
            break
    return found
