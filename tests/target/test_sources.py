"""Every file format the project-target model reads, from our own examples of each."""

from __future__ import annotations

import pytest

from fixer.target import sources
from fixer.target.requirements import normalise, parse_requirement, specifier_range
from fixer.target.sources import (
    image_tensorflow,
    may_name_image,
    read_conda,
    read_dockerfile,
    read_job_config,
    read_pipfile,
    read_pyproject,
    read_requirements,
    read_setup_cfg,
    read_setup_py,
    reader_for,
)


def versions(evidence) -> list[tuple[str, tuple[int, int]]]:
    return [(e.kind, e.allowed.newest()) for e in evidence if e.kind != "legacy-keras"]


@pytest.mark.parametrize(
    "spec, newest",
    [
        ("==2.5.0", (2, 5)),
        ("~=2.10.1", (2, 10)),
        (">=2.4,<2.12", (2, 11)),
        (">= 2.4, < 2.12", (2, 11)),
        ("<=2.15", (2, 15)),
        ("==2.15.*", (2, 15)),
        (">=2.10", (2, 21)),
        ("~=2.15", (2, 21)),
        ("", (2, 21)),
        ("==2.30", (2, 30)),  # not released yet: its own lower bound
    ],
)
def test_a_range_resolves_to_the_newest_release_pip_would_install(spec, newest):
    assert specifier_range(spec).newest() == newest


@pytest.mark.parametrize("name", ["Tensorflow", "tensorflow-gpu", "tensorflow_cpu", "TensorFlow.macos", "tensorflow-intel"])
def test_every_spelling_of_a_tensorflow_distribution_is_tensorflow(name):
    found = parse_requirement(f"{name}==2.2.0")
    assert found is not None and found.kind == "tensorflow" and found.allowed.newest() == (2, 2)


def test_pep_503_normalisation():
    assert normalise("TF_Keras") == "tf-keras"
    assert normalise("tensorflow..GPU") == "tensorflow-gpu"


@pytest.mark.parametrize("text", ["tensorflow-datasets==4.9", "tensorflow_probability", "tensorflowjs==3.0", "keras-tuner==1.4"])
def test_neighbouring_packages_are_not_tensorflow(text):
    assert parse_requirement(text) is None


def test_requirements_lines_options_comments_and_markers():
    text = "-r base.txt\n--index-url https://x\n# tensorflow==1.15\nnumpy\nTensorflow-GPU==2.1.0 ; python_version < '3.8'  # pinned\ntf-nightly\n"
    assert versions(read_requirements(text, "r.txt")) == [("tensorflow", (2, 1)), ("tf-nightly", (2, 21))]
    assert read_requirements(text, "r.txt")[0].line == 5


def test_requirements_keras_pins():
    found = read_requirements("keras==2.14.0\ntf_keras~=2.16.0\n", "r.txt")
    assert [e.kind for e in found] == ["keras", "tf-keras"]
    assert not found[0].allowed.allows((3, 0, 0))


def test_pyproject_pep_621_optional_and_poetry():
    text = """
[project]
name = "demo"
dependencies = ["numpy", "tensorflow>=2.4,<2.9"]
[project.optional-dependencies]
gpu = ["tensorflow-gpu==2.8.0"]
[tool.poetry.dependencies]
tensorflow = "^2.12"
[tool.poetry.group.dev.dependencies]
keras = {version = "~2.13"}
"""
    assert versions(read_pyproject(text, "pyproject.toml")) == [
        ("tensorflow", (2, 8)), ("tensorflow", (2, 8)), ("tensorflow", (2, 21)), ("keras", (2, 13)),
    ]


def test_pyproject_that_does_not_parse_says_nothing():
    assert read_pyproject("[project\ndependencies = ['tensorflow==2.3']", "pyproject.toml") == []


def test_setup_py_is_read_as_text_never_run():
    text = 'import os\nos.system("rm -rf /")\nsetup(install_requires=["tensorflow-cpu>=2.3,<2.4"], extras_require={"x": ["keras==2.6"]})  # "tensorflow==2.0"\n'
    assert versions(read_setup_py(text, "setup.py")) == [("tensorflow", (2, 3)), ("keras", (2, 6))]


