"""What a user gets from ``pip install distfix``: the sdist and the wheel are built, the wheel is
installed into a fresh venv (no TensorFlow, no system site-packages), and ``distfix`` works there.

The venv is real: pip resolves the core dependencies from the index (its cache makes later runs
fast), so a dependency missing from ``[project] dependencies`` fails here and nowhere else.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_NOT_SOURCES = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".distfix_cache", ".pytest_cache")
BAD = "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\nstrategy.experimental_run_v2(fn)\n"


def _version() -> str:
    namespace: dict = {}
    for line in (ROOT / "fixer" / "version.py").read_text().splitlines():
        if line.startswith("__version__"):
            exec(line, namespace)
    return namespace["__version__"]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The ``bin`` folder of a fresh venv holding distfix installed from the wheel built from the sdist."""
    work = tmp_path_factory.mktemp("install")
    source = work / "src"
    shutil.copytree(ROOT, source, ignore=_NOT_SOURCES)
    dist = work / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(dist), str(source)], env=_clean_env(), capture_output=True, text=True, timeout=600
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    version = _version()
    (sdist,) = dist.glob(f"distfix-{version}.tar.gz")
    (wheel,) = dist.glob(f"distfix-{version}-py3-none-any.whl")
    with tarfile.open(sdist) as archive:  # the wheel is built from the sdist, so the sdist is complete
        assert f"distfix-{version}/CHANGELOG.md" in archive.getnames()
    env_dir = work / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(env_dir)
    bin_dir = env_dir / "bin"
    pip = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "--quiet", str(wheel)], env=_clean_env(), capture_output=True, text=True, timeout=900
    )
    assert pip.returncode == 0, pip.stderr[-3000:]
    return bin_dir


def _clean_env() -> dict[str, str]:
    """No PYTHONPATH: the venv's own site-packages only, never this checkout (pip would take a
    distfix it finds there as installed already)."""
    return {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}


def _run(bin_dir: Path, *args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(bin_dir / "distfix"), *args], cwd=cwd, env=_clean_env(), input=stdin, capture_output=True, timeout=300)


@pytest.mark.timeout(1200)
def test_the_fresh_venv_has_no_tensorflow_and_the_right_version(installed: Path, tmp_path: Path):
    probe = subprocess.run(
        [str(installed / "python"), "-c", "import importlib.util; print(importlib.util.find_spec('tensorflow'))"],
        env=_clean_env(), capture_output=True, text=True, cwd=tmp_path,
    )
    assert probe.stdout.strip() == "None", probe.stderr
    shown = _run(installed, "--version", cwd=tmp_path)
    assert shown.stdout.decode().strip() == f"distfix {_version()}"


@pytest.mark.timeout(1200)
def test_check_finds_a_mistake_from_the_installed_wheel(installed: Path, tmp_path: Path):
    (tmp_path / "train.py").write_text(BAD)
    result = _run(installed, "check", "train.py", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "train.py:3:10: TFD401" in result.stdout.decode()


@pytest.mark.timeout(1200)
def test_fix_explain_and_migrate_work_from_the_installed_wheel(installed: Path, tmp_path: Path):
    (tmp_path / "train.py").write_text(BAD)
    fixed = _run(installed, "fix", "--diff", cwd=tmp_path)
    assert fixed.returncode == 1 and "+strategy.run(fn)" in fixed.stdout.decode(), fixed.stderr
    explained = _run(installed, "explain", "TFD401", cwd=tmp_path)
    assert explained.returncode == 0 and explained.stdout.decode().startswith("# TFD401 renamed-distribute-api"), explained.stderr
    migrated = _run(installed, "migrate", ".", "--report", str(tmp_path / "report.html"), cwd=tmp_path)
    assert migrated.returncode == 1, migrated.stderr
    assert "<h1>distfix migration report</h1>" in (tmp_path / "report.html").read_text()


@pytest.mark.timeout(1200)
@pytest.mark.parametrize(
    "arguments, command",
    [
        (["validate", "train.py"], "distfix validate"),
        (["migrate", ".", "--validate"], "distfix migrate --validate"),
        (["doctor", "--probe", "--local", "2"], "distfix doctor --probe"),
    ],
)
def test_a_command_without_its_extra_says_how_to_install_it(installed: Path, tmp_path: Path, arguments, command):
    (tmp_path / "train.py").write_text(BAD)
    result = _run(installed, *arguments, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.decode().strip() == (
        f"distfix: error: {command} needs tensorflow, which is not installed: pip install 'distfix[validate]'"
    )


def _message(payload: dict) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _responses(stream: bytes) -> list[dict]:
    messages = []
    while stream:
        header, _, rest = stream.partition(b"\r\n\r\n")
        length = next(int(line.split(b":")[1]) for line in header.split(b"\r\n") if line.lower().startswith(b"content-length"))
        messages.append(json.loads(rest[:length]))
        stream = rest[length:]
    return messages


@pytest.mark.timeout(1200)
def test_language_server_initializes_and_shuts_down_from_the_installed_wheel(installed: Path, tmp_path: Path):
    session = b"".join(
        _message(payload)
        for payload in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}},
            {"jsonrpc": "2.0", "method": "initialized", "params": {}},
            {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None},
            {"jsonrpc": "2.0", "method": "exit", "params": None},
        )
    )
    result = _run(installed, "lsp", cwd=tmp_path, stdin=session)
    assert result.returncode == 0, result.stderr.decode()[-3000:]
    replies = {message["id"]: message for message in _responses(result.stdout) if "id" in message}
    assert replies[1]["result"]["serverInfo"]["name"] == "distfix"
    assert "codeActionProvider" in replies[1]["result"]["capabilities"]
    assert replies[2]["result"] is None
