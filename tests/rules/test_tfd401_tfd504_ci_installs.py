"""TFD401 and TFD504 where a repository states its TensorFlow in what its CI installs (tgt18, issue 28):
`pip install tensorflow==X` in a workflow, a composite action or `.travis.yml`; several such releases
(a name the oldest lacks is not advised); the Python a CI installs a requirements file on; and a
module importing `tensorflow_estimator`, which TensorFlow 2.16+ no longer installs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.engine import check_source
from fixer.target import target_for

if TYPE_CHECKING:
    from pathlib import Path

TRAIN = """\
import tensorflow as tf

workers = tf.distribute.MultiWorkerMirroredStrategy()
with workers.scope():
    net = tf.keras.Sequential([tf.keras.layers.Dense(4)])
    net.compile(optimizer="sgd", loss="mae")
net.fit(features, labels, epochs=2)
"""
OLD_NAME = """\
import tensorflow as tf

workers = tf.distribute.experimental.MultiWorkerMirroredStrategy()
"""
ESTIMATOR_EXPORT = """

def export(path):
    from tensorflow_estimator.python.estimator.export import export_lib
    return export_lib
"""
ACTION = """\
name: setup
runs:
  using: composite
  steps:
    - name: install
      shell: bash
      run: |
        pip install --upgrade pip
        pip install -i ${{MIRROR}} {package}==2.{minor}.0 pytest
"""
WORKFLOW = """\
name: unit
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: python -m pip install tensorflow==2.{minor}.0 && pytest
"""
TRAVIS = """\
language: python
python: 3.6
install:
  - pip install {requirements}
script:
  - pytest
"""


def findings(path: Path, source: str) -> list[tuple[str, str, bool]]:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    return [(f.code, f.message, f.fix is not None) for f in check_source(str(path), source).findings]


def codes(path: Path, source: str) -> list[str]:
    return [code for code, _, _ in findings(path, source)]


def repository(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_a_composite_action_installing_one_release_is_the_projects_tensorflow(tmp_path: Path):
    # Nothing but the CI names TensorFlow: its `pip install intel-tensorflow==2.9.0` is what the
    # code is tested on, Keras 2, where `fit` under MultiWorkerMirroredStrategy works.
    action = ".github/actions/setup-tf/action.yml"
    tested = repository(tmp_path / "tested", {action: ACTION.format(package="intel-tensorflow", minor=9)})
    untested = repository(tmp_path / "untested", {})
    assert codes(tested / "lib" / "runner.py", TRAIN) == []
    assert codes(untested / "lib" / "runner.py", TRAIN) == ["TFD504"]
    target = target_for(tested / "lib" / "runner.py")
    assert target.version == (2, 9) and target.keras == 2


def test_a_ci_install_says_more_than_a_floor_only_requirement(tmp_path: Path):
    workflow = {".github/workflows/unit.yml": WORKFLOW.format(minor=9)}
    floor = repository(tmp_path / "floor", {"requirements.txt": "tensorflow>=2.0.0\n", **workflow})
    pinned = repository(tmp_path / "pinned", {"requirements.txt": "tensorflow==2.21.0\n", **workflow})
    assert codes(floor / "train.py", TRAIN) == []
    # A requirement that names its release keeps deciding: the CI job is another environment.
    assert codes(pinned / "train.py", TRAIN) == ["TFD504"]


def test_the_oldest_release_a_ci_installs_keeps_a_name_it_has_alone(tmp_path: Path):
    jobs = {
        ".github/workflows/unit.yml": WORKFLOW.format(minor=9),
        ".github/actions/nightly/action.yml": ACTION.format(package="tensorflow", minor=3),
    }
    spread = repository(tmp_path / "spread", jobs)
    single = repository(tmp_path / "single", {".github/workflows/unit.yml": WORKFLOW.format(minor=9)})
    # TensorFlow 2.3 has only the experimental class: a project testing on it keeps that name (fix22b).
    assert findings(spread / "runner.py", OLD_NAME) == []
    assert findings(single / "runner.py", OLD_NAME) == [
        (
            "TFD401",
            "`tf.distribute.experimental.MultiWorkerMirroredStrategy` is deprecated; "
            "use `tf.distribute.MultiWorkerMirroredStrategy`",
            True,
        )
    ]


def test_tensorflow_1_jobs_and_open_installs_name_no_release_for_tf2_code(tmp_path: Path):
    tf1_job = ACTION.format(package="tensorflow", minor=0).replace("==2.0.0", "==1.15.0")
    tf1 = repository(tmp_path / "tf1", {".github/actions/tf1/action.yml": tf1_job})
    opened = repository(tmp_path / "open", {".travis.yml": TRAVIS.format(requirements="'tensorflow>=2.4'")})
    assert codes(tf1 / "train.py", TRAIN) == ["TFD504"]
    assert codes(opened / "train.py", TRAIN) == ["TFD504"]


def test_a_module_importing_the_estimator_package_runs_on_tensorflow_2_15_or_older(tmp_path: Path):
    project = repository(tmp_path / "app", {"requirements.txt": "tensorflow>=2.0.0\n"})
    assert codes(project / "examples" / "job.py", TRAIN + ESTIMATOR_EXPORT) == []
    assert codes(project / "examples" / "plain.py", TRAIN) == ["TFD504"]


def test_the_python_a_ci_installs_a_requirements_file_on_caps_it(tmp_path: Path):
    installed = repository(
        tmp_path / "installed",
        {"requirements.txt": "tensorflow>=2.0.0\n", ".travis.yml": TRAVIS.format(requirements="-r requirements.txt")},
    )
    other = repository(
        tmp_path / "other",
        {"requirements.txt": "tensorflow>=2.0.0\n", ".travis.yml": TRAVIS.format(requirements="-e .")},
    )
    # Python 3.6 gets TensorFlow 2.6 at most (fixer/target/versions.py NEWEST_FOR_PYTHON).
    assert codes(installed / "test" / "test_fit.py", TRAIN) == []
    assert target_for(installed / "test" / "test_fit.py").version == (2, 6)
    # The CI installs something else: the requirements file is installed on whatever Python runs it.
    assert codes(other / "test" / "test_fit.py", TRAIN) == ["TFD504"]


def test_a_new_action_changes_the_decision(tmp_path: Path):
    project = repository(tmp_path / "p", {})
    script = project / "train.py"
    assert codes(script, TRAIN) == ["TFD504"]
    action = project / ".github" / "actions" / "setup" / "action.yml"
    action.parent.mkdir(parents=True)
    action.write_text(ACTION.format(package="tensorflow", minor=12))
    assert target_for(script).version == (2, 12)
