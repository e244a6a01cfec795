"""What caps a TensorFlow requirement that is open above: the newest Python the project's CI
installs it on, and a requirement on tensorflow-addons (docs/target.md)."""

from __future__ import annotations

import pytest

from fixer.target import target_for
from tests.project_trees import tree as project

WORKFLOW = """\
name: tests
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python-version: {versions}
    steps:
      - uses: actions/setup-python@v4
        with:
          python-version: ${{{{ matrix.python-version }}}}
      - run: pip install -e .
"""


SETUP = "from setuptools import setup\nsetup(install_requires=[{requirements}])\n"


@pytest.mark.parametrize(
    "versions, expected",
    [
        ("[3.7]", (2, 11)),
        ('["3.8"]', (2, 13)),
        ("[3.6, 3.7]", (2, 11)),
        ("[3.7, '3.10']", (2, 21)),
        ("[3.11]", (2, 21)),
    ],
)
def test_the_newest_python_ci_installs_on_caps_an_open_requirement(tmp_path, versions, expected):
    root = project(
        tmp_path,
        {
            "setup.py": SETUP.format(requirements="'tensorflow>=2.6'"),
            ".github/workflows/ci.yml": WORKFLOW.format(versions=versions),
        },
    )
    target = target_for(root / "train.py")
    assert target.version == expected
    assert (target.cap_from is not None) == (expected != (2, 21))


def test_list_items_travis_and_tox_name_pythons_too(tmp_path):
    items = WORKFLOW.format(versions="").replace("python-version: \n", "python-version:\n          - '3.7'\n")
    package = "[project]\nname = 'p'\ndependencies = ['tensorflow']\n"
    first = project(tmp_path / "a", {"pyproject.toml": package, ".github/workflows/t.yaml": items})
    second = project(
        tmp_path / "b",
        {"setup.cfg": "[options]\ninstall_requires =\n    tensorflow\n", ".travis.yml": "python:\n  - '3.6'\n"},
    )
    third = project(
        tmp_path / "c",
        {"setup.py": SETUP.format(requirements="'tensorflow>=2.4'"), "tox.ini": "[tox]\nenvlist = py37, py38\n"},
    )
    assert [target_for(p / "x.py").version for p in (first, second, third)] == [(2, 11), (2, 6), (2, 13)]
    assert target_for(third / "x.py").keras == 2
    assert "Python 3.8" in target_for(third / "x.py").provenance()


def test_a_bounded_requirement_an_image_or_an_applications_requirements_file_is_not_capped(tmp_path):
    ci = {".github/workflows/ci.yml": WORKFLOW.format(versions="[3.7]")}
    # A requirements file is installed by whoever runs the scripts, on their own Python.
    application = project(tmp_path / "d", {"requirements.txt": "tensorflow\n", "tox.ini": "[tox]\nenvlist = py37\n"})
    assert target_for(application / "x.py").version == (2, 21)
    bounded = project(tmp_path / "a", {"requirements.txt": "tensorflow>=2.4,<2.10\n", **ci})
    image = project(tmp_path / "b", {"Dockerfile": "FROM tensorflow/tensorflow:2.15.0\n", **ci})
    nothing = project(tmp_path / "c", ci)
    assert target_for(bounded / "x.py").version == (2, 9)
    assert target_for(image / "x.py").version == (2, 15)
    assert target_for(nothing / "x.py").assumed  # no requirement: CI installs no TensorFlow we know of


def test_tensorflow_addons_caps_at_2_15_and_means_keras_2(tmp_path):
    both = project(tmp_path / "a", {"setup.py": SETUP.format(requirements="'tensorflow>=2.6', 'tensorflow_addons'")})
    pinned = project(tmp_path / "b", {"requirements.txt": "tensorflow==2.17.0\ntensorflow-addons\n"})
    target = target_for(both / "pkg" / "model.py")
    assert (target.version, target.keras) == ((2, 15), 2)
    assert target.cap_from is not None and "tensorflow_addons" in target.cap_from.text
    assert target_for(pinned / "x.py").version == (2, 17)


def test_a_new_workflow_changes_the_decision(tmp_path):
    root = project(tmp_path, {"setup.py": SETUP.format(requirements="'tensorflow>=2.6'")})
    assert target_for(root / "x.py").version == (2, 21)
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "ci.yml").write_text(WORKFLOW.format(versions="[3.7]"))
    assert target_for(root / "x.py").version == (2, 11)


def test_a_requirement_on_another_package_built_on_keras_2_caps_like_addons(tmp_path):
    # An application that needs a research library built on tensorflow-addons runs what that library runs.
    library = project(tmp_path / "a", {"requirements.txt": "tensorflow>=2.4\nuncertainty-baselines\n"})
    unrelated = project(tmp_path / "b", {"requirements.txt": "tensorflow>=2.4\ntensorflow-datasets\n"})
    target = target_for(library / "train.py")
    assert (target.version, target.keras) == ((2, 15), 2)
    assert target.cap_from is not None and target.cap_from.text == "uncertainty-baselines"
    assert (target_for(unrelated / "train.py").version, target_for(unrelated / "train.py").keras) == ((2, 21), 3)


def test_an_import_of_a_package_built_on_keras_2_caps_an_open_requirement(tmp_path):
    from fixer.target.caps import import_cap

    root = project(tmp_path, {"setup.py": SETUP.format(requirements="'tensorflow>=2.0'")})
    folder = target_for(root / "experiments" / "run.py")
    text = "import os\n\nimport uncertainty_baselines as ub  # the sibling library\n"
    evidence = import_cap(text, str(root / "experiments" / "run.py"))
    assert evidence is not None and (evidence.kind, evidence.line) == ("uncertainty-baselines", 3)
    capped = folder.with_keras2_usage(evidence)
    assert (folder.version, capped.version, capped.keras) == ((2, 21), (2, 15), 2)
    assert "capped by" in capped.provenance() and "import uncertainty_baselines" in capped.provenance()
    assert import_cap("import uncertainty_baselines_extra\nimport tensorflow_datasets\n", "x.py") is None
