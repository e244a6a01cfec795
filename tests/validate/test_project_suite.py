"""Real-shaped projects (``corpus/projects/projects.toml``) validated the way their README runs them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
PROJECTS = ROOT / "corpus" / "projects"
SUITE = tomllib.loads((PROJECTS / "projects.toml").read_text())["project"]
EXIT = {"pass": 0, "fail": 1, "cannot validate": 2}


def test_every_project_is_listed():
    assert {p["name"] for p in SUITE} == {d.name for d in PROJECTS.iterdir() if d.is_dir()}


@pytest.mark.tensorflow
@pytest.mark.parametrize("project", SUITE, ids=lambda p: p["name"])
def test_project_gets_its_verdict(project: dict, distfix):
    result = distfix(
        "validate", "--device", "cpu", "--max-steps", "3", "--timeout", "240", *project["command"],
        cwd=PROJECTS / project["name"],
        env={"PYTHONPATH": str(ROOT)},  # this checkout's distfix, run from the project's folder as a user would
        timeout=900,
    )
    output = result.stdout + result.stderr
    assert result.returncode == EXIT[project["verdict"]], output
    if project["verdict"] == "cannot validate":
        assert "cannot validate" in result.stderr and project["reason"] in result.stderr, output
        assert "to reproduce: cd " in result.stderr and "Traceback" not in result.stderr, output
    else:
        assert f"verdict: {project['verdict']}" in result.stdout, output
