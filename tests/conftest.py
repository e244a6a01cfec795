"""Shared helpers: run the real ``distfix`` command line in a subprocess, with the result
cache kept out of the repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_CACHE_DIR = Path(tempfile.mkdtemp(prefix="distfix-test-cache-"))
os.environ["DISTFIX_CACHE_DIR"] = str(_CACHE_DIR)  # inherited by every subprocess of the suite


def run_distfix(*args: str, cwd: Path | None = None, timeout: float = 120, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m fixer ARGS`` and capture text output."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "fixer", *args],
        cwd=cwd or ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full_env,
    )


@pytest.fixture
def distfix():
    """The ``run_distfix`` helper as a fixture."""
    return run_distfix


def heavy_imports_of(*commands: list[str], timeout: float = 300) -> set[str]:
    """Which of ``ray`` and ``tensorflow`` a fresh interpreter imported after running each CLI command in turn."""
    code = (
        "import sys\n"
        "from fixer.cli import app\n"
        f"for args in {list(commands)!r}:\n"
        "    try:\n"
        "        app(args)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "sys.stderr.write('\\nHEAVY:' + ' '.join(m for m in ('ray', 'tensorflow') if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    last = result.stderr.rsplit("\n", 1)[-1]
    assert last.startswith("HEAVY:"), result.stderr
    return set(last.removeprefix("HEAVY:").split())


@pytest.fixture
def heavy_imports():
    """The ``heavy_imports_of`` helper as a fixture."""
    return heavy_imports_of


@pytest.fixture(scope="session")
def ray_head():
    """The address of one local Ray head shared by the session's Ray tests (``ray_head.py``), also
    exported as RAY_ADDRESS, so ``--address auto`` and the validator children join it.

    The head listens on 127.0.0.1 only, and Ray rewrites a loopback address to the host's own before
    it connects unless its loopback mode is on: the mode is exported too, and set in this process
    when Ray is already imported (Ray reads the variable once, at import)."""
    pytest.importorskip("ray")
    from ray_head import LOOPBACK_VARIABLE, start_head, stop_head

    head = start_head(num_cpus=4)
    exported = {"RAY_ADDRESS": head.address, LOOPBACK_VARIABLE: "0"}
    saved = {name: os.environ.get(name) for name in exported}
    os.environ.update(exported)
    constants = sys.modules.get("ray._private.ray_constants")
    saved_mode = getattr(constants, "ENABLE_RAY_CLUSTER", None)
    if constants is not None:
        constants.ENABLE_RAY_CLUSTER = False
    try:
        yield head.address
    finally:
        if constants is not None:
            constants.ENABLE_RAY_CLUSTER = saved_mode
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        stop_head(head)


def pytest_sessionfinish(session, exitstatus) -> None:
    """Remove the suite's private result cache."""
    shutil.rmtree(_CACHE_DIR, ignore_errors=True)
