"""Where a project states its TensorFlow outside its pin files (issue 28, tgt14): an image elsewhere
in the repository that copies the folder in, a base image whose name carries the release, a TPU
created with a software version in a shell script, an HPC module a job script loads; and a README
line that opens with an inline span of three backticks (not a fence)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.target import target_for
from fixer.target.markdown import FENCE
from fixer.target.readme import read_readme
from fixer.target.shell_scripts import read_shell_script
from fixer.target.sources import read_dockerfile
from tests.project_trees import tree

if TYPE_CHECKING:
    from pathlib import Path

TRAINER_IMAGE = "FROM python:3.7\nRUN pip3 install requests && pip3 install tensorflow=={version} && pip3 install nni\n"


def version(path: Path) -> tuple[int, int] | None:
    target = target_for(path)
    return None if target.assumed else target.version


# An image copying the folder in


def test_an_image_built_elsewhere_that_copies_the_package_in_states_its_tensorflow(tmp_path):
    root = tree(
        tmp_path,
        {
            "platform/lib/learn/runner.py": "import tensorflow as tf\n",
            "platform/trainer/Dockerfile": TRAINER_IMAGE.format(version="2.3.0") + "COPY platform/lib /srv/lib\n",
            # Built from the repository root: the COPY source is relative to that context.
            "platform/trainer/build.sh": "docker build --pull -t reg/trainer:1 -f ./platform/trainer/Dockerfile .\n",
            "platform/other/tool.py": "",
        },
    )
    assert version(root / "platform" / "lib" / "learn" / "runner.py") == (2, 3)
    source = target_for(root / "platform" / "lib" / "learn").tensorflow_from
    assert source is not None and source.path.endswith("trainer/Dockerfile")
    # A folder the image does not copy keeps its own (nothing: assumed).
    assert version(root / "platform" / "other" / "tool.py") is None


def test_without_a_build_script_the_source_is_found_from_the_dockerfile_folder_up(tmp_path):
    root = tree(
        tmp_path,
        {
            "lib/model.py": "",
            "train_job/Dockerfile": TRAINER_IMAGE.format(version="2.3.0") + "COPY lib /app/lib\n",
        },
    )
    assert version(root / "lib" / "model.py") == (2, 3)


def test_several_images_copying_the_package_give_the_oldest(tmp_path):
    root = tree(
        tmp_path,
        {
            "job/pkg/runner.py": "",
            "job/a/Dockerfile": TRAINER_IMAGE.format(version="2.6.0") + "COPY job/pkg /app/job/pkg\n",
            "job/a/build.sh": "docker build -t x -f job/a/Dockerfile .\n",
            "job/b/Dockerfile": TRAINER_IMAGE.format(version="2.3.0") + "COPY job/pkg /app/job/pkg\n",
            "job/b/build.sh": "docker build -t y -f job/b/Dockerfile .\n",
        },
    )
    assert version(root / "job" / "pkg" / "runner.py") == (2, 3)


def test_a_file_pattern_copies_only_its_folder_and_the_whole_context_copies_nothing_read(tmp_path):
    root = tree(
        tmp_path,
        {
            "models/tf/helper.py": "",
            "models/tf/deep/model.py": "",
            "models/tf/deep/Dockerfile": TRAINER_IMAGE.format(version="2.3.0")
            + "COPY models/tf/*.py /app/models/tf/\n",
            "models/tf/deep/build.sh": "docker build -f models/tf/deep/Dockerfile .\n",
            "serve/app.py": "",
            "tools/Dockerfile": TRAINER_IMAGE.format(version="2.4.0") + "COPY . /app\n",
        },
    )
    assert version(root / "models" / "tf" / "helper.py") == (2, 3)
    assert version(root / "serve" / "app.py") is None


def test_a_copy_from_another_build_stage_is_not_the_context(tmp_path):
    image = (
        "FROM python:3.8 AS build\nRUN pip install tensorflow==2.3.0\nFROM python:3.8\nCOPY --from=build /lib /lib\n"
    )
    root = tree(tmp_path, {"lib/a.py": "", "job/Dockerfile": image})
    assert version(root / "lib" / "a.py") is None
    several = TRAINER_IMAGE.format(version="2.3.0") + "COPY /shared/util.py lib /app/\n"
    other = tree(tmp_path / "other", {"lib/a.py": "", "shared/util.py": "", "job/Dockerfile": several})
    assert version(other / "lib" / "a.py") == (2, 3)


def test_an_image_that_copies_the_folder_but_names_no_tensorflow_says_nothing(tmp_path):
    root = tree(tmp_path, {"pkg/a.py": "", "job/Dockerfile": "FROM python:3.6\nCOPY pkg /app/pkg\n"})
    assert version(root / "pkg" / "a.py") is None


# A base image whose name carries the release


def test_a_notebook_image_family_names_the_release_in_the_image_name_not_the_tag():
    found = read_dockerfile(
        "FROM registry.example/images/tensorflow-2.1.0-notebook-gpu:1.0.0\nCOPY . /app\n", "Dockerfile"
    )
    assert [e.allowed.newest() for e in found] == [(2, 1)]
    assert read_dockerfile("FROM registry.example/images/notebook-gpu:1.0.0\n", "Dockerfile") == []
    assert read_dockerfile("FROM python:3.8-slim AS build\n", "Dockerfile") == []


def test_the_named_base_image_decides_the_folder(tmp_path):
    root = tree(tmp_path, {"Dockerfile": "FROM registry.example/tensorflow-2.1.0-notebook-cpu:v1\n", "train.py": ""})
    assert version(root / "train.py") == (2, 1)


# A TPU's software version and an HPC module, in shell scripts


def test_tpu_creation_and_module_loads_in_a_shell_script():
    script = (
        "#!/bin/bash\n#SBATCH --nodes=2\nmodule purge\n"
        "module load TensorFlow/2.11.0-foss-2022a-CUDA-11.7.0 Horovod/0.28.1\n"
        "ml tensorflow/2.4\n"
        "module load tensorflow\n"
        "gcloud compute tpus create my-tpu \\\n  --zone=europe-west4-a \\\n  --version='2.5.0'\n"
        "gcloud compute tpus tpu-vm create vm --version=tpu-vm-tf-2.10.0\n"
        "gcloud compute tpus tpu-vm create vm --version=tpu-vm-base\n"
        "# gcloud compute tpus create old --version=1.15\n"
        "echo --version=2.9\n"
    )
    assert [(e.line, e.allowed.newest()) for e in read_shell_script(script, "job.sh")] == [
        (4, (2, 11)),
        (5, (2, 4)),
        (7, (2, 5)),
        (10, (2, 10)),
    ]


def test_a_tpu_created_by_a_script_in_a_tool_folder_serves_the_whole_project(tmp_path):
    create = "gcloud compute tpus create node \\\n  --accelerator-type='v2-8' \\\n  --version='2.5.0'\n"
    root = tree(tmp_path, {"tpu_tools/create.sh": create, "vision/train.py": "", "vision/deep/net/train.py": ""})
    assert version(root / "vision" / "train.py") == (2, 5)
    assert version(root / "vision" / "deep" / "net" / "train.py") == (2, 5)
    other = tree(tmp_path / "other", {"tools/clean.sh": "gcloud compute tpus delete node\n", "a/train.py": ""})
    assert version(other / "a" / "train.py") is None


def test_a_job_script_beside_the_program_loads_the_module_it_runs_on(tmp_path):
    job = "#!/bin/bash\n#SBATCH -N 2\nmodule purge\nmodule load TensorFlow/2.11.0-foss-2022a-CUDA-11.7.0\n"
    job += "srun python train.py\n"
    root = tree(
        tmp_path, {"multi/jobscript.sh": job, "multi/train.py": "", "single/run.sh": "module load tensorflow\n"}
    )
    assert version(root / "multi" / "train.py") == (2, 11)
    assert version(root / "single" / "train.py") is None


def test_a_readme_code_line_loading_the_module():
    readme = (
        "# Multi-node\n\n```bash\nml purge\nml TensorFlow/2.11.0-foss-2022a-CUDA-11.7.0\nsbatch jobscript.sh\n```\n"
    )
    assert [e.allowed.newest() for e in read_readme(readme, "README.md")] == [(2, 11)]


# A README's inline span of three backticks is no fence


def test_an_indented_inline_span_of_three_backticks_does_not_open_a_fence():
    assert FENCE.match("```") and FENCE.match("```bash") and FENCE.match("````") and FENCE.match("~~~")
    assert not FENCE.match("  ```pip install profiler```")
    readme = (
        "# Tools\n- profile.sh\n  ```pip install some-profiler```\n\n"
        "## Create the TPU\n```\ngcloud compute tpus create node --version=2.5.0\n```\n"
    )
    assert [e.allowed.newest() for e in read_readme(readme, "README.md")] == [(2, 5)]
