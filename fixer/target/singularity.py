"""Singularity / Apptainer definition files (`image.def`, `Singularity`, `Singularity.gpu`): the
container an HPC job runs its script in (`srun singularity exec image.sif python3 train.py`).

A definition file states what a Dockerfile states, in other words: its header's `From:` is the base
image (`Bootstrap: docker` / `From: nvcr.io/nvidia/tensorflow:21.08-tf2-py3`), its `%post` section
is the shell the build runs (`pip install --upgrade tensorflow==2.7`) and its `%environment`
section the variables every run sees (`export TF_USE_LEGACY_KERAS=1`). The file is rewritten line
for line into the Dockerfile instructions it means (`FROM`, `RUN`, `ENV`) and read by the
Dockerfile reader, so both kinds of container are read by one parser and cite the same line numbers.
A file whose header does not begin with `Bootstrap:` is not a definition file (`*.def` also names
other formats) and states nothing. Read as text (never built).
"""

from __future__ import annotations

import re

from fixer.target.sources import Evidence, read_dockerfile

# `image.def`, `build.def`, `Singularity`, `Singularity.gpu` (Singularity Hub's convention).
DEFINITION_NAME = re.compile(r"(?i)^(?:[\w.-]+\.def|singularity(?:\.[\w.-]+)?)$")
_HEADER = re.compile(r"(?i)^\s*(\w+)\s*:\s*(.*)$")
_SECTION = re.compile(r"^%(\w+)")
_EXPORT = re.compile(r"^\s*(?:export\s+)?([A-Za-z_]\w*=.*)$")


def read_definition(text: str, path: str) -> list[Evidence]:
    """What the container a definition file builds installs: its base image, its `%post` pip
    installs and its `%environment` TF_USE_LEGACY_KERAS, as the same Dockerfile would."""
    dockerfile = as_dockerfile(text)
    return read_dockerfile(dockerfile, path) if dockerfile is not None else []


def as_dockerfile(text: str) -> str | None:
    """The Dockerfile ``text`` means, one output line per input line (so that line numbers hold),
    or None when ``text`` is not a definition file. Sections other than `%post` and
    `%environment` (`%files`, `%runscript`, `%labels`, `%help`, ...) become blank lines: they run
    nothing at build time that installs a package."""
    lines: list[str] = []
    section: str | None = None  # None: the header
    bootstrapped = False
    continued = False  # the previous `%post` line ended in `\`: this one continues its command
    for line in text.splitlines():
        opened = _SECTION.match(line)
        if opened is not None:
            section, continued = opened.group(1).lower(), False
            lines.append("")
            continue
        if section is None:
            header = _HEADER.match(line)
            key = header.group(1).lower() if header is not None else ""
            if not bootstrapped and line.strip() and not line.lstrip().startswith("#"):
                if key != "bootstrap":
                    return None  # another format that uses `.def`
                bootstrapped = True
            lines.append(f"FROM {header.group(2)}" if header is not None and key == "from" else "")
        elif section == "post":
            command = line.strip() and not line.lstrip().startswith("#")
            lines.append(line if continued else f"RUN {line}" if command else "")
            continued = line.rstrip().endswith("\\")
        elif section == "environment":
            setting = _EXPORT.match(line)
            lines.append(f"ENV {setting.group(1)}" if setting is not None else "")
        else:
            lines.append("")
    return "\n".join(lines) if bootstrapped else None
