"""Only regular files are read: a FIFO, socket or device named like a source file is skipped
with a one-line message, never opened the ordinary way (opening a FIFO blocks until a writer
comes), in check, fix, migrate and the project-import analysis the language server shares."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

from fixer.sources import SourceError, read_bytes

GOOD = "import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\nd = s.experimental_distribute_datasets_from_function(f)\n"

# A hang is the failure under test: the timeout only turns it into a test failure.
HANG = 60


def _no_traceback(result: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in result.stdout + result.stderr


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder with a good script and a FIFO named like a script."""
    (tmp_path / "good.py").write_text(GOOD)
    os.mkfifo(tmp_path / "pipe.py")
    return tmp_path


@pytest.mark.parametrize("given", ["folder", "file"])
def test_check_skips_a_fifo_with_a_message_and_checks_the_rest(folder, distfix, given):
    target = str(folder) if given == "folder" else str(folder / "pipe.py")
    result = distfix("check", target, str(folder / "good.py"), timeout=HANG)
    _no_traceback(result)
    assert result.returncode == 2
    assert f"{folder / 'pipe.py'}:1:1: TFD000 not a regular file (a FIFO); skipped" in result.stdout
    assert f"{folder / 'good.py'}:3:7: TFD401" in result.stdout


def test_check_with_the_pool_skips_fifos(tmp_path, distfix):
    for number in range(12):
        (tmp_path / f"good{number}.py").write_text(GOOD)
        os.mkfifo(tmp_path / f"pipe{number}.py")
    result = distfix("check", "--jobs", "2", "--no-cache", str(tmp_path), timeout=HANG)
    _no_traceback(result)
    assert result.returncode == 2
    assert result.stdout.count("not a regular file (a FIFO); skipped") == 12
    assert result.stdout.count(": TFD401 ") == 12


def test_fix_write_skips_a_fifo_and_fixes_the_rest(folder, distfix):
    result = distfix("fix", "--write", str(folder), timeout=HANG)
    _no_traceback(result)
    assert result.returncode == 2
    assert f"{folder / 'pipe.py'}: not a regular file (a FIFO); skipped" in result.stderr
    assert "distribute_datasets_from_function(f)" in (folder / "good.py").read_text()
    assert "experimental_" not in (folder / "good.py").read_text()


def test_migrate_skips_a_fifo(folder, distfix, tmp_path):
    report = tmp_path.parent / f"{tmp_path.name}-report.json"
    result = distfix("migrate", str(folder), "--report", str(report), timeout=HANG)
    _no_traceback(result)
    assert result.returncode in (1, 2)
    assert "pipe.py" in result.stdout + result.stderr + report.read_text()


def test_a_fifo_named_like_an_imported_module_is_not_read(tmp_path, distfix):
    # The project-import analysis (shared with the language server) follows `from helper import`.
    os.mkfifo(tmp_path / "helper.py")
    (tmp_path / "main.py").write_text(
        "import tensorflow as tf\nfrom helper import make_model\n\n"
        "strategy = tf.distribute.MirroredStrategy()\nmodel = make_model()\n"
        "with strategy.scope():\n    pass\nmodel.fit(x)\n"
    )
    result = distfix("check", "--no-cache", str(tmp_path / "main.py"), timeout=HANG)
    _no_traceback(result)
    assert result.returncode in (0, 1)


def test_a_socket_is_skipped(tmp_path):
    path = tmp_path / "sock.py"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(SourceError, match=r"not a regular file \(a socket\)"):
            read_bytes(path)


def test_a_character_device_is_skipped():
    with pytest.raises(SourceError, match=r"not a regular file \(a character device\)"):
        read_bytes(Path("/dev/zero"))  # reading it would never end
