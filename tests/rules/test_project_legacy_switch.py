"""TF_USE_LEGACY_KERAS set by the project's own modules that run before TensorFlow reads it (a
`config` module imported first, the package's `__init__.py`) decides which Keras `tf.keras` is,
as the script's own setting does (TFD504 as the witness)."""

from __future__ import annotations

import ast
import os
import time
from pathlib import Path

import pytest

from fixer.config import Config
from fixer.engine import check_source
from fixer.tf.legacy_switch import legacy_switch
from tests.conftest import run_distfix

MWMS_FIT = """\
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.fit(x, y)
"""
SETS_SWITCH = 'import os\nos.environ["TF_USE_LEGACY_KERAS"] = "1"\n'


def tfd504(root: Path, files: dict[str, str], script: str = "train.py") -> list[str]:
    """TFD504 messages for ``script`` in a project of ``files`` (written under ``root``)."""
    (root / ".git").mkdir(exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    path = root / script
    return [f.message for f in check_source(str(path), path.read_text(), Config()).findings if f.code == "TFD504"]


def test_a_config_module_imported_first_sets_tf_keras(tmp_path):
    assert tfd504(tmp_path, {"config.py": SETS_SWITCH, "train.py": "import config\n" + MWMS_FIT}) == []


def test_from_a_package_import_runs_the_module_too(tmp_path):
    files = {"settings/__init__.py": "", "settings/env.py": SETS_SWITCH, "train.py": "from settings import env\n" + MWMS_FIT}
    assert tfd504(tmp_path, files) == []


def test_the_package_init_of_the_script_sets_tf_keras(tmp_path):
    files = {"trainer/__init__.py": SETS_SWITCH, "trainer/train.py": MWMS_FIT}
    assert tfd504(tmp_path, files, "trainer/train.py") == []


def test_a_setting_after_the_first_keras_use_is_too_late(tmp_path):
    assert tfd504(tmp_path, {"config.py": SETS_SWITCH, "train.py": MWMS_FIT + "import config\n"})
    late = "import tensorflow as tf\ntf.keras.backend.set_floatx('float32')\n" + SETS_SWITCH
    assert tfd504(tmp_path, {"config.py": late, "train.py": "import config\n" + MWMS_FIT})


def test_after_import_tensorflow_the_switch_still_counts_for_tf_keras(tmp_path):
    # Measured (benchmarks/probe_legacy_switch_order.py): `tf.keras` is decided at its first use.
    script = MWMS_FIT.replace("import tensorflow as tf\n", "import tensorflow as tf\nimport config\n")
    assert tfd504(tmp_path, {"config.py": SETS_SWITCH, "train.py": script}) == []
    # ... but `from tensorflow.keras import` follows the path TensorFlow fixed at its import.
    from_import = script.replace("import config\n", "import config\nfrom tensorflow.keras import layers\n")
    assert tfd504(tmp_path, {"config.py": SETS_SWITCH, "train.py": from_import})


def test_a_setting_in_a_function_does_not_run_on_import(tmp_path):
    config = "import os\n\ndef setup():\n    os.environ['TF_USE_LEGACY_KERAS'] = '1'\n"
    assert tfd504(tmp_path, {"config.py": config, "train.py": "import config\n" + MWMS_FIT})


def test_a_setting_from_elsewhere_cannot_be_told(tmp_path):
    config = "import os\nos.environ['TF_USE_LEGACY_KERAS'] = os.getenv('LEGACY', '0')\n"
    assert tfd504(tmp_path, {"config.py": config, "train.py": "import config\n" + MWMS_FIT}) == []


def test_the_scripts_own_setting_wins(tmp_path):
    own = "import os\nos.environ['TF_USE_LEGACY_KERAS'] = '0'\nimport config\n" + MWMS_FIT
    assert tfd504(tmp_path, {"config.py": SETS_SWITCH, "train.py": own})


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (SETS_SWITCH, "on"),
        ("import os\nos.environ.setdefault('TF_USE_LEGACY_KERAS', 'true')\n", "on"),
        ("from os import environ\nenviron.update({'TF_USE_LEGACY_KERAS': '0'})\n", "off"),
        ("import os\nos.environ.update(TF_USE_LEGACY_KERAS=flag)\n", "unknown"),
        ("import os\nif os.name == 'posix':\n    os.environ['TF_USE_LEGACY_KERAS'] = '1'\n", "on"),
        ("import os\nimport tf_keras\nos.environ['TF_USE_LEGACY_KERAS'] = '1'\n", None),  # tf_keras imports TensorFlow
        ("import os\nclass C:\n    os.environ['TF_USE_LEGACY_KERAS'] = '1'\n", None),
        ("import tensorflow as tf\nimport os\nos.environ['TF_USE_LEGACY_KERAS'] = '1'\n", "on"),
        ("import tensorflow as tf\nimport os\nK = tf.keras\nos.environ['TF_USE_LEGACY_KERAS'] = '1'\n", None),
        ("from tensorflow import keras\nimport os\nos.environ['TF_USE_LEGACY_KERAS'] = '1'\n", None),
    ],
)
def test_legacy_switch_reads_top_level_settings(source, expected):
    assert legacy_switch(ast.parse(source)) == expected


def test_editing_the_config_module_invalidates_a_cached_result(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "config.py").write_text("import os\n")
    (tmp_path / "train.py").write_text("import config\n" + MWMS_FIT)
    # A launcher that gives the script a cluster: without one TFD504 is silent (one worker).
    (tmp_path / "run.sh").write_text("TF_CONFIG='{\"cluster\": {}}' python train.py\n")
    past = time.time() - 60  # older than the cache's "racily clean" window: results are recorded
    for name in ("config.py", "train.py", "run.sh"):
        os.utime(tmp_path / name, (past, past))
    assert "TFD504" in run_distfix("check", str(tmp_path)).stdout
    (tmp_path / "config.py").write_text(SETS_SWITCH)
    assert "TFD504" not in run_distfix("check", str(tmp_path)).stdout
