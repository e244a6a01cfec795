"""distfix: find and fix the known mistakes in TensorFlow distributed-training scripts.

The public API is the engine: :func:`check_source` and :func:`fix_source` (see ``fixer.engine``).
They are imported on first use, so that importing a part of distfix that does not analyse
code (the command line answering from its cache) does not import libcst and every rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fixer.version import __version__

__all__ = ["check_source", "fix_source", "Applicability", "Edit", "FileResult", "Finding", "Fix", "__version__"]

_ENGINE = ("check_source", "fix_source")
_TYPES = ("Applicability", "Edit", "FileResult", "Finding", "Fix")

if TYPE_CHECKING:
    from fixer.engine import check_source, fix_source
    from fixer.types import Applicability, Edit, FileResult, Finding, Fix


def __getattr__(name: str) -> Any:
    """The public names, imported when first asked for (PEP 562)."""
    if name in _ENGINE:
        from fixer import engine

        return getattr(engine, name)
    if name in _TYPES:
        from fixer import types

        return getattr(types, name)
    raise AttributeError(f"module 'fixer' has no attribute {name!r}")
