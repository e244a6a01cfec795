"""The optional extras: which command needs which, and the one line said when one is missing.

``pip install distfix`` checks, fixes, explains, migrates and serves editors. Running TensorFlow
(``validate``, ``migrate --validate``, ``doctor --probe``) needs ``distfix[validate]`` (or
``distfix[gpu]``); the Ray backend needs ``distfix[ray]``. A command that needs a missing extra
says so in one line before it starts anything, instead of failing later with a traceback.
"""

from __future__ import annotations

import importlib.util

# extra -> the top-level modules it brings
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "validate": ("tensorflow",),
    "ray": ("ray",),
}


def missing_extra(extra: str, command: str) -> str | None:
    """``None`` when ``extra`` is installed, else the message telling how to install it for ``command``."""
    absent = [name for name in EXTRA_MODULES[extra] if importlib.util.find_spec(name) is None]
    if not absent:
        return None
    return f"{command} needs {', '.join(absent)}, which is not installed: pip install 'distfix[{extra}]'"