def test_setup_cfg_install_requires_and_extras():
    text = "[options]\ninstall_requires =\n    numpy\n    tensorflow ~= 2.7.0\n[options.extras_require]\ngpu = tensorflow-gpu==2.7.1\n"
    assert versions(read_setup_cfg(text, "setup.cfg")) == [("tensorflow", (2, 7)), ("tensorflow", (2, 7))]


def test_pipfile_packages_and_dev_packages():
    text = '[packages]\ntensorflow = "==2.3.1"\nnumpy = "*"\n[dev-packages]\nkeras = {version = "<3"}\n'
    assert versions(read_pipfile(text, "Pipfile")) == [("tensorflow", (2, 3)), ("keras", (2, 21))]


def test_conda_environment_with_a_pip_list():
    text = "name: x\ndependencies:\n  - python=3.8\n  - tensorflow-gpu=2.4\n  - pip:\n    - tf-keras==2.16.0\n"
    assert versions(read_conda(text, "environment.yml")) == [("tensorflow", (2, 4)), ("tf-keras", (2, 16))]
    assert versions(read_conda("dependencies:\n  - tensorflow 2.6.*\n  - tensorflow=2.9.1=gpu_py39h\n", "e.yml")) == [
        ("tensorflow", (2, 6)), ("tensorflow", (2, 9)),
    ]


@pytest.mark.parametrize(
    "image, version",
    [
        ("tensorflow/tensorflow:2.5.0-gpu", (2, 5)),
        ("tensorflow/tensorflow:2.11.0-gpu-jupyter AS base", (2, 11)),
        ("tensorflow/tensorflow:latest-gpu", (2, 21)),
        ("tensorflow/tensorflow", (2, 21)),
        ("nvcr.io/nvidia/tensorflow:21.08-tf2-py3", (2, 5)),
        ("nvcr.io/nvidia/tensorflow:23.04-tf2-py3", (2, 12)),
        ("nvcr.io/nvidia/tensorflow:20.12-tf1-py3", (1, 15)),
        ("gcr.io/deeplearning-platform-release/tf2-cpu.2-11", (2, 11)),
        ("us-docker.pkg.dev/vertex-ai/training/tf-gpu.2-3:latest", (2, 3)),
        ("AzureML-tensorflow-2.16-cuda12", (2, 16)),
        ("python:3.10-slim", None),
        ("mytensorflow/tensorflow:2.1", None),
    ],
)
def test_images_map_to_tensorflow_through_the_tables(image, version):
    assert image_tensorflow(image) == version


def test_dockerfile_from_pip_install_and_env():
    text = (
        "FROM python:3.9 AS build\n"
        "RUN apt-get update && \\\n    pip install --no-cache-dir numpy 'tensorflow==2.11.*' && \\\n    echo done\n"
        "ENV TF_USE_LEGACY_KERAS=1\n"
        "# FROM tensorflow/tensorflow:2.3.0\n"
    )
    found = read_dockerfile(text, "Dockerfile")
    assert versions(found) == [("tensorflow", (2, 11))]
    assert found[0].line == 2
    legacy = [e for e in found if e.kind == "legacy-keras"]
    assert len(legacy) == 1 and legacy[0].legacy and legacy[0].line == 5
    assert versions(read_dockerfile("FROM tensorflow/tensorflow:2.5.0-gpu\nENV TF_USE_LEGACY_KERAS 0\n", "D")) == [("tensorflow", (2, 5))]
    assert not [e for e in read_dockerfile("ENV TF_USE_LEGACY_KERAS 0\n", "D") if e.legacy]


def test_cloud_job_configs():
    vertex = 'trainingInput:\n  scaleTier: BASIC_GPU\n  runtimeVersion: "2.3"\n  pythonVersion: "3.7"\n'
    assert versions(read_job_config(vertex, "config.yaml")) == [("tensorflow", (2, 3))]
    azure = "command: python train.py\nenvironment: azureml:AzureML-tensorflow-2.16-cuda12@latest\nenvironment_variables:\n  TF_USE_LEGACY_KERAS: '1'\n"
    found = read_job_config(azure, "job.yml")
    assert versions(found) == [("tensorflow", (2, 16)), ("tf-keras", (2, 16))]
    assert [e.legacy for e in found if e.kind == "legacy-keras"] == [True, True]


