"""The TensorFlow an MLPerf results submission declares for its systems.

An MLPerf Training submission is a tree per submitter:

    <submitter>/systems/<system>.json      "framework": "TensorFlow 2.2.2"
    <submitter>/benchmarks/<bench>/implementations/<impl>/...   the code run for the results
    <submitter>/results/<system>/<bench>/...

The systems' `"framework"` field is the submitter's statement of the software the benchmarks
ran on, and the code under `benchmarks/` has no requirements file of its own naming TensorFlow.
So at a folder holding both `systems/` and `benchmarks/`, each system whose framework names a
TensorFlow release (`TensorFlow 2.2.2`, `Tensorflow v2.8.0`, `tensorflow-1.15.0`) is a statement
of that folder; several systems are several statements and the oldest decides (the code ran on
each). Not read: a family or a name without a release (`"tf2.0"`, `"TF 2.x"`, `"TensorFlow"`:
Google's v0.7 systems say `tf2.0` for code built on a 2.3 nightly), a vendor container's own
numbering (`TensorFlow NVIDIA Release 21.05`, `NGC TensorFlow 21.05-tf1`), and a misspelt name.
Read as text (never executed).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from fixer.cache import Stamp, file_stamp
from fixer.target.small_files import read_small_text
from fixer.target.sources import Evidence, exactly

if TYPE_CHECKING:
    from pathlib import Path

# The framework field whose value starts with TensorFlow's name and a release: the name, then a
# space, `-` or `v` before a dotted release of TensorFlow 1 or 2 (not a container's `21.05`).
_FRAMEWORK = re.compile(
    r'"framework"\s*:\s*"\s*tensorflow(?:\s+v?|-v?)(?P<major>[12])\.(?P<minor>\d{1,2})(?:\.\d+)?(?![\w.])',
    re.IGNORECASE,
)


def submission_statements(folder: Path, consulted: dict[str, Stamp]) -> list[Evidence]:
    """The TensorFlow releases `folder/systems/*.json` declare, when ``folder`` is a submitter's
    folder of an MLPerf results tree (it holds `systems/` and `benchmarks/`)."""
    systems = str(folder / "systems")
    consulted[systems] = file_stamp(systems)  # a system added or removed changes the folder
    if consulted[systems] is None or not (folder / "benchmarks").is_dir():
        return []
    try:
        names = sorted(e.name for e in os.scandir(systems) if e.name.endswith(".json") and e.is_file())
    except OSError:
        return []
    found: list[Evidence] = []
    for name in names:
        path = os.path.join(systems, name)
        consulted[path] = file_stamp(path)
        text = read_small_text(path)
        match = _FRAMEWORK.search(text) if text is not None else None
        if text is not None and match is not None:
            number = text.count("\n", 0, match.start()) + 1
            line = text.splitlines()[number - 1].strip()
            version = int(match.group("major")), int(match.group("minor"))
            found.append(Evidence("tensorflow", exactly(version), path, number, line))
    return found
