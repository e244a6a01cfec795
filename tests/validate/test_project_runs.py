"""``distfix validate`` runs a project the way its README does (real TensorFlow in the children)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.tensorflow

TASK = """\
import argparse

import numpy as np
import tensorflow as tf

from trainer import model
from trainer.layers import SCALE

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, required=True)
args = parser.parse_args()
assert os.environ["DEMO_SETTING"] == "on"

strategy = tf.distribute.MirroredStrategy()
x = np.random.default_rng(0).normal(size=(64, 2)).astype("float32")
dataset = tf.data.Dataset.from_tensor_slices((x, SCALE * x.sum(axis=1, keepdims=True))).batch(8 * strategy.num_replicas_in_sync)
with strategy.scope():
    net = model.build()
    net.compile(optimizer="sgd", loss="mse")
net.fit(dataset, epochs=args.epochs, verbose=0)
"""

MODEL = """\
import tensorflow as tf


def build():
    return tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
"""


def _project(tmp_path: Path, config: str = "") -> Path:
    root = tmp_path / "repo"
    (root / "trainer").mkdir(parents=True)
    (root / "common").mkdir()
    (root / "pyproject.toml").write_text(f'[project]\nname = "demo"\n\n[tool.distfix.validate]\nenv = {{ DEMO_SETTING = "on" }}\n{config}')
    (root / "trainer" / "__init__.py").write_text("")
    (root / "trainer" / "model.py").write_text(MODEL)
    (root / "common" / "layers.py").write_text("SCALE = 2.0\n")
    os.symlink("../common/layers.py", root / "trainer" / "layers.py")
    (root / "trainer" / "task.py").write_text("import os\n" + TASK)
    return root


def test_script_arguments_module_and_cwd(tmp_path: Path, distfix):
    root = _project(tmp_path)
    common = ("validate", "--no-compare", "--device", "cpu", "--max-steps", "2")
    ran = distfix(*common, str(root / "trainer" / "task.py"), "--", "--epochs", "1", timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    as_module = distfix(*common, "--cwd", str(root), "-m", "trainer.task", "--", "--epochs", "1", timeout=300)
    assert as_module.returncode == 0, as_module.stdout + as_module.stderr
    # Without its arguments the script is not blamed: argparse's complaint and the command to reproduce it.
    usage = distfix(*common, str(root / "trainer" / "task.py"), timeout=300)
    assert usage.returncode == 2, usage.stdout + usage.stderr
    assert "argparse usage error: the following arguments are required: --epochs" in usage.stderr
    assert f"to reproduce: cd {root} && DEMO_SETTING=on python trainer/task.py" in usage.stderr
    assert "Traceback" not in usage.stderr


def test_the_entry_point_from_pyproject(tmp_path: Path, distfix):
    root = _project(tmp_path, 'module = "trainer.task"\nargs = ["--epochs", "1"]\n')
    result = distfix("validate", "--device", "cpu", "--max-steps", "2", "--cwd", str(root), timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "verdict: pass" in result.stdout


def test_a_failure_both_variants_share_is_not_blamed_on_the_fix(tmp_path: Path, distfix):
    script = tmp_path / "train.py"
    # distfix fixes the renamed API, but both variants stop earlier on the same error of their own.
    script.write_text(
        "import tensorflow as tf\n\n"
        "strategy = tf.distribute.MirroredStrategy()\n"
        "raise RuntimeError('the licence server is not reachable')\n"
        "strategy.experimental_run_v2(lambda: 1.0)\n"
    )
    result = distfix("validate", "--device", "cpu", "--max-steps", "2", str(script), timeout=300)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "fail the same way here, so the fix is not to blame" in result.stderr, result.stderr


def test_an_unexplained_crash_of_a_script_distfix_has_no_fix_for_cannot_be_validated(tmp_path: Path, distfix):
    script = tmp_path / "train.py"
    # measured: `from tensorflow.distribute import MirroredStrategy` raises ImportError on TF 2.21
    script.write_text("import tensorflow as tf\n\nstrategy = tf.distribute.MirroredStrategy()\nfrom tensorflow.distribute import MirroredStrategy\n")
    result = distfix("validate", "--device", "cpu", "--max-steps", "2", str(script), timeout=300)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "fails here with an error none of distfix's rules explains, and distfix has no fix for it: ImportError" in result.stderr, result.stderr
    assert "to reproduce: cd " in result.stderr and "Traceback" not in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        ("worker 0: SyntaxError: from __future__ imports must occur at the beginning of the file (line 8)",
         "worker 1: SyntaxError: from __future__ imports must occur at the beginning of the file (line 10)", True),
        ("worker 0: ValueError: bad shape (line 4)", "worker 0: ValueError: other shape (line 4)", False),
    ],
)
def test_the_same_error_whichever_worker_reported_it_first(first: str, second: str, same: bool):
    # measured on a public script whose two variants both failed with one SyntaxError, reported
    # by worker 0 in one run and worker 1 in the other: it was blamed on the fix
    from fixer.validate.session import _same_error

    assert _same_error(first, second) is same
