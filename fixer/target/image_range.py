"""A folder that ships one image per supported TensorFlow release (`docker/Dockerfile_tf112`,
`Dockerfile_tf115`, `Dockerfile_tf212`): a supported range, not one release.

Each image runs the same code, so a rename is safe only to a name the oldest image has, while a
rule about what the newest releases do (a TensorFlow 2 class's arguments, Keras 2 behaviour) is
still judged where the code meets it. The range's newest image is the version judged and its
oldest a floor every rename must also exist on (``Target.has``), as for a package's declared floor
(docs/target.md, "A project with one image per release").
"""

from __future__ import annotations

from pathlib import Path

from fixer.target.release_images import release_in_name
from fixer.target.sources import Evidence, read_dockerfile, reader_for


def release_range(statements: list[Evidence]) -> tuple[Evidence, Evidence] | None:
    """(newest, oldest) of ``statements``' Dockerfile images when at least two Dockerfiles named
    for a release (`Dockerfile_tf115`) state different releases; None for any other folder (one
    image, or images beside other pin files: the oldest statement decides as usual)."""
    images = [e for e in statements if e.kind == "tensorflow" and reader_for(Path(e.path).name) is read_dockerfile]
    if len(images) != len(statements) or len(images) < 2:
        return None
    named = {e.allowed.newest() for e in images if release_in_name(e.path) is not None}
    if len(named) < 2:
        return None
    newest = max(images, key=lambda e: e.allowed.newest())
    oldest = min(images, key=lambda e: e.allowed.newest())
    return newest, oldest
