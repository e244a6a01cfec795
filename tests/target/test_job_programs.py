"""A job script that installs a TensorFlow and then starts the project's program (`cd src; python
main.py`) binds that program and the project modules it imports to what it installed (issue 28,
ledger24c class 1: a Vertex job script's `pip install tensorflow==2.15.1` before `python main.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.config import Config
from fixer.engine import check_source
from fixer.target import target_for

if TYPE_CHECKING:
    from pathlib import Path

STEP = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.Adam())


@tf.function
def step(model, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
        scaled = opt.get_scaled_loss(loss)
    grads = opt.get_unscaled_gradients(tape.gradient(scaled, model.trainable_variables))
    opt.apply_gradients(zip(grads, model.trainable_variables))
"""

MAIN = "import tensorflow as tf\nfrom loop.steps import step\n\nprint(step)\n"

JOB = """\
import os

os.system('pip install tensorflow==2.14.1')
os.system('git clone https://example.com/someone/demo.git')
os.system('cd ./demo/app/; python main.py')
"""


def _project(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)  # the repository root: nothing above is read
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _app(root: Path, job: str, job_name: str = "app/jobs/run_job.py") -> Path:
    return _project(
        root,
        {
            job_name: job,
            "app/main.py": MAIN,
            "app/loop/__init__.py": "from .steps import step\n",
            "app/loop/steps.py": STEP + "from .helpers import clip\n",
            "app/loop/helpers.py": "import tensorflow as tf\nclip = tf.clip_by_norm\n",
            "app/unused.py": "import tensorflow as tf\n",
        },
    )


def test_the_program_a_job_script_runs_in_a_cloned_copy_and_its_imports_take_the_install(tmp_path: Path):
    root = _app(tmp_path, JOB)
    for name in ("app/main.py", "app/loop/steps.py", "app/loop/__init__.py", "app/loop/helpers.py"):
        target = target_for(root / name)
        assert target.version == (2, 14), name
        assert target.tensorflow_from is not None and target.tensorflow_from.where.endswith("run_job.py:3")
    # A module the program does not import runs on whatever it is run on.
    assert target_for(root / "app/unused.py").assumed


def test_a_shell_job_keeps_its_working_folder_across_lines(tmp_path: Path):
    job = "#!/bin/bash\npip install tensorflow==2.12.0\ncd app\npython -u main.py --epochs 3\n"
    root = _app(tmp_path, job, "run.sh")
    assert target_for(root / "app/loop/steps.py").version == (2, 12)


def test_a_cd_the_text_cannot_follow_leaves_the_program_unknown(tmp_path: Path):
    job = "#!/bin/bash\nHERE=$(pwd)\npip install tensorflow==2.12.0\ncd app && cd $HERE\npython main.py\n"
    root = _app(tmp_path, job, "app/run.sh")
    assert target_for(root / "app/main.py").assumed  # `cd $HERE` goes back where the text cannot tell


def test_a_job_running_another_script_or_installing_nothing_decides_nothing(tmp_path: Path):
    other = _app(tmp_path / "other", JOB.replace("python main.py", "python prepare.py"))
    (other / "app/prepare.py").write_text("print('data')\n")
    assert target_for(other / "app/main.py").assumed
    assert target_for(other / "app/loop/steps.py").assumed
    bare = _app(tmp_path / "bare", JOB.replace("tensorflow==2.14.1", "tensorflow"))
    assert target_for(bare / "app/main.py").assumed
    none = _app(tmp_path / "none", JOB.replace("os.system('pip install tensorflow==2.14.1')\n", ""))
    assert target_for(none / "app/loop/steps.py").assumed
    # The install after the run does not bind it.
    late = _app(tmp_path / "late", "cd app && python main.py\npip install tensorflow==2.12.0\n", "run.sh")
    assert target_for(late / "app/main.py").assumed


def test_a_namespace_package_a_program_imports_from_takes_the_install(tmp_path: Path):
    root = _app(tmp_path, JOB)
    (root / "app/loop/__init__.py").unlink()  # `loop` is a plain folder: Python 3 still imports from it
    assert target_for(root / "app/loop/steps.py").version == (2, 14)


def test_the_folders_own_pin_yields_to_the_job_install(tmp_path: Path):
    root = _app(tmp_path, JOB)
    (root / "app/requirements.txt").write_text("tensorflow>=2.16\n")
    assert target_for(root / "app/main.py").version == (2, 14)


def test_tfd403_passes_a_keras2_loss_scale_method_the_job_installs_keras2_for(tmp_path: Path):
    select = Config(select=("TFD403",))
    steps = _app(tmp_path / "job", JOB) / "app/loop/steps.py"
    assert check_source(str(steps), steps.read_text(), select).findings == []
    plain = _project(tmp_path / "plain", {"app/loop/steps.py": STEP}) / "app/loop/steps.py"
    assert [f.code for f in check_source(str(plain), STEP, select).findings] == ["TFD403", "TFD403"]
