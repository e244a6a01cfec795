"""The project a validated script belongs to, and how its README runs it.

A training script is rarely alone: ``python -m trainer.task --epochs 3`` from the repository
root imports the script's own package, reads its arguments and often a sibling module reached
through a relative symlink. The validator runs the script the same way, in a copy of the whole
project: this module finds the project's root, the folder to run in, the module to run (``-m``)
and the ``[tool.distfix.validate]`` table of its ``pyproject.toml``.
"""

from __future__ import annotations

import ast
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from fixer.syntax import parse_module

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# What marks a project's root folder (the nearest one at or above the script wins).
_ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
_CONFIG_KEYS = {"script", "module", "args", "cwd", "env"}


class ProjectError(Exception):
    """The project's layout or its ``[tool.distfix.validate]`` table is not usable; one line."""


@dataclass(frozen=True)
class Entry:
    """How to run the script: a file or a module, its arguments, folder and environment."""

    script: Path  # the file that runs (a module's file with ``module``)
    root: Path  # the project's root: copied whole and put on sys.path
    cwd: Path  # the folder the script runs in (inside ``root``)
    module: str | None = None  # run as ``python -m module``
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)

    def command(self) -> str:
        """The command that runs the script here, as a person would type it."""
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(self.env.items()))
        target = ["-m", self.module] if self.module else [_relative(self.script, self.cwd)]
        run = shlex.join(["python", *target, *self.args])
        return f"cd {shlex.quote(str(self.cwd))} && {env + ' ' if env else ''}{run}"


def _relative(path: Path, start: Path) -> str:
    try:
        return str(path.relative_to(start))
    except ValueError:
        return str(path)


def find_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` with a project marker; ``start`` when there is none."""
    for candidate in (start, *start.parents):
        if any((candidate / marker).exists() for marker in _ROOT_MARKERS):
            return candidate
    return start


def imported_top_names(text: str) -> set[str]:
    """The top-level names of the absolute imports in ``text`` (``from trainer import model`` -> trainer)."""
    try:
        tree = parse_module(text)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _importable_from(folder: Path, name: str) -> bool:
    return (folder / name).is_dir() or (folder / f"{name}.py").is_file()


def default_cwd(script: Path, text: str, root: Path) -> Path:
    """The repository root when the script imports its own package from there, else the script's folder."""
    if script.parent != root:
        names = imported_top_names(text)
        if any(_importable_from(root, n) and not _importable_from(script.parent, n) for n in names):
            return root
    return script.parent


def module_file(module: str, folders: list[Path]) -> Path:
    """The file ``python -m module`` runs, looked for in ``folders`` in order."""
    parts = module.split(".")
    if not all(part.isidentifier() for part in parts):
        raise ProjectError(f"`{module}` is not a module name")
    for folder in folders:
        base = folder.joinpath(*parts)
        for candidate in (base.with_suffix(".py"), base / "__main__.py"):
            if candidate.is_file():
                return candidate.resolve()
    where = ", ".join(str(f) for f in folders)
    raise ProjectError(f"no module `{module}` in {where} (give --cwd the folder `python -m {module}` runs from)")


@dataclass(frozen=True)
class ProjectConfig:
    """``[tool.distfix.validate]``: the entry point, its arguments, folder and environment."""

    source: Path | None = None  # the pyproject.toml it came from
    script: str | None = None
    module: str | None = None
    args: tuple[str, ...] = ()
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)


def load_project_config(start: Path) -> ProjectConfig:
    """The ``[tool.distfix.validate]`` table of the nearest ``pyproject.toml`` at or above ``start``."""
    for candidate in (start, *start.parents):
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            try:
                data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
                raise ProjectError(f"{pyproject}: {exc}") from None
            table = data.get("tool", {}).get("distfix", {}).get("validate")
            if table is not None:
                return _config(table, pyproject)
    return ProjectConfig()


def _config(table: object, source: Path) -> ProjectConfig:
    where = f"{source}: [tool.distfix.validate]"
    if not isinstance(table, dict):
        raise ProjectError(f"{where} must be a table")
    unknown = sorted(set(table) - _CONFIG_KEYS)
    if unknown:
        raise ProjectError(f"{where}: unknown key(s): {', '.join(unknown)} (known: {', '.join(sorted(_CONFIG_KEYS))})")
    for key in ("script", "module", "cwd"):
        if key in table and not isinstance(table[key], str):
            raise ProjectError(f"{where}: {key} must be a string")
    args = table.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ProjectError(f"{where}: args must be a list of strings")
    env = table.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise ProjectError(f"{where}: env must map names to strings")
    if "script" in table and "module" in table:
        raise ProjectError(f"{where}: give script or module, not both")
    return ProjectConfig(source, table.get("script"), table.get("module"), tuple(args), table.get("cwd"), dict(env))


def resolve_entry(
    script: Path | None,
    module: str | None = None,
    args: tuple[str, ...] | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    start: Path | None = None,
) -> Entry:
    """How to run the script: what the command line gives, else the project's configuration.

    ``start`` is where the configuration is looked for when neither a script nor a module is
    given (the current folder). The configuration's arguments and folder apply to the entry point
    it names (or to any when it names none); its environment to every run. Relative paths in it
    are relative to its ``pyproject.toml``'s folder.
    """
    if script is not None and module is not None:
        raise ProjectError("give a script or -m MODULE, not both")
    anchor = script.absolute().parent.resolve() if script is not None else (cwd or start or Path.cwd()).resolve()
    config = load_project_config(anchor)
    base = config.source.parent if config.source else anchor
    if script is None and module is None:
        if config.script is None and config.module is None:
            raise ProjectError(
                "no script: give SCRIPT, -m MODULE, or [tool.distfix.validate] script/module in pyproject.toml"
            )
        script = base / config.script if config.script else None
        module = config.module
    if script is not None and module is None and config.module is not None:
        try:  # the configured module's own file: run it as the project does, with -m
            if module_file(config.module, [base / config.cwd if config.cwd else base]) == script.resolve():
                script, module = None, config.module
        except ProjectError:
            pass
    named = config.script is None and config.module is None
    named = named or (module is not None and module == config.module)
    named = named or (
        script is not None and config.script is not None and script.absolute() == (base / config.script).absolute()
    )
    if named:
        cwd = cwd if cwd is not None else (base / config.cwd if config.cwd is not None else None)
        args = args if args else config.args
    env = {**config.env, **(env or {})}
    run_in: Path | None
    if module is not None:
        run_in = (cwd or base).resolve()
        path = module_file(module, [run_in])
    else:
        assert script is not None
        path = script.absolute().parent.resolve() / script.name  # a symlinked script stays the link the project runs
        if not path.is_file():
            raise ProjectError(f"{script}: no such file")
        run_in = cwd.resolve() if cwd else None
    root = find_root(path.parent)
    if run_in is None:
        run_in = default_cwd(path, path.read_text(encoding="utf-8", errors="replace"), root)
    if not run_in.is_dir():
        raise ProjectError(f"--cwd {run_in}: no such folder")
    if root not in (run_in, *run_in.parents):
        root = _common_root(path.parent, run_in)
    return Entry(path, root, run_in, module, tuple(args or ()), env)


def _common_root(a: Path, b: Path) -> Path:
    for candidate in (a, *a.parents):
        if candidate in (b, *b.parents):
            return candidate
    return a
