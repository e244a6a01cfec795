"""Discovers every rule in the ``codemods`` package and selects them by code prefix."""

from __future__ import annotations

import hashlib
import importlib
import pkgutil
import sys
from functools import cached_property, lru_cache
from pathlib import Path

import codemods
from fixer.rule import EXAMPLES_SUFFIX, Rule


class Registry:
    """All known rules, sorted by code."""

    def __init__(self, rules: list[type[Rule]]) -> None:
        codes = [rule.code for rule in rules]
        duplicates = sorted({code for code in codes if codes.count(code) > 1})
        if duplicates:
            raise ValueError(f"duplicate rule codes: {', '.join(duplicates)}")
        self.rules = sorted(rules, key=lambda rule: rule.code)
        self._by_code = {rule.code: rule for rule in self.rules}

    def get(self, code: str) -> type[Rule] | None:
        """The rule with exactly this code (case-insensitive), or None."""
        return self._by_code.get(code.upper())

    @cached_property
    def fingerprint(self) -> str:
        """A digest of every rule module's source and the engine's, for cache keys."""
        digest = hashlib.blake2b(digest_size=16)
        modules = {sys.modules[rule.__module__] for rule in self.rules} | {sys.modules[__name__]}
        for module in sorted(modules, key=lambda m: m.__name__):
            digest.update(module.__name__.encode())
            source = getattr(module, "__file__", None)
            if source:
                digest.update(Path(source).read_bytes())
        for engine_file in sorted((Path(__file__).parent).rglob("*.py")):
            digest.update(engine_file.read_bytes())
        return digest.hexdigest()


def _discover() -> list[type[Rule]]:
    found: list[type[Rule]] = []
    for info in pkgutil.walk_packages(codemods.__path__, prefix="codemods."):
        if info.ispkg or info.name.endswith(EXAMPLES_SUFFIX):  # examples load only when asked for
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Rule)
                and value is not Rule
                and value.__module__ == module.__name__
                and "code" in vars(value)
            ):
                found.append(value)
    return found


@lru_cache(maxsize=1)
def default_registry() -> Registry:
    """The registry of every rule shipped in ``codemods/`` (discovered once per process)."""
    return Registry(_discover())
