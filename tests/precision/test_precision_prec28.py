"""ledger10a class 1 (TFD502): the cluster a README's run instructions give, and one-file Keras saves.

A multi-worker tutorial with no launcher writes its TF_CONFIG in the README, once per machine. When
every address there is a host of its own, a relative or temporary path is each machine's own file:
nothing races. Tied to a script conservatively (code lines only; a README of the script's folder or
one above; the script named, or the folder's only multi-worker script). And a `.h5` / `.keras` save
is one file, not the checkpoint writer's shards: the message says what those do
(benchmarks/probe_h5_shared_path.py).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import pytest

from fixer.engine import check_source
from fixer.runner import Job, run
from tests.precision.test_precision_prec22 import _TRAINED

if TYPE_CHECKING:
    from pathlib import Path


def _tf_config(index: int, *addresses: str) -> str:
    return json.dumps({"cluster": {"worker": list(addresses)}, "task": {"type": "worker", "index": index}})


def _exports(*addresses: str) -> str:
    """A README's run instructions: one shell prompt per machine, each exporting its TF_CONFIG."""
    return "".join(
        f"On machine {i}:\n\n```bash\nuser@node{i}$ export TF_CONFIG='{_tf_config(i, *addresses)}'\n"
        "user@node{i}$ python train.py\n```\n\n".replace("{i}", str(i))
        for i in range(len(addresses))
    )


OWN_HOSTS = ("192.168.10.21:12345", "192.168.10.22:12345")


def _tfd502(root: Path, readme: str, save: str = "model.save('mnist_model.h5')", script: str = "train.py") -> list:
    path = root / script
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_TRAINED + save + "\n")
    (root / "README.md").write_text("# Training on two machines\n\n" + readme)
    (result,) = list(run([path], Job(use_cache=False, project_roots=(str(root),)), jobs=1))
    return [f for f in result.findings if f.code == "TFD502"]


@pytest.mark.parametrize("save", ["model.save('mnist_model.h5')", "model.save('/tmp/model.keras')"])
def test_a_readme_exporting_a_cluster_of_own_hosts_makes_a_local_save_per_worker(tmp_path, save):
    assert _tfd502(tmp_path, _exports(*OWN_HOSTS), save) == []


def test_a_readme_cluster_in_a_json_code_block_counts_too(tmp_path):
    readme = (
        "Set TF_CONFIG on each machine:\n\n```json\n"
        + json.dumps(json.loads(_tf_config(0, *OWN_HOSTS)), indent=2)
        + "\n```\n\nthen run `python train.py` on both.\n"
    )
    assert _tfd502(tmp_path, readme) == []


def test_a_readme_cluster_as_a_python_dict_counts_too(tmp_path):
    readme = (
        "```python\nos.environ['TF_CONFIG'] = json.dumps({'cluster': {'worker': ['node-a:2222', 'node-b:2222']},\n"
        "    'task': {'type': 'worker', 'index': 0}})\n```\n\nRun `python train.py`.\n"
    )
    assert _tfd502(tmp_path, readme) == []


@pytest.mark.parametrize(
    "addresses",
    [
        ("localhost:12345", "localhost:12346"),
        ("192.168.10.21:12345", "192.168.10.21:12346"),
        ("<worker-0-ip>:12345", "<worker-1-ip>:12345"),
    ],
    ids=["localhost", "one-host-two-ports", "placeholders"],
)
def test_a_readme_cluster_of_one_host_or_placeholders_stays_reported(tmp_path, addresses):
    assert len(_tfd502(tmp_path, _exports(*addresses))) == 1


@pytest.mark.parametrize(
    "save", ["model.save('gs://bucket/model.h5')", "model.save('/data/models/model.h5')"], ids=["bucket", "mount"]
)
def test_shared_storage_stays_reported_with_a_readme_cluster_of_own_hosts(tmp_path, save):
    assert len(_tfd502(tmp_path, _exports(*OWN_HOSTS), save)) == 1


def test_a_readme_about_another_script_is_not_this_script_s_cluster(tmp_path):
    readme = _exports(*OWN_HOSTS).replace("python train.py", "python evaluate.py")
    assert len(_tfd502(tmp_path, readme)) == 1


def test_a_readme_cluster_written_in_prose_is_not_read(tmp_path):
    readme = f"Each machine sets TF_CONFIG to {_tf_config(0, *OWN_HOSTS)} and runs train.py.\n"
    assert len(_tfd502(tmp_path, readme)) == 1


def test_a_readme_of_a_sibling_folder_is_not_this_script_s(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "README.md").write_text(_exports(*OWN_HOSTS))
    assert len(_tfd502(tmp_path, "Nothing to run here.\n", script="src/train.py")) == 1


def test_a_readme_above_naming_the_script_by_its_path_counts(tmp_path):
    readme = _exports(*OWN_HOSTS).replace("python train.py", "python src/train.py")
    assert _tfd502(tmp_path, readme, script="src/train.py") == []


def test_a_readme_naming_no_script_is_about_the_multi_worker_scripts_of_its_folder(tmp_path):
    readme = re.sub(r"user@node\d\$ python train\.py\n", "", _exports(*OWN_HOSTS))
    (tmp_path / "train_other.py").write_text(_TRAINED)
    assert _tfd502(tmp_path, readme) == []


def test_a_readme_naming_no_script_is_not_about_a_subfolder_s_script(tmp_path):
    readme = re.sub(r"user@node\d\$ python train\.py\n", "", _exports(*OWN_HOSTS))
    assert len(_tfd502(tmp_path, readme, script="src/train.py")) == 1


@pytest.mark.parametrize("prompt", ["user@node0$: ", "$ ", "root@gpu-1:~# ", ""])
def test_shell_lines_written_as_prose_are_commands(tmp_path, prompt):
    """A README without code fences: each machine's prompt line, then the command."""
    readme = "".join(
        f"Machine {i}:\n\n{prompt}export TF_CONFIG='{_tf_config(i, *OWN_HOSTS)}'\n\n{prompt}python train.py\n\n"
        for i in range(2)
    )
    assert _tfd502(tmp_path, readme) == []


# The message for one-file Keras formats ---------------------------------------------------------


def _message(save: str) -> str:
    (finding,) = [f for f in check_source("train.py", _TRAINED + save + "\n").findings if f.code == "TFD502"]
    assert len(finding.message) <= 200
    return finding.message


@pytest.mark.parametrize("path", ["'model.h5'", "'/data/out/model.hdf5'", "f'/data/{name}.h5'"])
def test_an_hdf5_save_names_the_file_lock_not_the_checkpoint_writer(path):
    text = _message(f"name = 'm'\nmodel.save({path})")
    assert "h5py's file lock (`BlockingIOError`)" in text and "MergeV2Checkpoints" not in text


def test_a_keras_archive_save_names_the_torn_zip():
    text = _message("path = '/data/out/model.keras'\nmodel.save(path)")
    assert "`BadZipFile`" in text and "MergeV2Checkpoints" not in text


@pytest.mark.parametrize("save", ["model.save_weights('/data/ckpt/weights')", "model.save('/data/out/model')"])
def test_a_checkpoint_or_saved_model_path_keeps_the_checkpoint_writer_s_error(save):
    assert "MergeV2Checkpoints ... did not exist" in _message(save)
