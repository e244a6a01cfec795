"""The project tree's signs of a cluster (fixer/tf/cluster_signs.py), as the language server asks
them at every edit: files read again only when their stamp changed, new and deleted files seen."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from fixer.tf.cluster_signs import _multi_node, _tree_signs

if TYPE_CHECKING:
    from pathlib import Path

PAST = 1_700_000_000  # a fixed modification time, so that a stamp can be kept on purpose


def _write(path: Path, text: str, when: int = PAST) -> str:
    path.write_text(text)
    os.utime(path, (when, when))
    return str(path)


def test_live_questions_see_changed_new_and_deleted_files(tmp_path: Path):
    helper = _write(tmp_path / "cluster.py", "import os\nos.environ['TF_CONFIG'] = '{}'\n")
    _write(tmp_path / "train.py", "print('one worker')\n")
    assert set(_tree_signs(str(tmp_path), live=True)) == {helper}

    _write(tmp_path / "cluster.py", "import os\nprint('no cluster any more')\n", PAST + 10)
    job = _write(tmp_path / "job.slurm", "#SBATCH --nodes=2\nsrun python train.py\n")
    assert set(_tree_signs(str(tmp_path), live=True)) == {job}
    assert _tree_signs(str(tmp_path), live=True)[job][2] == frozenset({"train.py"})

    os.remove(job)
    assert _tree_signs(str(tmp_path), live=True) == {}


def test_a_file_whose_stamp_did_not_change_is_not_read_again(tmp_path: Path):
    # Same size, same modification time: the stamp says unchanged, so the answer read before
    # stands (what the result cache assumes of a stamp too); a new stamp reads it again.
    helper = _write(tmp_path / "cluster.py", "TF_CONFIG = 1\n")
    assert set(_tree_signs(str(tmp_path), live=True)) == {helper}
    _write(tmp_path / "cluster.py", "TF_CONFXG = 1\n")
    assert set(_tree_signs(str(tmp_path), live=True)) == {helper}
    _write(tmp_path / "cluster.py", "TF_CONFXG = 1\n", PAST + 10)
    assert _tree_signs(str(tmp_path), live=True) == {}


def test_a_run_reads_the_tree_once(tmp_path: Path):
    helper = _write(tmp_path / "cluster.py", "TF_CONFIG = 1\n")
    assert set(_tree_signs(str(tmp_path), live=False)) == {helper}
    _write(tmp_path / "cluster.py", "print(1)\n", PAST + 10)
    assert set(_tree_signs(str(tmp_path), live=False)) == {helper}  # one state of the tree per run


def test_each_multi_node_sign_passes_the_word_test():
    # The word test only skips the regex; a sign whose word were missing from the list would be lost.
    signs = [
        "#PBS -l select=2:ncpus=8",
        "#SBATCH --nodes=4",
        "#SBATCH -N 2",
        "mpirun -np 4 python train.py",
        "mpiexec -n 2 python train.py",
        "srun python train.py",
        "horovodrun -np 2 python train.py",
        "torchrun --nnodes 2 train.py",
        "kind: TFJob",
        "tfReplicaSpecs:",
    ]
    assert [_multi_node(text) for text in signs] == [True] * len(signs)
    # The words without a sign: `select=1`, one node, `srunner`.
    assert not any(_multi_node(text) for text in ("select=1", "--nodes=1", "#SBATCH -N 1", "srunner", "TFJobs"))
