"""Issue 28, ledger8a classes 2, 3 and 4 (task prec22): saves to a folder of each worker's own
container (TFD502), a strategy chosen by a flag whose default is one device, and a notebook's
single-device baseline that runs before the cell that creates the strategy (TFD101/TFD103).

Each program is a minimal shape written for this suite; each wrong finding has a control that
stays reported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from fixer.engine import check_source
from fixer.runner import Job, run

if TYPE_CHECKING:
    from pathlib import Path

_TRAINED = """\
import argparse
import os

import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
model.fit(x, y)
"""


def _tfd502_lines(source: str) -> list[int]:
    return [f.start.line for f in check_source("train.py", source).findings if f.code == "TFD502"]


def _save_line(source: str) -> int:
    return len(source.splitlines())


# Class 2: SageMaker's model folder is each instance's own ---------------------------------------


@pytest.mark.parametrize(
    "save",
    [
        "model.save(os.environ['SM_MODEL_DIR'])",
        "model.save(os.path.join(os.environ.get('SM_MODEL_DIR'), '1'))",
        "model.save('/opt/ml/model/1')",
        "export = os.getenv('SM_MODEL_DIR') + '/export'\nmodel.save(export)",
    ],
)
def test_a_save_under_the_sagemaker_model_folder_is_per_container(save):
    assert _tfd502_lines(_TRAINED + save + "\n") == []


def test_a_flag_defaulting_to_the_sagemaker_model_folder_is_per_container():
    flag = (
        "parser = argparse.ArgumentParser()\nparser.add_argument('--model_dir', default=os.environ['SM_MODEL_DIR'])\n"
    )
    source = flag + _TRAINED + "args = parser.parse_args()\nmodel.save(os.path.join(args.model_dir, 'model'))\n"
    assert _tfd502_lines(source) == []


@pytest.mark.parametrize(
    "save",
    [
        "model.save(os.environ['AIP_MODEL_DIR'])",
        "model.save('gs://bucket/model')",
        "model.save(os.path.join('s3://bucket', 'model'))",
        "model.save('/tmp/model')",
    ],
)
def test_shared_storage_and_a_local_path_without_a_per_pod_job_stay_reported(save):
    source = _TRAINED + save + "\n"
    assert _tfd502_lines(source) == [_save_line(source)]


def test_a_flag_defaulting_to_a_bucket_stays_reported():
    flag = "parser = argparse.ArgumentParser()\nparser.add_argument('--model-dir', default='gs://bucket/m')\n"
    source = flag + _TRAINED + "args = parser.parse_args()\nmodel.save(args.model_dir)\n"
    assert _tfd502_lines(source) == [_save_line(source)]


# Class 2: a script a per-pod job runs --------------------------------------------------------------

_TFJOB = """\
apiVersion: kubeflow.org/v1
kind: TFJob
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: tensorflow
              command: ["python", "/app/train.py"]
"""

_COMPONENT = """\
kind: component
run:
  kind: tfjob
  worker:
    replicas: 2
    container:
      command: ["python", "-u", "train.py"]
"""

_SHELL = "#!/bin/sh\nfor i in 0 1; do\n  TF_CONFIG=$(./config.sh $i) python train.py &\ndone\nwait\n"


def _project_lines(root: Path, launcher: str, text: str, save: str) -> list[int]:
    (root / "train.py").write_text(_TRAINED + save + "\n")
    (root / launcher).parent.mkdir(parents=True, exist_ok=True)
    (root / launcher).write_text(text)
    (result,) = [r for r in run([root / "train.py"], Job(use_cache=False, project_roots=(str(root),)), jobs=1)]
    return [f.start.line for f in result.findings if f.code == "TFD502"]


@pytest.mark.parametrize(("launcher", "text"), [("k8s/job.yaml", _TFJOB), ("polyaxonfile.yaml", _COMPONENT)])
def test_a_local_path_in_a_script_a_tfjob_runs_is_per_pod(tmp_path, launcher, text):
    assert _project_lines(tmp_path, launcher, text, "model.save('/tmp/model')") == []


def test_a_bucket_in_a_script_a_tfjob_runs_stays_reported(tmp_path):
    lines = _project_lines(tmp_path, "k8s/job.yaml", _TFJOB, "model.save('gs://bucket/model')")
    assert lines == [_save_line(_TRAINED) + 1]


def test_a_local_path_of_processes_on_one_host_stays_reported(tmp_path):
    lines = _project_lines(tmp_path, "run.sh", _SHELL, "model.save('/tmp/model')")
    assert lines == [_save_line(_TRAINED) + 1]
