"""Where a project states its TensorFlow beyond a requirement line (issue 28, ledger10b classes 1
and 2, in our own words): `setup()`'s descriptive arguments are no requirements, a CI job's
container matrix is the range the project runs, and a `-c constraints.txt` line is the version
of the requirements under it (docs/target.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.config import Config
from fixer.engine import check_source
from fixer.target import target_for
from fixer.target.sources import read_setup_py
from tests.project_trees import tree as project

if TYPE_CHECKING:
    from pathlib import Path


# --- setup(): only install_requires / extras_require / setup_requires state requirements ---

SETUP_WITH_KEYWORDS = """\
from setuptools import setup

KEYWORDS = ["machine-learning", "tensorflow"]
REQUIRED = ["numpy", {requirement!r}]

setup(
    name="nlp-kit",
    keywords=KEYWORDS,
    classifiers=["Framework :: TensorFlow", "tensorflow"],
    description="tensorflow",
    install_requires=REQUIRED,
)
"""


def test_keywords_and_classifiers_are_not_requirements():
    text = SETUP_WITH_KEYWORDS.format(requirement="pandas")
    assert read_setup_py(text, "setup.py") == []


def test_control_the_requirement_list_setup_names_is_read():
    text = SETUP_WITH_KEYWORDS.format(requirement="tensorflow>=2.4")
    assert [(e.text, e.line) for e in read_setup_py(text, "setup.py")] == [("tensorflow>=2.4", 4)]


def test_an_inline_keywords_list_beside_extras_is_not_read():
    text = (
        "import setuptools\n"
        "setuptools.setup(keywords=['keras', 'tensorflow'],\n"
        "                 extras_require={'tf': ['tensorflow-gpu==2.3.0']})\n"
    )
    assert [e.text for e in read_setup_py(text, "setup.py")] == ["tensorflow-gpu==2.3.0"]


def test_a_project_whose_only_tensorflow_is_a_keyword_is_assumed(tmp_path: Path):
    root = project(tmp_path, {"setup.py": SETUP_WITH_KEYWORDS.format(requirement="six"), "train.py": ""})
    target = target_for(root / "train.py")
    assert target.assumed and target.tensorflow_from is None


# --- a CI job's container matrix -------------------------------------------------------------

CI = """\
name: unit tests
on: [push, pull_request]
jobs:
  legacy:
    runs-on: ubuntu-latest
    container: tensorflow/tensorflow:${{matrix.tf}}-py3
    strategy:
      matrix:
        tf: [1.14.0, 1.15.0]
    steps:
      - uses: actions/checkout@v2
  current:
    runs-on: ubuntu-latest
    container: tensorflow/tensorflow:${{ matrix.tf }}-py3
    strategy:
      matrix:
        tf:
          - 2.0.0
          - "2.1.0"
    steps:
      - run: python -m pytest
  newest:
    runs-on: ubuntu-latest
    container:
      image: tensorflow/tensorflow:${{matrix.tf}}
    strategy:
      matrix:
        tf: ['2.3.0']
    steps:
      - run: python -m pytest
"""

PRETRAIN = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


def step(batch):
    return batch


def make_dataset(context):
    return tf.data.Dataset.range(8).shard(context.num_input_pipelines, context.input_pipeline_id)


dataset = strategy.experimental_distribute_datasets_from_function(make_dataset)
strategy.experimental_run_v2(step, args=(1,))
"""


def test_a_container_matrix_is_the_range_the_project_runs(tmp_path: Path):
    root = project(tmp_path, {".github/workflows/unittest.yml": CI, "nlp/pretrain/run.py": ""})
    target = target_for(root / "nlp" / "pretrain" / "run.py")
    assert target.version == (2, 3)  # the newest container: what the code is judged on
    assert target.floor == (2, 0)  # the oldest TF 2 container: renames must exist there too
    assert target.keras == 2
    texts = [e.text for e in target.evidence]
    assert "tensorflow/tensorflow:2.1.0-py3 (a CI job's container, matrix tf: 2.1.0)" in texts


def test_control_without_the_workflow_nothing_is_stated(tmp_path: Path):
    root = project(tmp_path, {"nlp/pretrain/run.py": ""})
    assert target_for(root / "nlp" / "pretrain" / "run.py").assumed


def test_no_rename_to_a_name_the_oldest_container_lacks(tmp_path: Path):
    root = project(tmp_path, {".github/workflows/unittest.yml": CI, "pretrain.py": PRETRAIN})
    findings = check_source(str(root / "pretrain.py"), PRETRAIN, Config(select=("TFD401",))).findings
    assert [f for f in findings if f.fix is not None] == []


def test_control_the_same_script_unpinned_gets_the_renames(tmp_path: Path):
    root = project(tmp_path, {"pretrain.py": PRETRAIN})
    findings = check_source(str(root / "pretrain.py"), PRETRAIN, Config(select=("TFD401",))).findings
    assert len([f for f in findings if f.fix is not None]) == 2


