"""The README of an MLPerf submission's system, for the implementation run on it.

An MLPerf Training v0.7 submission documents each run beside, not above, its code:

    <submitter>/benchmarks/bert/tpu-v3-32-TF2.0/README.md          how the image was built and run
    <submitter>/benchmarks/bert/implementations/bert-cloud-TF2.0-tpu-v3-32/...   the code

The walk up from the code never passes the system's folder, so at an implementation folder (a
child of `implementations/`) the README of each sibling system folder whose name's parts are all
parts of the implementation's name (`tpu-v3-32-TF2.0` in `bert-cloud-TF2.0-tpu-v3-32`) is read as
a README of the implementation's own folder: weaker than a pin file there, its versioned
statements (a `docker build --build-arg tensorflow_pip_spec=...==2.3.0.dev...`) deciding otherwise.
A system folder whose parts the implementation's name lacks is another run's (`gpu-v100-8-TF2.0`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from fixer.cache import Stamp, file_stamp
from fixer.target.readme import read_readme
from fixer.target.small_files import read_small_text

if TYPE_CHECKING:
    from pathlib import Path

    from fixer.target.sources import Evidence


def system_readme_statements(folder: Path, consulted: dict[str, Stamp]) -> list[Evidence]:
    """What the READMEs of the systems ``folder`` (an implementation) was run on state."""
    if folder.parent.name != "implementations":
        return []
    benchmark = folder.parent.parent
    consulted[str(benchmark)] = file_stamp(str(benchmark))  # a system folder added or removed
    parts = set(folder.name.lower().split("-"))
    try:
        systems = sorted(e.name for e in os.scandir(benchmark) if e.is_dir() and e.name != "implementations")
    except OSError:
        return []
    found: list[Evidence] = []
    for system in systems:
        if not set(system.lower().split("-")) <= parts:
            continue
        readme = os.path.join(benchmark, system, "README.md")
        consulted[readme] = file_stamp(readme)
        text = read_small_text(readme)
        found += read_readme(text, readme) if text is not None else []
    return found
