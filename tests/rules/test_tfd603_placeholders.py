"""TFD603's policy on template slots (issue 28, noise36): a cluster of placeholders
(`host1:port`, `IP1:PORT1`) is reported once, and only in a script a launcher of the project
starts; a doc snippet, a scaffold's config module or a redacted reproduction is not reported."""

from __future__ import annotations

from pathlib import Path

from fixer.runner import Job, run

PLACEHOLDER_CLUSTER = """\
import json
import os

os.environ["TF_CONFIG"] = json.dumps({
    "cluster": {"worker": ["host1:port", "host2:port", "host3:port"], "ps": ["host4:port"]},
    "task": {"type": "worker", "index": 1},
})
"""

NOMAD_JOB = """\
job "ps" {
  group "ps" {
    task "ps" {
      driver = "raw_exec"
      config {
        command = "python3 /srv/app/train/exec/{script}"
      }
    }
  }
}
"""


def _codes(project: Path, name: str) -> list[str]:
    job = Job(use_cache=False, project_roots=(str(project),))
    results = run(sorted(project.rglob("*.py")), job, jobs=1)
    (result,) = [r for r in results if Path(r.path).name == name]
    return [f.code for f in result.findings if f.code.startswith("TFD60")]


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_a_placeholder_cluster_in_a_config_module_nothing_starts_is_not_reported(tmp_path):
    _write(tmp_path, {"configs/workers.py": PLACEHOLDER_CLUSTER})
    assert _codes(tmp_path, "workers.py") == []


def test_a_placeholder_cluster_in_a_script_a_job_starts_is_one_finding(tmp_path):
    _write(
        tmp_path,
        {"exec/parameter.py": PLACEHOLDER_CLUSTER, "parameter.hcl": NOMAD_JOB.replace("{script}", "parameter.py")},
    )
    assert _codes(tmp_path, "parameter.py") == ["TFD603"]
    job = Job(use_cache=False, project_roots=(str(tmp_path),))
    (result,) = [r for r in run(sorted(tmp_path.rglob("*.py")), job, jobs=1) if r.path.endswith("parameter.py")]
    assert "('host1:port' and 3 more)" in result.findings[0].message  # one finding for the four slots


def test_other_defects_of_a_placeholder_spec_are_still_reported(tmp_path):
    # An index out of range is a defect whatever the addresses: the one worker slot has index 0 only.
    text = PLACEHOLDER_CLUSTER.replace('"index": 1', '"index": 5')
    _write(tmp_path, {"configs/workers.py": text})
    assert _codes(tmp_path, "workers.py") == ["TFD603"]
