"""Regression tests for issue 28 (fix22b): single false positives left on the ledger at 5f5509e, in our
own words, each with the control that keeps the finding.

- TFD101 (ledger21a class 1): a Hugging Face TF model used through one of its parts on a Keras `Input`
  (`encoder.bert(token_ids, ...)`, its tf-keras main layer) makes the program Keras 2 as calling the
  model itself does (benchmarks/probe_ledger17c_premises.py, part 1: a tf-keras layer refuses a Keras 3
  tensor); a recompile outside the scope then trains (tf-keras), so TFD101 is silent. A part called on
  no Keras tensor builds nothing and keeps the finding.
- TFD109 (ledger20b): a CircleCI job's Python is its image's (`circleci/python:3.8`); the job's
  `pip install -r requirements.txt` tests the application's open `tensorflow>=2` there, which pip
  resolves to TensorFlow 2.13 at newest (NEWEST_FOR_PYTHON): Keras 2, as a Travis or GitHub Actions
  Python caps it (tgt18). An image of a Python today's release supports keeps TensorFlow 2.21.
- TFD401 (ledger17a, BigDL's Ray runner): a repository whose CI installs TensorFlow 2.3 in one job and
  2.9 in another tests its code on 2.3, where `experimental_distribute_datasets_from_function` is the
  only name (`distribute_datasets_from_function` arrives in 2.4, fixer/target/apis.py): the old name
  is kept on purpose, as under a container matrix, so no finding. Jobs that all install 2.4 or newer
  keep it (and its edit).
- TFD504 (ledger20b): a job's Dockerfile is built `FROM` an image the repository builds itself (the
  README's steps: `cd base` then `docker build -t team/tf-base:2 .`), whose folder pins
  `tensorflow==2.10.0`: the job runs Keras 2, where `fit` under MultiWorkerMirroredStrategy trains.
  A base image no build command of the repository tags says nothing: TFD504 stays.
- TFD502 (ledger19a, kubeflow/arena): a multi-worker script that a Dockerfile of its folder copies
  into an image, with no cluster set by any file of the project, runs one worker per container (the
  job system starts each from the image): a relative `model.save("net.h5")` writes each container's
  own file, no race. An image that declares a `VOLUME` (a folder its containers may share) keeps it.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from fixer.engine import check_source
from fixer.runner import Job, run
from fixer.target import target_for

if TYPE_CHECKING:
    from pathlib import Path

_RECOMPILE = """
import tensorflow as tf
import transformers

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    token_ids = tf.keras.layers.Input(shape=(64,), dtype=tf.int32)
    encoder = transformers.TFBertModel.from_pretrained("bert-base-uncased")
    encoder.trainable = False
    {use}
    scores = tf.keras.layers.Dense(2)(hidden.pooler_output)
    net = tf.keras.Model(token_ids, scores)
    net.compile(optimizer="adam", loss="mse")

net.fit(features, targets)
encoder.trainable = True
net.compile(optimizer=tf.keras.optimizers.Adam(1e-5), loss="mse")
net.fit(features, targets)
"""


def _codes(root: Path, source: str) -> list[str]:
    """The codes found in a project at ``root`` whose one file is ``source``."""
    return _codes_in(root, root / "train.py", textwrap.dedent(source))


def test_a_hugging_face_main_layer_on_an_input_makes_the_program_keras2(tmp_path: Path) -> None:
    use = "hidden = encoder.bert(token_ids, training=False)"
    assert "TFD101" not in _codes(tmp_path, _RECOMPILE.format(use=use))


def test_control_a_part_called_on_no_keras_tensor_keeps_tfd101(tmp_path: Path) -> None:
    use = "hidden = encoder.bert(features, training=False)"
    assert "TFD101" in _codes(tmp_path, _RECOMPILE.format(use=use))


_CIRCLECI = """\
version: 2.1
jobs:
  test:
    docker:
      - image: {image}
    steps:
      - checkout
      - run:
          name: install
          command: |
            python -m venv env
            . env/bin/activate
            pip install -r requirements.txt
      - run: pytest
"""
_MWMS_FIT = """\
import tensorflow as tf

workers = tf.distribute.MultiWorkerMirroredStrategy()
with workers.scope():
    net = tf.keras.Sequential([tf.keras.layers.Dense(4)])
    net.compile(optimizer="sgd", loss="mae")
net.fit(features, labels, epochs=2)
"""


def _circleci_project(root: Path, image: str) -> Path:
    """A repository whose CircleCI job runs in ``image`` and installs its requirements file; its script."""
    (root / ".git").mkdir(parents=True)
    (root / ".circleci").mkdir()
    (root / ".circleci" / "config.yml").write_text(_CIRCLECI.format(image=image))
    (root / "requirements.txt").write_text("tensorflow>=2\n")
    script = root / "scripts" / "train.py"
    script.parent.mkdir()
    script.write_text(_MWMS_FIT)
    return script


def test_a_circleci_python_image_caps_the_requirements_file_it_installs(tmp_path: Path) -> None:
    script = _circleci_project(tmp_path, "circleci/python:3.8")
    assert target_for(script).version == (2, 13)
    assert "TFD504" not in [f.code for f in check_source(str(script), _MWMS_FIT).findings]


def test_control_a_circleci_image_of_a_current_python_keeps_the_newest_release(tmp_path: Path) -> None:
    script = _circleci_project(tmp_path, "cimg/python:3.11.4")
    assert target_for(script).version == (2, 21)
    assert "TFD504" in [f.code for f in check_source(str(script), _MWMS_FIT).findings]


_PIP_JOB = """\
name: {name}
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: pip install tensorflow=={release} && pytest
"""
_PER_WORKER_INPUT = """\
import tensorflow as tf

