"""A fix that could not be written is counted as failed, never as fixed: the summary, the exit
code (2) and migrate's report say what happened to the files on disk."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

from read_only_folders import read_only

ROOT = Path(__file__).resolve().parents[2]
GOOD = "import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\nd = s.experimental_distribute_datasets_from_function(f)\n"


def _limit_file_size() -> None:
    # A write past RLIMIT_FSIZE fails with EFBIG, as a full disk fails with ENOSPC: a real failing
    # write, for root too. (Python ignores SIGXFSZ, so the write returns an error.)
    resource.setrlimit(resource.RLIMIT_FSIZE, (16, 16))


def _run(*args: str, cwd: Path, limit: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fixer", *args],
        cwd=cwd, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=_limit_file_size if limit else None,
    )


def test_a_failed_write_is_not_counted_as_fixed(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "a.py").write_text(GOOD)
    (tmp_path / "b.py").write_text(GOOD)
    with read_only(folder):
        result = _run("fix", "--write", str(folder / "a.py"), str(tmp_path / "b.py"), cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert f"{folder / 'a.py'}: could not write: " in result.stderr and "the file is unchanged" in result.stderr
    summary = result.stderr.strip().splitlines()[-1]
    assert summary == "Fixed 1 finding in 1 file; 1 finding remains (`distfix check` lists it); 1 file could not be fixed (errors above).", summary
    assert (folder / "a.py").read_text() == GOOD
    assert "experimental_" not in (tmp_path / "b.py").read_text()


def test_a_full_disk_is_not_counted_as_fixed(tmp_path):
    (tmp_path / "a.py").write_text(GOOD)
    result = _run("fix", "--write", "a.py", cwd=tmp_path, limit=True)
    assert result.returncode == 2
    assert "a.py: could not write: File too large; the file is unchanged" in result.stderr
    assert "Fixed" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("Nothing to fix; 1 finding remains")
    assert (tmp_path / "a.py").read_text() == GOOD
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"], "no temporary file is left behind"


def test_migrate_reports_a_failed_write_as_not_fixed(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "a.py").write_text(GOOD)
    report = tmp_path / "report.json"
    with read_only(folder):
        result = _run("migrate", str(folder), "--write", "--report", str(report), cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    data = json.loads(report.read_text())
    assert data["totals"]["fixed"] == 0
    assert data["totals"]["errors"] == 1
    assert (folder / "a.py").read_text() == GOOD
