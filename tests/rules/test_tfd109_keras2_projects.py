"""TFD109 (Keras 3 only) stays silent in Keras 2 projects told by evidence outside a pin: the Python
the CI installs the project on, tensorflow-addons, Keras-2-only names in the file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.config import Config
from fixer.engine import check_source
from tests.rules.test_tfd109_project import SCRIPT

if TYPE_CHECKING:
    from pathlib import Path


def _codes(path: Path, text: str) -> list[str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return [f.code for f in check_source(str(path), text, Config(select=("TFD109",))).findings]


def _project(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_ci_on_python_3_7_makes_an_open_requirement_keras_2(tmp_path: Path):
    ci = (
        "jobs:\n  t:\n    steps:\n      - uses: actions/setup-python@v2\n        with:\n          python-version: 3.7\n"
    )
    old = _project(
        tmp_path / "old", {"setup.py": "install_requires=['tensorflow>=2.6']\n", ".github/workflows/ci.yml": ci}
    )
    new = _project(tmp_path / "new", {"setup.py": "install_requires=['tensorflow>=2.6']\n"})
    assert _codes(old / "baselines" / "train.py", SCRIPT) == []
    assert _codes(new / "baselines" / "train.py", SCRIPT) == ["TFD109"]


def test_tensorflow_addons_required_or_imported_means_keras_2(tmp_path: Path):
    required = _project(tmp_path / "a", {"requirements.txt": "tensorflow>=2.6\ntensorflow-addons\n"})
    unpinned = _project(tmp_path / "b", {})
    assert _codes(required / "train.py", SCRIPT) == []
    assert _codes(unpinned / "train.py", "import tensorflow_addons as tfa\n" + SCRIPT) == []
    assert _codes(unpinned / "plain.py", SCRIPT) == ["TFD109"]


def test_keras_2_only_names_mean_keras_2_where_no_version_is_stated(tmp_path: Path):
    unpinned = _project(tmp_path / "a", {})
    pinned = _project(tmp_path / "b", {"requirements.txt": "tensorflow==2.21.0\n"})
    preprocessing = "\nlayer = tf.keras.layers.experimental.preprocessing.Rescaling(1 / 255)\n"
    adamw = "\nfrom tensorflow.keras.optimizers.experimental import AdamW\nother = AdamW()\n"
    assert _codes(unpinned / "p.py", SCRIPT + preprocessing) == []
    assert _codes(unpinned / "o.py", SCRIPT + adamw) == []
    # A stated Keras 3 release keeps Keras 3: the name is a bug of its own there.
    assert _codes(pinned / "o.py", SCRIPT + adamw) == ["TFD109"]
    keras3 = _project(tmp_path / "c", {"pyproject.toml": "[project]\nname = 'k'\ndependencies = ['keras>=3.15']\n"})
    assert _codes(keras3 / "tools" / "o.py", SCRIPT + adamw) == ["TFD109"]


def test_an_unpinned_script_that_imports_a_library_built_on_keras_2_runs_keras_2(tmp_path: Path):
    # Experiment scripts with no pin of their own that import a sibling research library (installed
    # from its own repository, built on tensorflow-addons) run on that library's Keras 2.
    experiments = _project(tmp_path / "experiments", {})
    pinned = _project(tmp_path / "pinned", {"requirements.txt": "tensorflow==2.21.0\n"})
    sibling = "import uncertainty_baselines as ub\n" + SCRIPT
    nested = SCRIPT + "\n\ndef main():\n    from uncertainty_baselines.datasets import get\n    return get\n"
    assert _codes(experiments / "mimo" / "cifar.py", sibling) == []
    assert _codes(experiments / "mimo" / "nested.py", nested) == []
    # Controls: an unpinned Keras 3 script stays reported, and so does one whose project states
    # TensorFlow 2.21 (the import cannot make a known Keras 3 release Keras 2).
    assert _codes(experiments / "mimo" / "plain.py", SCRIPT) == ["TFD109"]
    assert _codes(experiments / "mimo" / "other.py", "import tensorflow_datasets as tfds\n" + SCRIPT) == ["TFD109"]
    assert _codes(pinned / "cifar.py", sibling) == ["TFD109"]


def test_the_import_caps_a_requirement_open_above_as_a_requirement_on_the_library_would(tmp_path: Path):
    # The repository's package declares only a lower bound (an extra `tensorflow>=2.0`); its
    # experiment scripts import the sibling library built on Keras 2, so they run TensorFlow <= 2.15.
    repo = _project(tmp_path / "repo", {"setup.py": "extras_require={'tensorflow': ['tensorflow>=2.0.0']}\n"})
    bounded = _project(tmp_path / "bounded", {"requirements.txt": "tensorflow>=2.16,<2.22\n"})
    sibling = "import uncertainty_baselines as ub\n" + SCRIPT
    assert _codes(repo / "experimental" / "mimo" / "cifar.py", sibling) == []
    assert _codes(repo / "experimental" / "mimo" / "plain.py", SCRIPT) == ["TFD109"]
    # A requirement bounded above is the project's choice of release: the import does not move it.
    assert _codes(bounded / "cifar.py", sibling) == ["TFD109"]
