"""An image that installs the repository's own package from a folder it copied in, with an extra
(`COPY ./sdk /opt/sdk` then `RUN pip install /opt/sdk/.[tf2]`): the TensorFlow it gets is the one
that package's setup.py names in that extra (`extras_require={"tf2": ["tensorflow>=2.12,<2.15"]}`).

The copied folder is found from the Dockerfile's folder or one of its parents up to the
repository root (the build context is not written in the Dockerfile). Read as text, never executed.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from fixer.target.requirements import Range, parse_requirement
from fixer.target.small_files import read_small_text

# (kind, allowed, setup.py path, line, requirement text): fixer/target/sources.py makes Evidence of it.
Stated = tuple[str, Range, str, int, str]

# `/opt/sdk/.[tf2]`, `./pkg[gpu,tf2]`: a local path (it holds a slash or starts with a dot) with extras.
_LOCAL_WITH_EXTRAS = re.compile(r"^(?P<path>[\w./-]*[/.][\w./-]*)\[(?P<extras>[\w,.-]+)\]$")


def local_install(word: str) -> tuple[str, list[str]] | None:
    """(path, extras) of a pip argument that installs a local folder with extras, else None."""
    match = _LOCAL_WITH_EXTRAS.match(word.strip("'\""))
    if match is None or not (match.group("path").startswith((".", "/")) or "/" in match.group("path")):
        return None
    return match.group("path"), match.group("extras").split(",")


def copies(instructions: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(source, destination) of each `COPY` / `ADD` of one source (options such as `--chown` skipped)."""
    found: list[tuple[str, str]] = []
    for keyword, rest in instructions:
        if keyword not in ("COPY", "ADD"):
            continue
        words = [w for w in rest.split() if not w.startswith("--")]
        if len(words) == 2:
            found.append((words[0], words[1]))
    return found


def _source_folder(path: str, copied: list[tuple[str, str]]) -> str | None:
    """The build-context folder an image path came from through a COPY, relative to the context."""
    wanted = posixpath.normpath(path)
    for source, destination in copied:
        destination = posixpath.normpath(destination)
        if wanted == destination or wanted.startswith(destination + "/"):
            rest = wanted[len(destination) :].lstrip("/")
            return posixpath.normpath(posixpath.join(source, rest))
    return None


def _contexts(dockerfile: Path) -> list[Path]:
    """The Dockerfile's folder and its parents up to the repository root (or the filesystem's)."""
    found = [dockerfile.parent]
    while not (found[-1] / ".git").exists() and found[-1].parent != found[-1]:
        found.append(found[-1].parent)
    return found


def _places(path: str, copied: list[tuple[str, str]], dockerfile: Path) -> list[tuple[Path, str]]:
    """(context, folder) pairs where the installed package's sources may be, most likely first:
    the COPY source of an image path, then that source's trailing folders
    (`./tmp/sdk/python` -> `sdk/python`, `python`), for a context a build script assembles by
    copying the repository's folder into it under its own name."""
    if not path.startswith("/"):
        return [(context, path) for context in _contexts(dockerfile)]
    mapped = _source_folder(path, copied)
    if mapped is None:
        return []
    parts = [p for p in mapped.split("/") if p not in ("", ".")]
    sources = ["/".join(parts[start:]) for start in range(len(parts))]
    return [(context, source) for source in sources for context in _contexts(dockerfile)]


def _extra_requirements(setup: str, extra: str) -> list[tuple[str, int]]:
    """The requirement strings (with their lines) of ``extra`` in a setup.py's `extras_require`
    written as a literal dict: `"tf2": ["tensorflow>=2.12.0,<2.15.0", ...]`."""
    match = re.search(rf"""["']{re.escape(extra)}["']\s*:\s*\[(?P<items>[^\]]*)\]""", setup)
    if match is None:
        return []
    start = match.start("items")
    return [
        (m.group(2), setup.count("\n", 0, start + m.start()) + 1)
        for m in re.finditer(r"""(["'])([^"'\n]+)\1""", match.group("items"))
    ]


def local_install_statements(word: str, copied: list[tuple[str, str]], dockerfile: str) -> list[Stated]:
    """The TensorFlow requirements the extras of a local install ``word`` pull in, read from the
    copied package's setup.py; [] when the folder or the extra cannot be found."""
    install = local_install(word)
    if install is None:
        return []
    path, extras = install
    for context, source in _places(path, copied, Path(dockerfile)):
        setup = context / source / "setup.py"
        text = read_small_text(setup)
        if text is None:
            continue
        found: list[Stated] = []
        for extra in extras:
            for requirement, line in _extra_requirements(text, extra):
                named = parse_requirement(requirement)
                if named is not None and named.kind in ("tensorflow", "tf-nightly"):
                    found.append((named.kind, named.allowed, str(setup), line, requirement))
        return found
    return []
