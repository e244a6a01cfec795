"""Which files are tests: their literal clusters and TF_CONFIGs are fixtures, not deployments."""

from __future__ import annotations

from pathlib import PurePath


def is_test_path(path: str) -> bool:
    """True for ``test_*.py``, ``*_test.py``/``*_tests.py`` and ``conftest.py``: the names pytest
    and unittest discovery (and TensorFlow's own suites) use. Folders are not looked at: a
    checkout may sit under any folder, and a helper module in ``tests/`` may be a real script."""
    stem = PurePath(path.replace("\\", "/")).stem
    return stem.startswith("test_") or stem.endswith(("_test", "_tests")) or stem == "conftest"
