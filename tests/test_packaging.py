"""A non-editable build ships every package and the root ``templates/`` folder as
``fixer/templates``, and the installed wheel renders rule docs, reports and launch scripts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_NOT_SOURCES = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".distfix_cache", ".pytest_cache")
_OFFLINE = ("No matching distribution found", "Could not find a version", "NewConnectionError", "Network is unreachable")

TF_CONFIG_SCRIPT = """\
import json
import os

import tensorflow as tf

os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["10.0.0.1:2222", "10.0.0.2:2222"]}, "task": {"type": "worker", "index": 0}})
strategy = tf.distribute.MultiWorkerMirroredStrategy()
first = strategy.experimental_distribute_datasets_from_function(make_first)
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built by pip, in build isolation, from a copy of the repository."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "src"
    shutil.copytree(ROOT, source, ignore=_NOT_SOURCES)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(work / "dist"), str(source)],
        capture_output=True, text=True, timeout=300,
    )
    if built.returncode != 0 and any(reason in built.stderr for reason in _OFFLINE):
        pytest.skip(f"no package index for the build backend: {built.stderr.strip().splitlines()[-1]}")
    assert built.returncode == 0, built.stderr
    (found,) = (work / "dist").glob("distfix-*.whl")
    return found


@pytest.mark.timeout(400)
def test_wheel_ships_every_package_and_template(wheel: Path):
    names = set(zipfile.ZipFile(wheel).namelist())
    templates = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "templates").rglob("*") if p.is_file())
    assert templates, "the checkout has templates"
    missing = [name for name in templates if f"fixer/{name}" not in names]
    assert not missing, f"templates not in the wheel: {missing}"
    packages = sorted(
        p.relative_to(ROOT).as_posix() for top in ("fixer", "codemods") for p in (ROOT / top).rglob("__init__.py")
    )
    assert [p for p in packages if p not in names] == [], "a package is missing from [tool.setuptools] packages"


@pytest.mark.timeout(400)
def test_installed_wheel_renders_docs_reports_and_launchers(wheel: Path, tmp_path: Path):
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet", "--target", str(site), str(wheel)],
        check=True, capture_output=True, timeout=300,
    )
    env = {**os.environ, "PYTHONPATH": str(site)}

    def distfix(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "fixer", *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)

    where = subprocess.run([sys.executable, "-c", "import fixer.report as r; print(r.templates_dir())"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert Path(where.stdout.strip()) == site / "fixer" / "templates", where.stderr
    explained = distfix("explain", "TFD101")
    assert explained.returncode == 0 and "TFD101" in explained.stdout, explained.stderr
    project = tmp_path / "project"
    project.mkdir()
    (project / "train.py").write_text(TF_CONFIG_SCRIPT)
    for report in ("r.html", "r.md", "r.json"):
        migrated = distfix("migrate", str(project), "--report", str(tmp_path / report))
        assert migrated.returncode == 1, migrated.stderr
    assert "<h1>distfix migration report</h1>" in (tmp_path / "r.html").read_text()
    assert "## distfix migration report" in (tmp_path / "r.md").read_text()
    assert json.loads((tmp_path / "r.json").read_text())["totals"]["fixed"] == 1
    bodies = distfix("migrate", str(project), "--report-dir", str(tmp_path / "prs"))
    assert bodies.returncode == 1, bodies.stderr
    assert "Fix TensorFlow distributed-training mistakes" in (tmp_path / "prs" / "project" / "PR.md").read_text()
    launched = distfix("fix", "--write", "--unsafe-fixes", "--emit-launcher", str(tmp_path / "launch"), str(project / "train.py"))
    assert launched.returncode in (0, 1), launched.stderr
    assert "export TF_CONFIG=" in (tmp_path / "launch" / "train" / "launch_worker_1.sh").read_text()
