"""The GitHub Action (action.yml): its steps' shell commands run here as the runner runs them
(bash -eo pipefail, inputs through env, $GITHUB_PATH carried to later steps), installing
distfix from this checkout into a venv of its own and checking a small project."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
BAD = "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\nstrategy.experimental_run_v2(fn)\n"
_EXPRESSION = re.compile(r"\$\{\{\s*([\w.]+)\s*\}\}")
_INPUT_SET = re.compile(r"^inputs\.(\w+) != ''$")


class Runner:
    """What a GitHub runner gives a composite action's steps: RUNNER_TEMP, GITHUB_PATH, the
    action's path and its inputs (the defaults of action.yml, then the workflow's ``with``)."""

    def __init__(self, temp: Path) -> None:
        self.temp = temp
        self.github_path = temp / "github_path"
        self.github_path.write_text("")
        # This checkout's venv and PYTHONPATH stay out: only what the action installs is used.
        self.env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
        self.env.update(RUNNER_TEMP=str(temp), GITHUB_PATH=str(self.github_path), GITHUB_ACTION_PATH=str(ROOT))
        own_bin = str(Path(sys.executable).parent)
        self.env["PATH"] = os.pathsep.join(p for p in self.env["PATH"].split(os.pathsep) if p != own_bin)

    def run_step(self, step: dict, inputs: dict[str, str], cwd: Path) -> subprocess.CompletedProcess | None:
        """Run one step (None when its ``if`` is false); later steps see what it added to GITHUB_PATH."""
        values = {f"inputs.{name}": spec.get("default", "") for name, spec in ACTION["inputs"].items()}
        values.update({f"inputs.{name}": value for name, value in inputs.items()})
        values["github.action_path"] = str(ROOT)
        condition = step.get("if")
        if condition is not None:
            match = _INPUT_SET.match(condition)
            assert match, f"the test evaluates only `inputs.NAME != ''` conditions, not {condition!r}"
            if values[f"inputs.{match.group(1)}"] == "":
                return None
        assert step["shell"] == "bash"
        env = dict(self.env)
        env.update({key: _EXPRESSION.sub(lambda m: values[m.group(1)], value) for key, value in step.get("env", {}).items()})
        added = [line for line in self.github_path.read_text().splitlines() if line]
        env["PATH"] = os.pathsep.join([*reversed(added), env["PATH"]])
        assert "${{" not in step["run"], "inputs reach the shell through env only (no injection)"
        return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def runner(tmp_path_factory) -> Runner:
    """A runner on which the action's install step has run."""
    runner = Runner(tmp_path_factory.mktemp("runner"))
    install = ACTION["runs"]["steps"][0]
    assert install["name"] == "Install distfix"
    done = runner.run_step(install, {}, runner.temp)
    assert done is not None and done.returncode == 0, done.stderr[-3000:]
    return runner


def _project(tmp_path: Path) -> Path:
    (tmp_path / "train.py").write_text(BAD)
    (tmp_path / "clean.py").write_text("x = 1\n")
    return tmp_path


def _run_checks(runner: Runner, inputs: dict[str, str], cwd: Path) -> list[subprocess.CompletedProcess | None]:
    return [runner.run_step(step, inputs, cwd) for step in ACTION["runs"]["steps"][1:]]


@pytest.mark.timeout(1200)
def test_the_action_installs_distfix_into_its_own_venv(runner: Runner, tmp_path: Path):
    step = {"shell": "bash", "run": "command -v distfix; distfix --version"}
    found = runner.run_step(step, {}, tmp_path)
    assert found.returncode == 0, found.stderr
    assert found.stdout.splitlines()[0] == str(runner.temp / "distfix-venv" / "bin" / "distfix")


@pytest.mark.timeout(1200)
def test_the_action_annotates_findings_and_fails(runner: Runner, tmp_path: Path):
    sarif, check = _run_checks(runner, {}, _project(tmp_path))
    assert sarif is None  # no SARIF unless asked for
    assert check.returncode == 1, check.stderr
    assert check.stdout.strip() == (
        "::warning file=train.py,line=3,col=10,endLine=3,endColumn=29,title=TFD401 renamed-distribute-api::"
        "`experimental_run_v2` is removed in TensorFlow 2.21 (`AttributeError`; 2.21 assumed: no pin found); use `run`"
    )


@pytest.mark.timeout(1200)
def test_the_action_writes_sarif_and_passes_options(runner: Runner, tmp_path: Path):
    project = _project(tmp_path)
    sarif, check = _run_checks(runner, {"sarif": "distfix.sarif", "args": "--exit-zero", "paths": "train.py clean.py"}, project)
    assert sarif.returncode == 0, sarif.stderr
    results = json.loads((project / "distfix.sarif").read_text())["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [("TFD401", "warning")]
    assert check.returncode == 0, check.stderr  # --exit-zero reached distfix
    assert "title=TFD401" in check.stdout
