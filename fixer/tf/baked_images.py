"""Whether a script runs from an image that carries it: a Dockerfile of the script's folder copies
the script into the image (`COPY main.py /code/main.py`, `COPY . /app`) and declares no `VOLUME`.

For TFD502 (fixer/tf/save_locations.py): a multi-worker script baked into an image runs as one
process per container (a Kubeflow TFJob or Arena job starts a pod per worker from the image), so a
relative save path (`model.save("mnist_cnn.h5")`) lands in each container's own working folder:
distinct files, no race (kubeflow/arena, ledger19a). Tied conservatively: only a Dockerfile directly
in the script's folder, its build context taken to be that folder (`docker build .` there), a copy
from the context naming the script's file, a pattern matching it or the whole context (not a
`--from=` copy out of another stage), and no `VOLUME` (a volume may be a folder the containers
share). Read as text, never executed.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re

from fixer.target.continuation import logical_lines
from fixer.target.small_files import read_small_text

_DOCKERFILE = re.compile(r"(?i)^(?:(?:docker|container)file(?:[-_.][\w.-]+)?|[\w.-]+\.(?:docker|container)file)$")


def baked_into_image(script: str) -> tuple[bool, list[str]]:
    """Whether a Dockerfile of ``script``'s folder copies the script into its image and declares
    no volume, and the Dockerfiles read (dependencies of the answer)."""
    folder, name = os.path.split(os.path.abspath(script))
    try:
        dockerfiles = sorted(e.path for e in os.scandir(folder) if _DOCKERFILE.match(e.name) and e.is_file())
    except OSError:
        return False, []
    return any(_copies_in(path, name) for path in dockerfiles), dockerfiles


def _copies_in(dockerfile: str, name: str) -> bool:
    """``dockerfile`` copies the file ``name`` of its own folder into its image, with no `VOLUME`."""
    copied = False
    for _, line in logical_lines(read_small_text(dockerfile) or ""):
        words = line.split()
        keyword = words[0].upper() if words else ""
        if keyword == "VOLUME":
            return False
        if keyword in ("COPY", "ADD") and not any(w.startswith("--from") for w in words[1:]):
            sources = [w for w in words[1:] if not w.startswith("--")][:-1]  # the last word is the destination
            copied = copied or any(_names(source, name) for source in sources)
    return copied


def _names(source: str, name: str) -> bool:
    """A copy source from the build context takes in the context's file ``name``."""
    source = posixpath.normpath(source.strip("\"'[],"))
    return source in (".", name) or (any(c in source for c in "*?[") and fnmatch.fnmatch(name, source))
