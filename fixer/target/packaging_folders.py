"""A package's setup script kept in a packaging subfolder of the code it packages
(`official/pip_package/setup.py` beside `official/modeling/...`): the walk up from a file never
enters it, yet it is where the project states its TensorFlow.

Such a script is read only when it names its parent folder's requirements file (it builds its
install list from `../requirements.txt` and then adds TensorFlow to it): that is what makes it the
declaration of the folder above, not of some other package. Read as text, never executed.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from fixer.target.small_files import read_small_text
from fixer.target.sources import Evidence, read_setup_py

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

# Subfolders that hold a package's build files: `pip_package`, `pip_pkg`, `packaging`, `package`.
PACKAGING_FOLDER = re.compile(r"(?i)^(?:pip[_-]?(?:package|pkg)|python[_-]?package|packag(?:e|ing))$")
# A line that opens a requirements file one folder up: `'../requirements.txt'`,
# `os.path.join(here, os.pardir, 'requirements.txt')`, `Path(__file__).parent.parent / "requirements.txt"`.
_PARENT = re.compile(r"\.\.|os\.pardir|\.parent\.parent|parents\[1\]")
_REQUIREMENTS_FILE = re.compile(r"requirements[\w.-]*\.txt")


def packaging_folders(folder: Path) -> list[Path]:
    """The packaging subfolders of ``folder`` (none when it cannot be listed)."""
    try:
        return sorted(folder / e.name for e in os.scandir(folder) if PACKAGING_FOLDER.match(e.name) and e.is_dir())
    except OSError:
        return []


def parent_requirements(setup: str, folder: Path) -> str | None:
    """The requirements file of ``folder`` that the setup script in one of its subfolders opens,
    or None when it names none of ``folder``'s files."""
    for line in setup.splitlines():
        named = _REQUIREMENTS_FILE.search(line)
        if named is not None and _PARENT.search(line) and (folder / named.group(0)).is_file():
            return named.group(0)
    return None


def packaging_statements(folder: Path, consult: Callable[[str], None]) -> list[Evidence]:
    """What the setup scripts of ``folder``'s packaging subfolders declare, for those that build
    on ``folder``'s requirements file. ``consult`` records each file looked at (the cache's
    stamps). A script that also names `tf-nightly` builds a nightly variant of the same package
    (`tf-models-nightly`): the released package's TensorFlow is the one stated."""
    found: list[Evidence] = []
    for packaging in packaging_folders(folder):
        setup = packaging / "setup.py"
        consult(str(setup))
        text = read_small_text(setup)
        if text is None or parent_requirements(text, folder) is None:
            continue
        statements = read_setup_py(text, str(setup))
        if any(e.kind == "tensorflow" for e in statements):
            statements = [e for e in statements if e.kind != "tf-nightly"]
        found += statements
    return found
