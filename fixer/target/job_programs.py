"""The project program a job script installs a TensorFlow for and then runs, and the project
modules that program imports: all of them run on what the job installed.

A managed job is often handed a small script that prepares the machine and starts the real
program (a Vertex AI `script_path`, a cluster's entry script):

    os.system('pip install tensorflow==2.15.1')
    os.system('git clone https://github.com/me/proj.git')
    os.system('cd ./proj/src/; python main.py')

or the same as a shell script. `src/main.py` then runs on TensorFlow 2.15, and so does every
module of the project it imports (`from training.training import step`, found from `src/`, the
program's folder, which Python puts first on `sys.path`). Only a decisive install counts (a
version, or `-U`): a bare `pip install tensorflow` keeps what the machine has. A path under a
folder the script clones (`proj/src/main.py`) is this repository's own file (`src/main.py`).

Read as text and parsed (never executed); a command built at run time says nothing.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from fixer.syntax import parse_module
from fixer.target.cloud_launchers import Launch, resolve_written
from fixer.target.notebook import install_evidence, upgrades
from fixer.target.script_installs import script_commands
from fixer.target.small_files import read_small_text

if TYPE_CHECKING:
    from fixer.target.sources import Evidence

# Cheap test before parsing: the file installs a TensorFlow and runs a Python file.
_MAY_INSTALL = re.compile(r"\binstall\b[^\n]*\b(?:tensorflow|tf-nightly)\b")
_MAY_RUN = re.compile(r"\bpython[\d.]*\s+(?:-u\s+)?[\w./-]+\.py\b")
_RUN = re.compile(r"^\s*python[\d.]*\s+(?:-u\s+)?(?P<script>[\w./-]+\.py)(?:\s|$)")
_CD = re.compile(r"^\s*cd(?:\s+(?P<folder>\S+))?\s*$")
_READABLE_FOLDER = re.compile(r"^[\w.][\w./-]*$")  # relative, no variable: `cd $HERE`, `cd ~`, `cd -` are not
_CLONE = re.compile(r"^\s*git\s+clone\s+(?:-\S+\s+)*(?P<url>\S+?)(?:\.git)?/?(?:\s+(?P<folder>[\w.-]+))?\s*$")
_SEPARATORS = re.compile(r"&&|;|\|\|")
# How many project modules one program's imports are followed to (a bound on a pathological tree).
_MAX_MODULES = 400


def may_run_job(text: str) -> bool:
    """The text may install a TensorFlow and run a Python file (a cheap test before parsing)."""
    return _MAY_INSTALL.search(text) is not None and _MAY_RUN.search(text) is not None


def job_programs(text: str, path: str, root: Path) -> list[Launch]:
    """The project files the job script ``text`` (the .py or shell file ``path`` in the repository
    ``root``) runs after a decisive TensorFlow install, with the last such install before the run:
    the program it starts and the project modules that program imports."""
    if not may_run_job(text):
        return []
    shell = not path.endswith(".py")
    commands = list(enumerate(text.splitlines(), 1)) if shell else script_commands(text)
    installed: Evidence | None = None
    clones: set[str] = set()
    # The working folder, relative to the script's; None once a `cd` goes where the text cannot
    # tell. A shell script keeps it from line to line; each `os.system` starts afresh.
    folder: PurePosixPath | None = PurePosixPath(".")
    found: list[Launch] = []
    for line, command in commands:
        folder = folder if shell else PurePosixPath(".")
        for part in _SEPARATORS.split(command):
            for install in install_evidence(part, path, line):
                if install.kind in ("tensorflow", "tf-nightly") and (
                    not install.allowed.open_ended or upgrades(install)
                ):
                    installed = install
            if (clone := _CLONE.match(part)) is not None:
                clones.add(clone.group("folder") or clone.group("url").rsplit("/", 1)[-1])
            elif (cd := _CD.match(part)) is not None:
                written = cd.group("folder") or ""
                folder = folder / written if folder is not None and _READABLE_FOLDER.match(written) else None
            elif (run := _RUN.match(part)) is not None and installed is not None and folder is not None:
                program = _program(folder / run.group("script"), clones, path, root)
                if program is not None:
                    found += [(str(file), installed) for file in [program, *imported_modules(program, root)]]
    return found


def _program(written: PurePosixPath, clones: set[str], path: str, root: Path) -> Path | None:
    """The existing project file a run names: under a folder the script clones, this repository's
    file at the rest of the path; else resolved as a launcher's script path is."""
    parts = [part for part in written.parts if part != "."]
    if len(parts) > 1 and parts[0] in clones:
        candidate = root.joinpath(*parts[1:]).resolve()
        return candidate if candidate.is_file() else None
    return resolve_written(str(PurePosixPath(*parts)), path, root) if parts else None


def imported_modules(program: Path, root: Path) -> list[Path]:
    """The project modules ``program`` imports, directly or through each other, found from the
    program's folder (the first entry of `sys.path` when it runs) and, for relative imports, from
    the importing module's package; only files inside ``root``."""
    base = program.parent
    seen = {program}
    queue = [program]
    while queue and len(seen) < _MAX_MODULES:
        module = queue.pop(0)
        text = read_small_text(str(module))
        try:
            tree = parse_module(text) if text is not None else None
        except (SyntaxError, ValueError, RecursionError):
            tree = None
        for found in _import_files(tree, module, base) if tree is not None else []:
            if found not in seen and root in found.parents:
                seen.add(found)
                queue.append(found)
    return sorted(seen - {program})


def _import_files(tree: ast.Module, module: Path, base: Path) -> list[Path]:
    """The existing project files the imports of ``module`` (parsed as ``tree``) name."""
    files: list[Path] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            files += [f for alias in node.names for f in _module_files(base, alias.name)]
        elif isinstance(node, ast.ImportFrom):
            start = base
            if node.level:
                start = module.parent
                for _ in range(node.level - 1):
                    start = start.parent
            dotted = node.module or ""
            files += _module_files(start, dotted) if dotted else []
            # `from package import module`: a submodule as well as a name.
            files += [
                f
                for alias in node.names
                if alias.name != "*"
                for f in _module_files(start, f"{dotted}.{alias.name}".lstrip("."))
            ]
    return files


def _module_files(base: Path, dotted: str) -> list[Path]:
    """The files `import <dotted>` loads from the folder ``base``: each enclosing package's
    `__init__.py` (none for a namespace package, a plain folder), then the module (a `.py` file or
    a package's `__init__.py`); what exists."""
    parts = dotted.split(".")
    files: list[Path] = []
    for end in range(1, len(parts) + 1):
        path = base.joinpath(*parts[:end])
        found = next((c for c in (path.with_suffix(".py"), path / "__init__.py") if c.is_file()), None)
        if found is not None:
            files.append(found.resolve())
        elif not path.is_dir():
            break  # a folder without `__init__.py` is a namespace package; nothing else is importable
    return files