workers = tf.distribute.MultiWorkerMirroredStrategy()
batches = workers.experimental_distribute_datasets_from_function(make_input)
"""


def _tested_on(root: Path, releases: list[str]) -> list[tuple[str, bool]]:
    """(code, has an edit) of the findings on a runner in a repository with one CI job per release."""
    (root / ".git").mkdir(parents=True)
    workflows = root / ".github" / "workflows"
    workflows.mkdir(parents=True)
    for release in releases:
        (workflows / f"tf{release}.yml").write_text(_PIP_JOB.format(name=release, release=release))
    runner = root / "runner.py"
    runner.write_text(_PER_WORKER_INPUT)
    return [(f.code, f.fix is not None) for f in check_source(str(runner), _PER_WORKER_INPUT).findings]


def test_a_ci_job_on_a_release_with_only_the_old_name_keeps_it(tmp_path: Path) -> None:
    assert _tested_on(tmp_path, ["2.3.0", "2.9.0"]) == []


def test_control_ci_jobs_that_all_have_the_new_name_keep_tfd401_and_its_edit(tmp_path: Path) -> None:
    assert _tested_on(tmp_path, ["2.4.0", "2.9.0"]) == [("TFD401", True)]


_GUIDE = """\
# Cluster jobs

1. Build the shared image
   ```sh
   cd base
   docker build -t team/tf-base:2 --progress=plain .
   ```
2. Build a job
   ```sh
   cd jobs/mwms
   docker build -t team/mwms-job:2 .
   ```
"""


def _job_on_own_base(root: Path, base: str) -> list[str]:
    """The codes of a MultiWorkerMirroredStrategy `fit` job whose Dockerfile is `FROM` ``base``."""
    (root / ".git").mkdir(parents=True)
    (root / "README.md").write_text(_GUIDE)
    (root / "base").mkdir()
    (root / "base" / "Dockerfile").write_text(
        "FROM python:3.10\nCOPY requirements.txt .\nRUN pip install -r requirements.txt\n"
    )
    (root / "base" / "requirements.txt").write_text("tensorflow==2.10.0\n")
    job = root / "jobs" / "mwms"
    job.mkdir(parents=True)
    (job / "Dockerfile").write_text(f'FROM {base}\nCOPY main.py .\nENTRYPOINT ["python", "main.py"]\n')
    (job / "main.py").write_text(_MWMS_FIT)
    return [f.code for f in check_source(str(job / "main.py"), _MWMS_FIT).findings]


def test_an_image_built_from_the_repositorys_own_base_runs_the_bases_tensorflow(tmp_path: Path) -> None:
    assert _job_on_own_base(tmp_path, "team/tf-base:2") == []
    assert target_for(tmp_path / "jobs" / "mwms" / "main.py").version == (2, 10)


def test_control_a_base_image_no_build_of_the_repository_tags_keeps_tfd504(tmp_path: Path) -> None:
    assert _job_on_own_base(tmp_path, "team/other-base:2") == ["TFD504"]


_SAVE_IN_IMAGE = """\
import tensorflow as tf

workers = tf.distribute.MultiWorkerMirroredStrategy()
with workers.scope():
    net = tf.keras.Sequential([tf.keras.layers.Dense(4)])
    net.compile(optimizer="sgd", loss="mae")
net.fit(features, labels, epochs=2)
net.save("net.h5")
"""


def _baked_job_codes(root: Path, dockerfile: str) -> list[str]:
    """The codes of a multi-worker script whose folder's Dockerfile is ``dockerfile``."""
    job = root / "examples" / "mnist"
    job.mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "requirements.txt").write_text("tensorflow==2.15.0\n")  # Keras 2: TFD504 stays out of the way
    (job / "Dockerfile").write_text(dockerfile)
    return _codes_in(root, job / "train.py", _SAVE_IN_IMAGE)


def _codes_in(root: Path, path: Path, source: str) -> list[str]:
    """The codes found in ``path`` (written with ``source``) of the project at ``root``."""
    path.write_text(source)
    (result,) = list(run([path], Job(use_cache=False, project_roots=(str(root),)), jobs=1))
    return [f.code for f in result.findings]


def test_a_relative_save_of_a_script_baked_into_an_image_is_each_containers_own(tmp_path: Path) -> None:
    image = "FROM tensorflow/tensorflow:2.15.0\nCOPY --chmod=644 train.py /code/mnist/train.py\n"
    assert "TFD502" not in _baked_job_codes(tmp_path, image)


def test_control_an_image_with_a_volume_keeps_tfd502(tmp_path: Path) -> None:
    image = "FROM tensorflow/tensorflow:2.15.0\nCOPY . /code\nVOLUME /code\nWORKDIR /code\n"
    assert "TFD502" in _baked_job_codes(tmp_path, image)