def test_a_literal_tag_and_an_unresolvable_expression(tmp_path: Path):
    workflow = (
        "jobs:\n"
        "  a:\n"
        "    container: tensorflow/tensorflow:2.6.0-gpu\n"
        "  b:\n"
        "    container: tensorflow/tensorflow:${{ env.TF_TAG }}\n"
        "  c:\n"
        "    container: tensorflow/tensorflow:latest\n"
    )
    root = project(tmp_path, {".github/workflows/ci.yml": workflow, "train.py": ""})
    target = target_for(root / "train.py")
    assert target.version == (2, 6) and target.floor is None
    assert [e.line for e in target.evidence if e.kind == "tensorflow"] == [3]


def test_an_open_requirement_tested_on_older_containers_gets_their_floor(tmp_path: Path):
    setup = "from setuptools import setup\nsetup(install_requires=['tensorflow>=2.0'])\n"
    root = project(tmp_path, {".github/workflows/unittest.yml": CI, "setup.py": setup, "scripts/run.py": ""})
    target = target_for(root / "scripts" / "run.py")
    assert target.version == (2, 21)  # pip installs the newest release the requirement admits
    assert target.floor == (2, 0)


def test_control_a_pinned_requirement_is_not_moved_by_the_ci(tmp_path: Path):
    root = project(tmp_path, {".github/workflows/unittest.yml": CI, "requirements.txt": "tensorflow==2.15.1\n"})
    target = target_for(root / "requirements.txt")
    assert target.version == (2, 15) and target.floor is None


# --- `-c constraints.txt` ----------------------------------------------------------------------


def test_a_constraint_file_is_the_version_of_an_unpinned_requirement(tmp_path: Path):
    root = project(
        tmp_path,
        {
            "constraints.txt": "numpy<2\ntensorflow==2.15.1\n",
            "examples/tf/requirements.txt": "-c ../../constraints.txt\ntensorflow\nnumpy\n",
            "examples/tf/train.py": "",
        },
    )
    target = target_for(root / "examples" / "tf" / "train.py")
    assert target.version == (2, 15) and target.keras == 2
    assert target.floor is None  # the constraint is the version, not a second, older statement
    assert target.tensorflow_from is not None
    assert "constrained by ../../constraints.txt:2: tensorflow==2.15.1" in target.tensorflow_from.text
    assert str(root / "constraints.txt") in dict(target.consulted)


def test_control_without_the_constraint_line_the_bare_requirement_is_the_newest(tmp_path: Path):
    root = project(
        tmp_path,
        {
            "constraints.txt": "tensorflow==2.15.1\n",
            "examples/tf/requirements.txt": "tensorflow\n",
            "examples/tf/t.py": "",
        },
    )
    target = target_for(root / "examples" / "tf" / "t.py")
    assert target.version == (2, 21)
    assert target.floor == (2, 15)  # the root's pin, read farther up: a second statement


def test_the_long_option_and_a_pinned_requirement(tmp_path: Path):
    root = project(
        tmp_path,
        {
            "c.txt": "tensorflow-cpu==2.10.0\n",
            "requirements.txt": "--constraint=c.txt\ntensorflow-cpu>=2.8\n",
            "pinned/requirements.txt": "--constraint ../c.txt\ntensorflow-cpu==2.9.0\n",
            "pinned/t.py": "",
            "t.py": "",
        },
    )
    assert target_for(root / "t.py").version == (2, 10)
    assert target_for(root / "pinned" / "t.py").version == (2, 9)  # a pin is not moved


def test_a_constraint_the_requirement_excludes_leaves_it_as_written(tmp_path: Path):
    root = project(tmp_path, {"c.txt": "tensorflow==2.10.0\n", "requirements.txt": "-c c.txt\ntensorflow>=2.12\n"})
    assert target_for(root / "requirements.txt").version == (2, 21)


def test_editing_the_workflow_or_the_constraint_file_is_seen(tmp_path: Path):
    root = project(
        tmp_path,
        {
            ".github/workflows/unittest.yml": CI,
            "c.txt": "tensorflow==2.10.0\n",
            "app/requirements.txt": "-c ../c.txt\ntensorflow\n",
            "app/t.py": "",
            "t.py": "",
        },
    )
    assert target_for(root / "t.py").version == (2, 3)
    assert target_for(root / "app" / "t.py").version == (2, 10)
    (root / ".github/workflows/unittest.yml").write_text(CI.replace("['2.3.0']", "['2.3.0', '2.5.0']"))
    (root / "c.txt").write_text("tensorflow==2.11\n")  # sizes change too: stamps are (size, mtime)
    assert target_for(root / "t.py").version == (2, 5)
    assert target_for(root / "app" / "t.py").version == (2, 11)


def test_tensorflow_1_containers_alone_state_nothing(tmp_path: Path):
    # A legacy job testing the TF 1 code path; the TF 2 code runs on whatever pip installs.
    workflow = "jobs:\n  legacy:\n    container: tensorflow/tensorflow:${{ matrix.tf }}-py3\n"
    workflow += "    strategy:\n      matrix:\n        tf: [1.14.0, 1.15.0]\n"
    root = project(tmp_path, {".github/workflows/ci.yml": workflow, "train.py": ""})
    assert target_for(root / "train.py").assumed
