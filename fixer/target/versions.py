"""Data about TensorFlow releases: which versions exist, and which TensorFlow a container image or
a cloud runtime name stands for. Kept as tables so a new release is one line, not new code."""

from __future__ import annotations

Version = tuple[int, ...]

# The newest patch release of every TensorFlow minor version on PyPI (pypi.org/project/tensorflow).
# A range resolves to the newest of these it allows: what `pip install` would pick today.
LATEST_PATCH: dict[tuple[int, int], int] = {
    (1, 13): 2,
    (1, 14): 0,
    (1, 15): 5,
    (2, 0): 4,
    (2, 1): 4,
    (2, 2): 3,
    (2, 3): 4,
    (2, 4): 4,
    (2, 5): 3,
    (2, 6): 5,
    (2, 7): 4,
    (2, 8): 4,
    (2, 9): 3,
    (2, 10): 1,
    (2, 11): 1,
    (2, 12): 1,
    (2, 13): 1,
    (2, 14): 1,
    (2, 15): 1,
    (2, 16): 2,
    (2, 17): 1,
    (2, 18): 1,
    (2, 19): 1,
    (2, 20): 0,
    (2, 21): 0,
}

# The TensorFlow lines whose first final release on PyPI is not X.Y.0, with that first patch:
# there is no 2.16.0 (2.16.1 followed 2.16.0rc0). Read from `pip index versions tensorflow
# --only-binary=:all:` for Python 3.6, 3.7, 3.10 and 3.12 on 2026-11-28, which list every final
# release of 1.0-2.20 and neither 2.16.0 nor 1.13.0. Under PEP 440 `<=2.16` means `<=2.16.0`, so
# it admits no 2.16 release and pip installs 2.15.1 (ledger22d, zyffcc/gisaxs_gui). 1.13 (first
# release 1.13.1) is left out: it is the oldest line above, so `<=1.13` would have no line left to
# resolve to, and 1.12 and 1.13 are the same TF1 for every rule. A gap inside a line (no 1.15.1)
# changes no line's answer.
FIRST_PATCH: dict[tuple[int, int], int] = {
    (2, 16): 1,
}

# What distfix assumes when a project says nothing: the TensorFlow it is measured against.
CURRENT: tuple[int, int] = (2, 21)

# The official image's `-py3` tags end at TensorFlow 2.1.0: Docker Hub's tags list of
# tensorflow/tensorflow has no `-py3` image of a later release, and its description (quoted by a
# TensorFlow maintainer in tensorflow/tensorflow#41153) says "Versioned images <= 1.15.0 (1.x) and
# <= 2.1.0 (2.x) have Python 3 ... in images tagged -py3 ... All newer images are Python 3 only.
# Tags containing -py3 are deprecated". So an unversioned `-py3` tag (`latest-py3`,
# `latest-gpu-py3-jupyter`, `devel-py3`) was last pushed with 2.1.0 and names that release for
# good, not today's. (`nightly-py3*` names some 2020 nightly, which the tags list does not date.)
LAST_PY3_TAG_RELEASE: tuple[int, int] = (2, 1)

# From this release on `tf.keras` is Keras 3 unless TF_USE_LEGACY_KERAS selects tf-keras.
KERAS3_FROM: tuple[int, int] = (2, 16)


def released() -> list[Version]:
    """Every released version (major, minor, patch), oldest first."""
    return [
        (*minor, patch)
        for minor, last in sorted(LATEST_PATCH.items())
        for patch in range(FIRST_PATCH.get(minor, 0), last + 1)
    ]


# NVIDIA NGC `nvcr.io/nvidia/tensorflow:YY.MM-tf2-py3`: the TensorFlow each monthly container
# ships (NVIDIA's "Frameworks Support Matrix"). A tag between two rows ships the earlier row's.
NGC_RELEASES: dict[tuple[int, int], tuple[int, int]] = {
    (20, 1): (2, 0),
    (20, 6): (2, 2),
    (20, 10): (2, 3),
    (21, 2): (2, 4),
    (21, 6): (2, 5),
    (21, 9): (2, 6),
    (22, 1): (2, 7),
    (22, 3): (2, 8),
    (22, 6): (2, 9),
    (22, 11): (2, 10),
    (23, 1): (2, 11),
    (23, 4): (2, 12),
    (23, 8): (2, 13),
    (23, 12): (2, 14),
    (24, 2): (2, 15),
    (24, 6): (2, 16),
    (25, 1): (2, 17),
}


def ngc_tensorflow(year: int, month: int) -> tuple[int, int] | None:
    """The TensorFlow of NGC container ``YY.MM`` (a `-tf2` tag); None before the first TF 2 one."""
    earlier = [release for release in sorted(NGC_RELEASES) if release <= (year, month)]
    return NGC_RELEASES[earlier[-1]] if earlier else None


