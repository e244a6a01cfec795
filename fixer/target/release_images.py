"""A Dockerfile named for the TensorFlow release its image is built for: `docker/Dockerfile_tf115`,
`Dockerfile_tf212`, `Dockerfile-tf2.12-gpu`, `tf1.15.Dockerfile`, `Dockerfile_paitf115`; and an
image reference that carries its release in its repository name or tag
(`<registry>/tensorflow-2.1.0-notebook-gpu:1.0.0`, `<org>/trainer:tf-2.0.0-gpu`).

A project that supports several releases often ships one image per release, each built from a
base the image tables do not know (a distribution, a vendor's registry) with TensorFlow installed
by a script or wheel the Dockerfile does not name. The file's name is then the one statement of
the release. Read only when the Dockerfile's own text names no TensorFlow: an image or install it
names is what the image really holds. Several such files are several statements of one folder, so
the oldest release decides (fixer/target/model.py): the code must run on every image, and a rename
to a name the oldest lacks breaks that image (docs/target.md, "A project with one image per release").
"""

from __future__ import annotations

import re
from pathlib import Path

# `tf112` (1.12), `tf1.15`, `tf2_12`, `tf-2.3`, `tf210` (2.10), after a separator or a vendor prefix
# (`paitf115`: a vendor's build of 1.15), never inside a longer word or number.
_RELEASE_IN_NAME = re.compile(
    r"(?i)(?:^|[-_.]|(?<=[-_.])[a-z]{1,4})tf[-_.]?(?P<major>[12])[-_.]?(?P<minor>\d{1,2})(?![\d])"
)
_NEWEST_MINOR = {1: 15, 2: 99}  # TensorFlow 1 ended at 1.15; a 2.x minor is checked by the tables


def release_in_name(path: str) -> tuple[int, int] | None:
    """The TensorFlow release a Dockerfile's name states (`Dockerfile_tf115`: 1.15), else None."""
    name = Path(path).name
    match = _RELEASE_IN_NAME.search(re.sub(r"(?i)docker|container|file", ".", name))
    if match is None:
        return None
    major, minor = int(match.group("major")), int(match.group("minor"))
    return (major, minor) if minor <= _NEWEST_MINOR[major] else None


# `tensorflow-2.11.0`, `tf-2.0.0`, `tf2.11` as a part of an image reference (repository name or
# tag), bounded by the reference's separators: `tf2-py3` (no minor) and `mytf-2.1` are not. A
# notebook image family names its release so (`tensorflow-2.1.0-notebook-gpu`), its tag being the
# family's own release (`:1.0.0`).
_RELEASE_IN_IMAGE = re.compile(
    r"(?:^|[/:_.-])(?:tensorflow|tf)[-_]?(?P<major>[12])\.(?P<minor>\d{1,2})(?:\.\d+)?(?=$|[-_:@])"
)


def release_in_image(image: str) -> tuple[int, int] | None:
    """The TensorFlow release written into an image reference's name or tag, else None."""
    match = _RELEASE_IN_IMAGE.search(image)
    return (int(match.group("major")), int(match.group("minor"))) if match is not None else None
