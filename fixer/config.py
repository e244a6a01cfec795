"""``[tool.distfix]`` configuration from the nearest ``pyproject.toml``."""

from __future__ import annotations

import fnmatch
import hashlib
import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from fixer.codes import code_error, did_you_mean

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


class ConfigError(Exception):
    """The configuration file is unreadable or has a wrong value; the message says which."""


@dataclass(frozen=True)
class Config:
    """What the user selected. Codes are matched by prefix: ``TFD``, ``TFD1``, ``TFD101``."""

    select: tuple[str, ...] = ("TFD",)
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    unsafe_fixes: bool = False
    root: Path | None = None  # the folder holding the pyproject.toml the settings came from
    target_version: tuple[int, int] | None = None  # TensorFlow the code must work on (None: its pin)

    def with_overrides(
        self,
        select: list[str] | None = None,
        ignore: list[str] | None = None,
        extend_select: list[str] | None = None,
        extend_ignore: list[str] | None = None,
        per_file_ignores: list[tuple[str, tuple[str, ...]]] | None = None,
        unsafe_fixes: bool | None = None,
        target_version: tuple[int, int] | None = None,
    ) -> Config:
        """Command-line options replace (select, ignore) or extend (extend_select, extend_ignore,
        per_file_ignores) the file's, as ruff's do."""
        updated = self
        if select:
            updated = replace(updated, select=_codes(select))
        if ignore:
            updated = replace(updated, ignore=_codes(ignore))
        if extend_select:
            updated = replace(updated, select=updated.select + _codes(extend_select))
        if extend_ignore:
            updated = replace(updated, ignore=updated.ignore + _codes(extend_ignore))
        if per_file_ignores:
            updated = replace(updated, per_file_ignores=updated.per_file_ignores + tuple(per_file_ignores))
        if unsafe_fixes is not None:
            updated = replace(updated, unsafe_fixes=unsafe_fixes)
        if target_version is not None:
            updated = replace(updated, target_version=target_version)
        return updated

    def is_enabled(self, code: str, path: str | None = None) -> bool:
        """True when ``code`` is selected, not ignored, and not ignored for ``path``."""
        if not any(code.startswith(prefix) for prefix in self.select):
            return False
        if any(code.startswith(prefix) for prefix in self.ignore):
            return False
        if path is not None:
            for pattern, codes in self.per_file_ignores:
                if _path_matches(path, pattern, self.root) and any(code.startswith(prefix) for prefix in codes):
                    return False
        return True

    def fingerprint(self) -> str:
        """A stable hash of every setting that can change a result (used as a cache key)."""
        payload = json.dumps(
            [self.select, self.ignore, self.per_file_ignores, self.exclude, self.unsafe_fixes, self.target_version],
            sort_keys=True,
        )
        return hashlib.sha256(payload.encode()).hexdigest()[:16]


def _codes(values: list[str]) -> tuple[str, ...]:
    codes: list[str] = []
    for value in values:
        codes.extend(part.strip().upper() for part in value.split(",") if part.strip())
    return tuple(codes)


def _path_matches(path: str, pattern: str, root: Path | None) -> bool:
    candidates = {path.replace("\\", "/")}
    if root is not None:
        try:
            candidates.add(Path(path).resolve().relative_to(root.resolve()).as_posix())
        except ValueError:
            pass
    return any(
        fnmatch.fnmatch(candidate, pattern) or fnmatch.fnmatch(candidate, f"*/{pattern}") for candidate in candidates
    )


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` that has a ``[tool.distfix]`` table."""
    folder = start if start.is_dir() else start.parent
    for candidate in [folder.resolve(), *folder.resolve().parents]:
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file() and "[tool.distfix" in _read(pyproject):
            return pyproject
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def load_config(start: Path) -> Config:
    """Load the configuration that applies to ``start`` (a file or folder); defaults if none."""
    pyproject = find_pyproject(start)
    if pyproject is None:
        return Config()
    try:
        data = tomllib.loads(_read(pyproject))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{pyproject}: invalid TOML: {exc}") from None
    table = data.get("tool", {}).get("distfix", {})
    return config_from_table(table, pyproject)


KNOWN_KEYS = (
    "select",
    "ignore",
    "extend-select",
    "extend-ignore",
    "per-file-ignores",
    "exclude",
    "unsafe-fixes",
    "target-version",
    "validate",  # [tool.distfix.validate] belongs to `distfix validate` (fixer/validate/project.py reads it)
)


def config_from_table(table: dict[str, Any], source: Path) -> Config:
    """Validate a ``[tool.distfix]`` table and turn it into a Config.

    Keys and rule codes are checked as the command line checks them: an unknown one is an error
    that names the closest known one.
    """
    for key in sorted(table):
        if key not in KNOWN_KEYS:
            raise ConfigError(f"{source}: unknown [tool.distfix] key {key!r}{did_you_mean(key, KNOWN_KEYS)}")

    def code_list(key: str) -> tuple[str, ...]:
        value = string_list(key)
        problem = code_error(list(value), f"[tool.distfix] {key}")
        if problem is not None:
            raise ConfigError(f"{source}: {problem}")
        return _codes(list(value))

    def string_list(key: str) -> tuple[str, ...]:
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ConfigError(f"{source}: [tool.distfix] {key} must be a list of strings")
        return tuple(value)

    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict) or not all(
        isinstance(v, list) and all(isinstance(c, str) for c in v) for v in per_file.values()
    ):
        raise ConfigError(f"{source}: [tool.distfix] per-file-ignores must map globs to lists of codes")
    for glob, codes in per_file.items():
        problem = code_error(codes, f"[tool.distfix] per-file-ignores {glob!r}")
        if problem is not None:
            raise ConfigError(f"{source}: {problem}")
    unsafe = table.get("unsafe-fixes", False)
    if not isinstance(unsafe, bool):
        raise ConfigError(f"{source}: [tool.distfix] unsafe-fixes must be true or false")
    target = table.get("target-version")
    try:
        target_version = parse_target_version(target) if target is not None else None
    except ValueError as exc:
        raise ConfigError(f"{source}: [tool.distfix] target-version {exc}") from None
    return Config(
        select=(code_list("select") or ("TFD",)) + code_list("extend-select"),
        ignore=code_list("ignore") + code_list("extend-ignore"),
        per_file_ignores=tuple((glob, _codes(codes)) for glob, codes in sorted(per_file.items())),
        exclude=string_list("exclude"),
        unsafe_fixes=unsafe,
        root=source.parent,
        target_version=target_version,
    )


def parse_target_version(value: object) -> tuple[int, int]:
    """``"2.21"`` -> (2, 21); a ValueError saying what is expected otherwise."""
    text = value if isinstance(value, str) else None
    parts = text.strip().split(".") if text is not None else []
    if len(parts) not in (2, 3) or not all(part.isdigit() for part in parts) or int(parts[0]) not in (1, 2):
        raise ValueError(f'must be a TensorFlow version such as "2.21" (got {value!r})')
    return int(parts[0]), int(parts[1])
