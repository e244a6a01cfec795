"""What a project's shell scripts say about the TensorFlow its code runs on:

- **A Cloud TPU created with a software version**: `gcloud compute tpus create my-tpu
  --accelerator-type=v2-8 --version='2.5.0'`, `gcloud compute tpus tpu-vm create ...
  --version=tpu-vm-tf-2.10.0`, `gcloud compute tpus execution-groups create --tf-version=2.4.0`,
  `ctpu up --tf-version 2.1`. A TPU node runs the release it was created with and its client must
  run the same one; a TPU VM image ships that release. The project's code runs on it.
- **An HPC environment module** a job script loads: `module load TensorFlow/2.11.0-foss-2022a-CUDA-11.7.0`
  (EasyBuild's naming: release, then toolchain), `ml TensorFlow/2.11.0`, `module add tensorflow/2.4`
  (Lmod / Environment Modules): the job runs that module's TensorFlow. An unversioned module
  (`module load tensorflow`) names the site's default, which changes: nothing.

Shell scripts (`*.sh`, `*.bash`, Slurm / PBS job files `*.slurm`, `*.sbatch`, `*.pbs`) of the walk's
folders are read for both; those directly in a project root's subfolders (`tpu_utils/create.sh`) for
the TPU only, which serves the whole project (fixer/target/project_files.py). Read as text, never run.
"""

from __future__ import annotations

import re

from fixer.target.continuation import logical_lines
from fixer.target.sources import Evidence, exactly

SHELL_SUFFIXES = (".sh", ".bash", ".slurm", ".sbatch", ".pbs")

_TPU_CREATE = re.compile(
    r"\bgcloud\s+(?:alpha\s+|beta\s+)?compute\s+tpus\s+(?:tpu-vm\s+|execution-groups\s+|queued-resources\s+)?create\b"
    r"|\bctpu\s+up\b"
)
# `--version=2.5.0`, `--version '2.5.0'`, `--tf-version=1.15`, `--version=tpu-vm-tf-2.10.0`,
# `--runtime-version=tpu-vm-tf-2.16.1-pjrt`; not `--version=tpu-vm-base` (no TensorFlow named).
_TPU_SOFTWARE = re.compile(r"--(?:tf-|runtime-)?version[=\s]+[\"']?(?:tpu-vm-tf-)?(?P<major>\d+)\.(?P<minor>\d+)")
# `module load A B`, `module add A`, `ml A`, `ml load A`, at a command's start.
_MODULE = re.compile(r"(?:^|[;&|(]\s*)(?:module\s+(?:load|add|try-load)|ml(?:\s+load)?)\s+(?P<modules>[^;&|#)]+)")
# `TensorFlow/2.11.0-foss-2022a-CUDA-11.7.0`, `tensorflow/2.4`, `apps/tensorflow-gpu/2.3.1`.
_TF_MODULE = re.compile(r"(?i)^(?:[\w.-]+/)*tensorflow(?:-gpu)?/(?P<major>\d+)\.(?P<minor>\d+)(?![\d])")


def tpu_software(command: str, path: str, line: int) -> list[Evidence]:
    """The TensorFlow of a TPU a command creates with a software version, else []."""
    if _TPU_CREATE.search(command) is None:
        return []
    version = _TPU_SOFTWARE.search(command)
    if version is None:
        return []
    release = int(version.group("major")), int(version.group("minor"))
    return [Evidence("tensorflow", exactly(release), path, line, command.strip())]


def module_loads(command: str, path: str, line: int) -> list[Evidence]:
    """The TensorFlow of each versioned TensorFlow module a command loads, else []."""
    found: list[Evidence] = []
    for loaded in _MODULE.finditer(command.strip()):
        for module in loaded.group("modules").split():
            named = _TF_MODULE.match(module)
            if named is not None:
                release = int(named.group("major")), int(named.group("minor"))
                found.append(Evidence("tensorflow", exactly(release), path, line, command.strip()))
    return found


def read_shell_script(text: str, path: str) -> list[Evidence]:
    """A shell or job script's TPU creations and module loads (continuation lines joined)."""
    found: list[Evidence] = []
    for number, command in logical_lines(text):
        if command.lstrip().startswith("#"):
            continue
        found += tpu_software(command, path, number) + module_loads(command, path, number)
    return found


def read_tpu_creations(text: str, path: str) -> list[Evidence]:
    """Only the TPU creations of a shell script (one in a project's tool folder)."""
    return [
        e
        for number, command in logical_lines(text)
        if not command.lstrip().startswith("#")
        for e in tpu_software(command, path, number)
    ]
