"""What a project's shell scripts say about the TensorFlow its code runs on:

- **A Cloud TPU created with a software version**: `gcloud compute tpus create my-tpu
  --accelerator-type=v2-8 --version='2.5.0'`, `gcloud compute tpus tpu-vm create ...
  --version=tpu-vm-tf-2.10.0`, `gcloud compute tpus execution-groups create --tf-version=2.4.0`,
  `ctpu up --tf-version 2.1`. A TPU node runs the release it was created with and its client must
  run the same one; a TPU VM image ships that release. The project's code runs on it.
- **An HPC environment module** a job script loads: `module load TensorFlow/2.11.0-foss-2022a-CUDA-11.7.0`
  (EasyBuild's naming: release, then toolchain), `ml TensorFlow/2.11.0`, `module add tensorflow/2.4`
  (Lmod / Environment Modules): the job runs that module's TensorFlow. An unversioned module
  (`module load tensorflow`) names the site's default, which changes: nothing. Two site namings put
  something between the name and the release, both skipped: a Python-flavour folder
  (`tensorflow-gpu/py3/2.4.0`, IDRIS Jean Zay's `<name>/py3/<release>`; `py2`, `py37`, `python3.8`)
  and a build flavour glued to the release (`tensorflow/gpu-2.2.0-py37`, `intel-1.15.0-py37`, NERSC
  Cori). Any other segment stays unread: `tensorflow/nvidia-20.07-tf2-py3` carries a container
  release, `tensorflow/cuda11.2/2.4` a toolkit's, and a reader that skipped unknown segments would
  take such numbers, or a later one, for TensorFlow's.
- **An environment named for its TensorFlow** that a job activates: `conda activate
  /apps/.../miniconda-tf2.3`, `source activate tensorflow-2.4`, `source tf2.7-venv/bin/activate`.
  Whoever named it so built it with that release, and the job runs on it. Only the environment's own
  name is read (the last path segment; a virtualenv's folder before `/bin/activate`, or the argument
  given to conda's `bin/activate` script), and only when it states TensorFlow and a minor release:
  `tf2.3`, `tf-2.3.0`, `py38_tf_2.5`, `tensorflow-gpu-2.2`.
  `tf2` (a major version alone), `tfx-1.4`, `tfp-0.12`, `tf-agents-0.9` (other tools' releases) and
  an environment `analysis` under `/opt/tf2.3/envs/` say nothing.

Shell scripts (`*.sh`, `*.bash`, Slurm / PBS job files `*.slurm`, `*.sbatch`, `*.pbs`) of the walk's
folders are read for all three; those directly in a project root's subfolders (`tpu_utils/create.sh`) for
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
# `TensorFlow/2.11.0-foss-2022a-CUDA-11.7.0`, `tensorflow/2.4`, `apps/tensorflow-gpu/2.3.1`,
# `tensorflow-gpu/py3/2.4.0` (a Python-flavour folder), `tensorflow/gpu-2.2.0-py37` (a build flavour).
_TF_MODULE = re.compile(
    r"(?i)^(?:[\w.-]+/)*tensorflow(?:-gpu)?/(?:(?:py|python)\d*(?:\.\d+)?/)?(?:(?:gpu|cpu|intel)-)?"
    r"(?P<major>\d+)\.(?P<minor>\d+)(?![\d])"
)
# `conda activate ENV`, `source activate ENV`, `mamba activate --stack ENV` at a command's start.
_ACTIVATE = re.compile(
    r"(?:^|[;&|(]\s*)(?:(?:conda|mamba|micromamba)\s+activate|source\s+activate)(?:\s+--?[\w-]+)*\s+(?P<env>[^\s;&|#)]+)"
)
# `source tf2.7-venv/bin/activate`, `. ./tf-1.15/bin/activate`: a virtualenv's folder; conda's own
# script with an argument (`source /opt/conda/bin/activate tf2.3`) activates the environment named.
_VENV_ACTIVATE = re.compile(
    r"(?:^|[;&|(]\s*)(?:source|\.)\s+(?P<env>[^\s;&|#)]+)/bin/activate(?![\w.-])(?:[ \t]+(?P<argument>[^\s;&|#)]+))?"
)
# An environment's name stating TensorFlow and a minor release: `tf2.3`, `miniconda-tf2.3`,
# `tensorflow-gpu-2.2`, `py38_tf_2.5`; `tf` must start the name or follow a separator (`stf-2.3` is not).
_TF_ENV_NAME = re.compile(
    r"(?i)(?:^|[-_.])(?:tf|tensorflow)(?:[-_]?(?:gpu|cpu))?[-_]?(?P<major>\d+)\.(?P<minor>\d+)(?![\d])"
)


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


def environment_activations(command: str, path: str, line: int) -> list[Evidence]:
    """The TensorFlow each conda environment or virtualenv a command activates states in its name, else []."""
    found: list[Evidence] = []
    for pattern in (_ACTIVATE, _VENV_ACTIVATE):
        for activated in pattern.finditer(command.strip()):
            activated_env = activated.groupdict().get("argument") or activated.group("env")
            name = activated_env.rstrip("/").rsplit("/", 1)[-1]
            named = _TF_ENV_NAME.search(name)
            if named is not None:
                release = int(named.group("major")), int(named.group("minor"))
                found.append(Evidence("tensorflow", exactly(release), path, line, command.strip()))
    return found


def read_shell_script(text: str, path: str) -> list[Evidence]:
    """A shell or job script's TPU creations, module loads and named environments (continuation
    lines joined)."""
    found: list[Evidence] = []
    for number, command in logical_lines(text):
        if command.lstrip().startswith("#"):
            continue
        found += tpu_software(command, path, number) + module_loads(command, path, number)
        found += environment_activations(command, path, number)
    return found


def read_tpu_creations(text: str, path: str) -> list[Evidence]:
    """Only the TPU creations of a shell script (one in a project's tool folder)."""
    return [
        e
        for number, command in logical_lines(text)
        if not command.lstrip().startswith("#")
        for e in tpu_software(command, path, number)
    ]
