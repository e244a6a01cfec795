"""Container images named by deployment files: a root `docker-compose.yml`, and Kubernetes or
training-platform job manifests whose containers run a project script.

Besides the images the tables know (fixer/target/sources.py), these files often name a project's
own image whose repository or tag carries the TensorFlow release it was built on
(`<org>/tensorflow-2.11.0:cpu-sdk-0.5.2`, `<org>/trainer:tf-2.0.0-gpu`, `...:py3-tf2.11`). Such a
name counts only where it says what runs: a compose service's `image:` (every service of the
project), and a job manifest's container `image:` for the scripts its `command` / `args` start.
Read as text (never executed).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from fixer.target.release_images import release_in_image
from fixer.target.small_files import read_small_text
from fixer.target.sources import Evidence, exactly, image_statements, image_tensorflow, read_job_config

COMPOSE_NAME = re.compile(r"(?i)^(?:docker-)?compose(?:[-_.][\w.-]*)?\.ya?ml$")

_IMAGE_LINE = re.compile(r"""^\s*-?\s*image\s*:\s*["']?(?P<image>[^\s"'#]+)""")
_SCRIPT = re.compile(r"""(?P<path>[\w./-]*[\w-]+\.py)\b""")
_MANIFEST_KIND = re.compile(r"(?m)^kind\s*:")


def named_image_tensorflow(image: str) -> tuple[int, int] | None:
    """The TensorFlow an image reference names: a known image's (tables), else a release written
    into its repository name or tag (`<org>/tensorflow-2.11.0:cpu`)."""
    known = image_tensorflow(image)
    if known is not None:
        return known
    return release_in_image(image)


def _image_evidence(image: str, path: str, line: int, text: str) -> list[Evidence]:
    if image_tensorflow(image) is not None:
        return image_statements(image, path, line)
    version = named_image_tensorflow(image)
    return [Evidence("tensorflow", exactly(version), path, line, text.strip())] if version is not None else []


def read_compose(text: str, path: str) -> list[Evidence]:
    """`docker-compose.yml` / `compose.yaml`: every service's `image:` that names a TensorFlow
    release, besides what any job configuration says (an environment's TF_USE_LEGACY_KERAS)."""
    found = [e for e in read_job_config(text, path) if e.kind == "legacy-keras"]
    for number, line in enumerate(text.splitlines(), 1):
        if (image := _IMAGE_LINE.match(line)) is not None:
            found += _image_evidence(image.group("image"), path, number, line)
    return found


def _documents(text: str) -> list[tuple[int, str]]:
    """(first line number, text) of each document of a YAML stream (split at `---`)."""
    documents: list[tuple[int, str]] = []
    start, lines = 1, list[str]()
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("---"):
            documents.append((start, "\n".join(lines)))
            start, lines = number + 1, []
        else:
            lines.append(line)
    documents.append((start, "\n".join(lines)))
    return documents


def manifest_jobs(text: str, path: str) -> list[tuple[str, Evidence]]:
    """(script as written, its container's TensorFlow) for each job manifest of ``text``: a
    document with a `kind:` whose containers name an image with a TensorFlow release and run
    `.py` files. A document naming several such images gives each script every one of them
    (the caller takes the oldest: the script must run on each)."""
    jobs: list[tuple[str, Evidence]] = []
    for first, document in _documents(text):
        if _MANIFEST_KIND.search(document) is None:
            continue
        images: list[Evidence] = []
        scripts: list[str] = []
        for offset, line in enumerate(document.splitlines()):
            if line.lstrip().startswith("#"):
                continue
            if (image := _IMAGE_LINE.match(line)) is not None:
                images += _image_evidence(image.group("image"), path, first + offset, line)
            else:
                scripts += [m.group("path") for m in _SCRIPT.finditer(line)]
        jobs += [(script, image) for script in scripts for image in images if image.kind == "tensorflow"]
    return jobs


def scripts_run_by(manifest: Path, folder: Path, text: str) -> list[tuple[str, Evidence]]:
    """The files of ``folder`` the job manifests of file ``manifest`` run, each with the container
    image it runs in. A script named by a path relative to the manifest's folder is that file; one
    named by a path inside the container (`/workspace/train.py`) is the file of that name beside
    the manifest, the layout these job samples ship."""
    found: list[tuple[str, Evidence]] = []
    for written, image in manifest_jobs(text, str(manifest)):
        for candidate in (manifest.parent / written, manifest.parent / os.path.basename(written)):
            script = Path(os.path.normpath(candidate))
            if script.parent == folder and script.is_file():
                found.append((str(script), image))
                break
    return found


def job_scripts(candidate: Path, folder: Path) -> list[tuple[str, tuple[Evidence, ...]]]:
    """The scripts of ``folder`` that the job manifests (YAML files other than compose files) in
    ``candidate`` run, each with the images of the containers that run it."""
    jobs: dict[str, list[Evidence]] = {}
    try:
        entries = sorted(os.scandir(candidate), key=lambda e: e.name)
    except OSError:
        return []
    for entry in entries:
        if not re.search(r"(?i)\.ya?ml$", entry.name) or COMPOSE_NAME.match(entry.name) or not entry.is_file():
            continue
        text = read_small_text(entry.path)
        if text is None:
            continue
        if _MANIFEST_KIND.search(text) is None:
            continue
        for script, image in scripts_run_by(Path(entry.path), folder, text):
            jobs.setdefault(script, []).append(image)
    return [(script, tuple(images)) for script, images in jobs.items()]
