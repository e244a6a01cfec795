"""TFD601's rewrite and the project's own launchers (fixer/tf/script_launchers.py).

Removing a hard-coded TF_CONFIG is right when whatever starts the script gives it one. A job file
that runs each per-role script and sets no environment leaves the script with nothing but its
own TF_CONFIG: the rewrite would make every task train alone, so the finding stays and only
advises. Each test writes a small project of our own and checks it as `distfix check FOLDER`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fixer.runner import Job, run

CHIEF = """\
import json
import os

import tensorflow as tf

os.environ["TF_CONFIG"] = json.dumps(
    {
        "cluster": {"chief": ["localhost:2222"], "worker": ["10.0.0.7:2222"]},
        "task": {"type": "chief", "index": 0},
    }
)
strategy = tf.distribute.MultiWorkerMirroredStrategy()
"""

# A job description in the shape of a Nomad job: each role's script run as a raw process.
ENV = 'env { TF_CONFIG = "from-the-scheduler" }\n      config {'

BARE_JOB = """\
job "trainer" {
  group "chief" {
    task "chief" {
      driver = "raw_exec"
      config {
        command = "python3"
        args    = ["%s"]
      }
    }
  }
}
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def _tfd601(project: Path, name: str = "chief.py", use_cache: bool = False) -> list:
    job = Job(use_cache=use_cache, project_roots=(str(project),))
    results = run(sorted(project.rglob("*.py")), job, jobs=1)
    (result,) = [r for r in results if Path(r.path) == project / name]
    return [f for f in result.findings if f.code == "TFD601"]


@pytest.mark.parametrize(
    ("launcher", "text"),
    [
        ("deploy/trainer.nomad", BARE_JOB % "chief.py"),
        ("run_all.sh", "#!/bin/sh\nfor role in chief; do\n  python chief.py &\ndone\nwait\n"),
        ("start.py", "import subprocess\nsubprocess.Popen(['python', 'chief.py'])\n"),
    ],
)
def test_a_launcher_that_gives_no_tf_config_keeps_the_finding_without_a_rewrite(tmp_path, launcher, text):
    _write(tmp_path, {"chief.py": CHIEF, launcher: text})
    (finding,) = _tfd601(tmp_path)
    assert finding.fix is None
    assert f"`{launcher}` starts this file without TF_CONFIG: set it there first" in finding.message


@pytest.mark.parametrize(
    ("launcher", "text"),
    [
        ("run_all.sh", '#!/bin/sh\nTF_CONFIG="$(cat chief.json)" python chief.py\n'),
        (
            "deploy/trainer.nomad",
            (BARE_JOB % "chief.py").replace("config {", ENV),
        ),
        ("k8s/tfjob.yaml", "kind: TFJob\nspec:\n  containers:\n  - command: [python, /app/chief.py]\n"),
        (
            "submit.py",
            "from sagemaker.tensorflow import TensorFlow\nTensorFlow(entry_point='chief.py', "
            "distribution={'multi_worker_mirrored_strategy': {'enabled': True}})\n",
        ),
    ],
)
def test_a_launcher_that_sets_tf_config_keeps_the_rewrite(tmp_path, launcher, text):
    _write(tmp_path, {"chief.py": CHIEF, launcher: text})
    (finding,) = _tfd601(tmp_path)
    assert finding.fix is not None


def test_no_launcher_in_the_tree_gives_advice_not_a_rewrite(tmp_path):
    """Nothing in the project starts the script with a TF_CONFIG (a README saying to run it on each
    host is run by hand): its own TF_CONFIG is all each task has, so it is not removed."""
    _write(tmp_path, {"chief.py": CHIEF, "README.md": "Run `python chief.py` on each host.\n"})
    (finding,) = _tfd601(tmp_path)
    assert finding.fix is None
    assert "no launcher here sets it: write launchers with" in finding.message
    assert "--emit-launcher" in finding.message


def test_a_single_file_checked_alone_gives_advice_not_a_rewrite(tmp_path):
    """Outside a project root no launcher is known: the same advice, no edit."""
    (tmp_path / "chief.py").write_text(CHIEF)
    (result,) = run([tmp_path / "chief.py"], Job(use_cache=False, fix=True, unsafe=True), jobs=1)
    (finding,) = [f for f in result.findings if f.code == "TFD601"]
    assert finding.fix is None
    assert result.fixed_text is None


def test_a_launcher_of_another_folders_script_of_the_same_name_does_not_count(tmp_path):
    _write(tmp_path, {"a/chief.py": CHIEF, "b/chief.py": CHIEF, "b/job.nomad": BARE_JOB % "chief.py"})
    (finding,) = _tfd601(tmp_path, "a/chief.py")
    assert finding.fix is None
    assert "no launcher here sets it" in finding.message
    (finding,) = _tfd601(tmp_path, "b/chief.py")
    assert finding.fix is None
    assert "`b/job.nomad` starts this file without TF_CONFIG" in finding.message


def test_a_cached_result_is_dropped_when_its_launcher_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("DISTFIX_CACHE_DIR", str(tmp_path / "cache"))
    project = tmp_path / "project"
    _write(project, {"chief.py": CHIEF, "job.nomad": BARE_JOB % "chief.py"})
    old = 1_700_000_000  # well in the past: the stat index may keep the result
    for name in ("chief.py", "job.nomad"):
        os.utime(project / name, (old, old))
    assert _tfd601(project, use_cache=True)[0].fix is None
    (project / "job.nomad").write_text((BARE_JOB % "chief.py").replace("config {", ENV))
    os.utime(project / "job.nomad", (old + 10, old + 10))
    assert _tfd601(project, use_cache=True)[0].fix is not None


def test_a_launcher_changed_between_two_runs_of_one_process_is_read_again(tmp_path):
    """A run that writes no file keeps the tree's launchers for the run (fixer/tf/script_launchers.py);
    the next run in the same process (an API caller, a test) must see the launcher's edit."""
    _write(tmp_path, {"chief.py": CHIEF, "job.nomad": BARE_JOB % "chief.py"})
    assert _tfd601(tmp_path)[0].fix is None
    (tmp_path / "job.nomad").write_text((BARE_JOB % "chief.py").replace("config {", ENV))
    assert _tfd601(tmp_path)[0].fix is not None


def test_a_run_that_writes_files_reads_the_launchers_again_at_each_question(tmp_path):
    """`fix --write` may rewrite a launcher of the tree during the run: no answer is kept for the run."""
    from fixer.tf import script_launchers
    from fixer.tf.importers import project_roots

    _write(tmp_path, {"chief.py": CHIEF, "job.nomad": BARE_JOB % "chief.py"})
    root, chief = str(tmp_path), str(tmp_path / "chief.py")
    script_launchers.forget_listings()
    with project_roots((root,)):
        (first,) = script_launchers.ScriptLaunchers(chief, root).launchers()
        (tmp_path / "job.nomad").write_text((BARE_JOB % "chief.py").replace("config {", ENV))
        (second,) = script_launchers.ScriptLaunchers(chief, root).launchers()
    assert (first.with_tf_config, second.with_tf_config) == (False, True)
    script_launchers.forget_listings()
    with project_roots((root,)), script_launchers.files_unwritten_in_run():
        (tmp_path / "job.nomad").write_text(BARE_JOB % "chief.py")
        (kept,) = script_launchers.ScriptLaunchers(chief, root).launchers()
        (tmp_path / "job.nomad").write_text((BARE_JOB % "chief.py").replace("config {", ENV))
        assert script_launchers.ScriptLaunchers(chief, root).launchers() == [kept]  # held for the run
    script_launchers.forget_listings()
