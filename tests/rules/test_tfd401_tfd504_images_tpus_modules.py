"""TFD401 and TFD504 where the project states its TensorFlow outside pin files (tgt14, issue 28):
an image elsewhere that copies the package in, a base image named for its release, a TPU created in
a shell script, an HPC module; and TFD401 beside a bare `except:` that is hardware detection, not
a version fallback."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from fixer.engine import check_source

if TYPE_CHECKING:
    from pathlib import Path

RUNNER = """\
import tensorflow as tf

def options(kind):
    return tf.distribute.experimental.CollectiveCommunication.NCCL if kind else None
"""
MWMS = """\
import tensorflow as tf

strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
"""
MWMS_FIT = """\
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
model.fit(x, y)
"""
TPU = """\
import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="node")
strategy = tf.distribute.experimental.TPUStrategy(resolver)
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.compile(optimizer=tf.keras.optimizers.Adam(1e-3), loss="mse")
model.fit(x, y)
"""


def codes(path: Path, source: str) -> list[str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    return [f.code for f in check_source(str(path), source).findings]


def write(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_tfd401_keeps_the_name_the_image_that_copies_the_package_in_has(tmp_path):
    for release, expected in (("2.3.0", []), ("2.6.0", ["TFD401"])):
        root = write(
            tmp_path / release,
            {
                "job/trainer/Dockerfile": f"FROM python:3.7\nRUN pip3 install tensorflow=={release}\n"
                "COPY job/pkgs /app/job/pkgs\n",
                "job/trainer/build.sh": "docker build -t reg/trainer:1 -f job/trainer/Dockerfile .\n",
            },
        )
        # `CommunicationImplementation` comes in 2.4: on the 2.3 image the rename raises AttributeError.
        assert codes(root / "job" / "pkgs" / "tf" / "runner.py", RUNNER) == expected


def test_tfd401_and_tfd504_on_a_notebook_image_named_for_tensorflow_2_1(tmp_path):
    root = write(tmp_path, {"Dockerfile": "FROM registry.example/tensorflow-2.1.0-notebook-gpu:1.0.0\nCOPY . /app\n"})
    # The stable MultiWorkerMirroredStrategy is from 2.4; Keras 2's fit runs under MWMS.
    assert codes(root / "mwms.py", MWMS) == []
    assert "TFD504" not in codes(root / "fit.py", MWMS_FIT)
    control = write(tmp_path / "control", {"Dockerfile": "FROM registry.example/notebook-gpu:1.0.0\n"})
    assert codes(control / "mwms.py", MWMS) == ["TFD401"]


def test_tfd101_is_silent_on_the_keras_2_of_a_tpu_a_tool_script_creates(tmp_path):
    create = "gcloud compute tpus create node \\\n  --accelerator-type=v2-8 \\\n  --version='2.5.0'\n"
    root = write(tmp_path, {"tpu_tools/create.sh": create})
    found = codes(root / "vision" / "train.py", TPU)
    assert "TFD101" not in found and "TFD401" in found  # the alias is deprecated on 2.5 too (stable from 2.3)
    control = write(tmp_path / "control", {"tpu_tools/delete.sh": "gcloud compute tpus delete node\n"})
    assert "TFD101" in codes(control / "vision" / "train.py", TPU)


def test_tfd504_is_silent_where_the_job_loads_a_keras_2_tensorflow_module(tmp_path):
    job = "#!/bin/bash\n#SBATCH --nodes=2\nmodule load TensorFlow/2.11.0-foss-2022a-CUDA-11.7.0\nsrun python fit.py\n"
    root = write(tmp_path, {"jobscript.sh": job})
    assert "TFD504" not in codes(root / "fit.py", MWMS_FIT)
    unversioned = write(tmp_path / "site", {"jobscript.sh": "module load tensorflow\nsrun python fit.py\n"})
    assert "TFD504" in codes(unversioned / "fit.py", MWMS_FIT)


HARDWARE_DETECTION = """\
import tensorflow as tf

try:
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver()
    tf.config.experimental_connect_to_cluster(resolver)
    tf.tpu.experimental.initialize_tpu_system(resolver)
    strategy = tf.distribute.experimental.TPUStrategy(resolver)
{handler}
    strategy = tf.distribute.MirroredStrategy()
"""


def test_tfd401_reports_the_alias_inside_tpu_detection_with_a_bare_except(tmp_path):
    (tmp_path / ".git").mkdir()
    for name, handler in (("bare", "except:"), ("typed", "except ValueError:")):
        source = HARDWARE_DETECTION.format(handler=handler)
        assert codes(tmp_path / f"{name}.py", source) == ["TFD401"], name


def test_tfd401_keeps_a_bare_except_that_falls_back_to_the_other_spelling(tmp_path):
    (tmp_path / ".git").mkdir()
    fallbacks = {
        "class": """
            try:
                strategy = tf.distribute.TPUStrategy(resolver)
            except:
                strategy = tf.distribute.experimental.TPUStrategy(resolver)
            """,
        "method": """
            def distribute(strategy, fn):
                try:
                    return strategy.distribute_datasets_from_function(fn)
                except:
                    return strategy.experimental_distribute_datasets_from_function(fn)
            """,
        "enum": """
            try:
                nccl = tf.distribute.experimental.CommunicationImplementation.NCCL
            except:
                nccl = tf.distribute.experimental.CollectiveCommunication.NCCL
            """,
        "probe": """
            try:
                strategy = tf.distribute.experimental.TPUStrategy(resolver)
            except:
                if hasattr(tf.distribute, "TPUStrategy"):
                    raise
                strategy = None
            """,
    }
    for name, body in fallbacks.items():
        source = "import tensorflow as tf\n" + textwrap.dedent(body)
        assert codes(tmp_path / f"{name}.py", source) == [], name
