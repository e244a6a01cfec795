"""The legacy-Keras switch a repository's CI sets makes its code Keras 2 (docs/target.md, "The
legacy-Keras switch of a project's CI"): a GitHub Actions `env:` at any level, a CI shell script's
`export`, tox's `setenv`, a Makefile's `export`. Each shape has a control that stays Keras 3."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from fixer.config import Config
from fixer.engine import check_source
from fixer.target import target_for

if TYPE_CHECKING:
    from pathlib import Path

SETUP = "from setuptools import setup\nsetup(install_requires=['tensorflow>=2.16'])\n"

WORKFLOW = """\
name: tests
on: [push]
{top}jobs:
  test:
    runs-on: ubuntu-latest
{job}    steps:
      - uses: actions/checkout@v4
      - run: pip install -e . tf-keras
{step}      - run: pytest
"""

# Parameter-server `fit` in a script that runs on a cluster (its launcher sets TF_CONFIG per task).
SCRIPT = """\
import json
import os

import tensorflow as tf

os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["w0:2222"], "ps": ["p0:2222"], "chief": ["c0:2222"]},
                                      "task": {"type": "chief", "index": 0}})
resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
strategy = tf.distribute.ParameterServerStrategy(resolver)
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
model.fit(tf.data.Dataset.from_tensors(([1.0], [1.0])).repeat(), epochs=1, steps_per_epoch=2)
"""


def project(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for name, text in {"setup.py": SETUP, "demo/train.py": SCRIPT, **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def workflow(top: str = "", job: str = "", step: str = "") -> str:
    return WORKFLOW.format(top=top, job=job, step=step)


def tfd504(root: Path) -> list[str]:
    script = root / "demo" / "train.py"
    found = check_source(str(script), SCRIPT, Config(select=("TFD504",))).findings
    return [f.code for f in found]


SWITCHED = {
    "workflow env": {".github/workflows/ci.yml": workflow(top="env:\n  TF_USE_LEGACY_KERAS: 1\n")},
    "job env, quoted": {".github/workflows/ci.yml": workflow(job='    env:\n      TF_USE_LEGACY_KERAS: "1"\n')},
    "step env": {".github/workflows/ci.yml": workflow(step="        env:\n          TF_USE_LEGACY_KERAS: 'True'\n")},
    "a CI shell script's export": {
        ".github/workflows/ci.yml": workflow(step="      - run: bash .github/workflows/build.sh\n"),
        ".github/workflows/build.sh": 'set -e\nif [[ "$TF_VERSION" =~ ^2\\.16 ]]; then\n  export TF_USE_LEGACY_KERAS=1\nfi\n',
    },
    "tox setenv": {"tox.ini": "[testenv]\nsetenv =\n    TF_USE_LEGACY_KERAS = 1\ncommands = pytest\n"},
    "a Makefile's export": {"Makefile": "export TF_USE_LEGACY_KERAS := 1\n\ntest:\n\tpytest\n"},
    "a command's own environment in ci/": {"ci/test.sh": "TF_USE_LEGACY_KERAS=1 python -m pytest tests\n"},
}

NOT_SWITCHED = {
    "no setting": {".github/workflows/ci.yml": workflow()},
    "a commented-out export": {".github/workflows/build.sh": "# export TF_USE_LEGACY_KERAS=1\npytest\n"},
    "set to 0": {".github/workflows/ci.yml": workflow(top="env:\n  TF_USE_LEGACY_KERAS: 0\n")},
    "a matrix value": {".github/workflows/ci.yml": workflow(job="    env:\n      TF_USE_LEGACY_KERAS: ${{ matrix.legacy }}\n")},
    "jobs that disagree": {
        ".github/workflows/legacy.yml": workflow(top="env:\n  TF_USE_LEGACY_KERAS: 1\n"),
        ".github/workflows/keras3.yml": workflow(top="env:\n  TF_USE_LEGACY_KERAS: 0\n"),
    },
    "a script outside the CI folders": {"scripts/build.sh": "export TF_USE_LEGACY_KERAS=1\n"},
}


@pytest.mark.parametrize("shape", sorted(SWITCHED))
def test_a_ci_that_sets_the_switch_makes_the_project_keras_2(tmp_path: Path, shape: str):
    root = project(tmp_path, SWITCHED[shape])
    target = target_for(root / "demo" / "train.py")
    assert target.version >= (2, 16)
    assert target.keras == 2
    assert target.legacy_env is not None and "TF_USE_LEGACY_KERAS" in target.legacy_env.text
    assert tfd504(root) == []  # tf-keras runs parameter-server `fit`


@pytest.mark.parametrize("shape", sorted(NOT_SWITCHED))
def test_a_ci_without_a_clear_setting_leaves_keras_3(tmp_path: Path, shape: str):
    root = project(tmp_path, NOT_SWITCHED[shape])
    assert target_for(root / "demo" / "train.py").keras == 3
    assert tfd504(root) == ["TFD504"]


def test_the_projects_own_setting_beats_its_ci(tmp_path: Path):
    own = "FROM tensorflow/tensorflow:2.17.0\nENV TF_USE_LEGACY_KERAS=0\n"
    root = project(
        tmp_path, {"Dockerfile": own, ".github/workflows/ci.yml": workflow(top="env:\n  TF_USE_LEGACY_KERAS: 1\n")}
    )
    assert target_for(root / "demo" / "train.py").keras == 3


def test_adding_the_switch_to_the_ci_changes_the_answer(tmp_path: Path):
    root = project(tmp_path, {".github/workflows/ci.yml": workflow()})
    assert target_for(root / "demo" / "train.py").keras == 3
    (root / ".github" / "workflows" / "build.sh").write_text("export TF_USE_LEGACY_KERAS=1\n")
    assert target_for(root / "demo" / "train.py").keras == 2


OTHER = SCRIPT.replace("epochs=1", "epochs=2")


def test_a_steps_own_env_holds_for_the_scripts_it_runs_only(tmp_path: Path):
    step = "        env:\n          TF_USE_LEGACY_KERAS: 1\n        run: |\n          poetry run python demo/train.py\n"
    root = project(
        tmp_path,
        {".github/workflows/ci.yml": workflow(step="      - name: demo\n" + step), "other/train.py": OTHER},
    )
    assert target_for(root / "demo" / "train.py").keras == 2
    assert tfd504(root) == []
    assert target_for(root / "other" / "train.py").keras == 3
    found = check_source(str(root / "other" / "train.py"), OTHER, Config(select=("TFD504",))).findings
    assert [f.code for f in found] == ["TFD504"]


def test_a_steps_env_for_a_test_run_naming_no_script_holds_for_the_project(tmp_path: Path):
    step = "      - name: tests\n        env:\n          TF_USE_LEGACY_KERAS: 1\n        run: python -m pytest tests\n"
    root = project(tmp_path, {".github/workflows/ci.yml": workflow(step=step)})
    assert target_for(root / "demo" / "train.py").keras == 2


def test_a_commands_own_setting_in_a_ci_script_holds_for_its_script_only(tmp_path: Path):
    root = project(tmp_path, {"ci/run.sh": "TF_USE_LEGACY_KERAS=1 python demo/train.py\n", "other/train.py": OTHER})
    assert target_for(root / "demo" / "train.py").keras == 2
    assert target_for(root / "other" / "train.py").keras == 3