@pytest.mark.parametrize(
    "line, keras2",
    [
        ("environment: azureml:AzureML-tensorflow-2.16-cuda12@latest", True),
        ('environment="AzureML-tensorflow-2.16-cuda11@latest",', True),
        ("environment: azureml:AzureML-TensorFlow-2.3-GPU:1", False),  # Keras 2 anyway: TF 2.3
        ("image: tensorflow/tensorflow:2.16.1-gpu", False),  # the official image ships Keras 3
    ],
)
def test_a_curated_azure_image_brings_tf_keras_and_the_legacy_switch(line, keras2):
    # The curated 2.16 images install tf-keras 2.16 and set TF_USE_LEGACY_KERAS=1 (their build
    # definitions in Azure/azureml-assets, cited in fixer/target/versions.py).
    found = read_job_config(f"{line}\n", "job.yml")
    assert ("tf-keras", found[0].allowed.newest()) in versions(found) if keras2 else len(versions(found)) == 1
    assert [e.legacy for e in found if e.kind == "legacy-keras"] == ([True] if keras2 else [])


def test_the_unversioned_official_image_states_no_version():
    # Built from whichever release was newest on the day: an open requirement, not "2.21".
    (found,) = read_dockerfile("FROM tensorflow/tensorflow:latest-gpu\n", "Dockerfile")
    assert found.kind == "tensorflow" and found.allowed.open_ended
    (nightly,) = read_dockerfile("FROM tensorflow/tensorflow:nightly\n", "Dockerfile")
    assert not nightly.allowed.open_ended and nightly.allowed.newest() == (2, 21)


@pytest.mark.parametrize(
    "name, reader",
    [
        ("requirements.txt", read_requirements), ("requirements-gpu.txt", read_requirements),
        ("requirments.txt", read_requirements), ("Requirements.txt", read_requirements),
        ("constraints.txt", read_requirements), ("requirements.in", read_requirements),
        ("pyproject.toml", read_pyproject), ("setup.py", read_setup_py), ("setup.cfg", read_setup_cfg),
        ("Pipfile", read_pipfile), ("environment.yml", read_conda), ("conda.yaml", read_conda),
        ("Dockerfile", read_dockerfile), ("train.Dockerfile", read_dockerfile), ("Dockerfile.gpu", read_dockerfile),
        ("Containerfile", read_dockerfile), ("config.yaml", read_job_config),
        ("train.py", None), ("README.md", None), ("requirements.py", None),
    ],
)
def test_which_files_are_read(name, reader):
    assert reader_for(name) is reader


def test_dockerfile_arguments_that_name_the_image_or_the_version():
    text = "ARG FROM_IMAGE_NAME=nvcr.io/nvidia/tensorflow:21.02-tf2-py3\nFROM ${FROM_IMAGE_NAME}\nARG TENSORFLOW_VERSION=2.9.2\nARG PYTHON=3.8\n"
    assert versions(read_dockerfile(text, "Dockerfile")) == [("tensorflow", (2, 4)), ("tensorflow", (2, 9))]


@pytest.mark.parametrize(
    "text",
    [
        "FROM tensorflow/tensorflow:2.5.0-gpu",
        "docker.io/tensorflow/tensorflow:latest",
        "nvcr.io/nvidia/tensorflow:21.08-tf2-py3",
        "nvcr.io/nvidia/merlin/merlin-tensorflow-training:22.04",
        "gcr.io/deeplearning-platform-release/tf2-cpu.2-11",
        "us-docker.pkg.dev/vertex-ai/training/tf-tpu.2-3:latest",
        "763104351884.dkr.ecr.us-east-1.amazonaws.com/tensorflow-training:2.7.1-gpu-py38",
        "environment: azureml:AzureML-tensorflow-2.16-cuda12@latest",
        "environment: azureml-TensorFlow-2.3-GPU:1",
        "python:3.10-slim",
        "import tensorflow as tf",
    ],
)
def test_the_word_test_before_the_image_patterns_admits_each_pattern_s_match(text):
    # image_tensorflow answers None at once for text without the words: each pattern needs one of them.
    patterns = (sources._OFFICIAL, sources._NGC, sources._MERLIN, sources._GOOGLE, sources._AWS_DLC, sources._AZURE)
    if any(pattern.search(text) for pattern in patterns):
        assert may_name_image(text)
    assert may_name_image("import tensorflow as tf\nmodel.fit(x)") is False