# Azure ML curated training environments `AzureML-tensorflow-X.Y-cudaN` whose image build installs
# tf-keras beside TensorFlow X.Y and sets `ENV TF_USE_LEGACY_KERAS=1`, so `tf.keras` is Keras 2 in
# them: the build definitions in Azure/azureml-assets
# (assets/training/general/environments/tensorflow-2.16-cuda11 and -cuda12: `tensorflow[and-cuda]==2.16.2`,
# `tf-keras==2.16.0` in context/conda_dependencies.yaml, `ENV TF_USE_LEGACY_KERAS=1` in context/Dockerfile).
# The older curated TensorFlow environments (2.x before 2.16) are Keras 2 anyway.
AZURE_LEGACY_KERAS: frozenset[tuple[int, int]] = frozenset({(2, 16)})

# The newest TensorFlow with a wheel for each old Python (pip resolves for the interpreter it runs
# on): `pip index versions tensorflow --python-version 3.7 --only-binary=:all: --platform
# manylinux2014_x86_64` lists 2.11.0 as the newest (3.5: 2.3.1, 3.6: 2.6.2, 3.8: 2.13.1, 3.9:
# 2.20.0; measured 2026-11-27). Pythons from 3.10 on get the current release.
NEWEST_FOR_PYTHON: dict[tuple[int, int], tuple[int, int]] = {
    (3, 5): (2, 3),
    (3, 6): (2, 6),
    (3, 7): (2, 11),
    (3, 8): (2, 13),
    (3, 9): (2, 20),
}

# Packages built on Keras 2, by their PEP 503 distribution name: (the module a script imports, the
# newest TensorFlow they run on). A project that requires or imports one runs Keras 2 (docs/target.md,
# "Packages built on Keras 2"). Only packages whose ceiling a probe measured are listed
# (benchmarks/probe_tensorflow_caps.py):
# - tensorflow-addons (end of life; last release 0.23.0) declares TensorFlow 2.13 to 2.15, its layers
#   and optimizers subclass tf.keras's, and its import raises under TensorFlow 2.21 (Keras 3).
# - uncertainty-baselines: its `optimizers` module imports tensorflow_addons (the 0.0.7 wheel; its
#   source's setup.py requires tensorflow_addons too), so `ub.optimizers` does not exist under 2.21.
KERAS2_PACKAGES: dict[str, tuple[str, tuple[int, int]]] = {
    "tensorflow-addons": ("tensorflow_addons", (2, 15)),
    "uncertainty-baselines": ("uncertainty_baselines", (2, 15)),
}

# Modules whose import caps TensorFlow although no requirement on them does: (the name the statement
# carries, the newest TensorFlow the module is there). TensorFlow 2.16 stopped installing the
# estimator package (`import tensorflow_estimator` raises ModuleNotFoundError beside TensorFlow 2.21
# and `tf.estimator` is gone: benchmarks/probe_ledger17a_premises.py), so a module importing it runs
# on TensorFlow 2.15 or older, whose `tf.keras` is Keras 2. A requirement on `tensorflow-estimator`
# is not read so: whether that wheel imports beside a newer TensorFlow was not measured.
CAPPING_IMPORTS: dict[str, tuple[str, tuple[int, int]]] = {
    **{module: (name, newest) for name, (module, newest) in KERAS2_PACKAGES.items()},
    "tensorflow_estimator": ("tensorflow-estimator", (2, 15)),
}

# NVIDIA Merlin containers `nvcr.io/nvidia/merlin/<name>:YY.MM`: the TensorFlow each release ships,
# from NVIDIA's published support-matrix data (NVIDIA-Merlin/Merlin `docs/data.json`, commit
# 2770de35, the `tf` entry of each release; printed by `python benchmarks/ngc_tensorflow_tags.py`).
# Only the releases listed there: any other tag (`merlin-tensorflow:22.08`) ships an unknown release.
_MERLIN_TRAINING: dict[tuple[int, int], tuple[int, int]] = {
    (21, 9): (2, 5),
    (21, 11): (2, 6),
    (21, 12): (2, 6),
    (22, 1): (2, 6),
    (22, 2): (2, 7),
    (22, 3): (2, 7),
    (22, 4): (2, 8),
    (22, 5): (2, 8),
}
MERLIN_TENSORFLOW: dict[str, dict[tuple[int, int], tuple[int, int]]] = {
    "merlin-training": _MERLIN_TRAINING,
    "merlin-tensorflow-training": _MERLIN_TRAINING,
    "merlin-tensorflow": {
        (22, 6): (2, 8),
        (22, 7): (2, 9),
        (22, 9): (2, 9),
        (22, 10): (2, 9),
        (22, 11): (2, 9),
        (22, 12): (2, 10),
        (23, 2): (2, 10),
        (23, 4): (2, 11),
        (23, 5): (2, 11),
        (23, 6): (2, 12),
    },
}
