"""The project-target model: nearest folder first, what wins, the Keras flavour, invalidation."""

from __future__ import annotations

import os
from pathlib import Path

from fixer.target import target_for


def project(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / ".git").mkdir(parents=True)  # the repository root: the model does not look above it
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def test_nothing_pinned_assumes_the_current_release(tmp_path):
    target = target_for(project(tmp_path, {"train.py": ""}) / "train.py")
    assert target.assumed and target.version == (2, 21) and target.keras == 3
    assert "assumed" in target.provenance()


def test_a_pin_below_2_16_means_keras_2(tmp_path):
    target = target_for(project(tmp_path, {"requirements.txt": "tensorflow==2.5.0\n"}))
    assert target.version == (2, 5) and target.keras == 2 and not target.assumed
    assert target.provenance().endswith("requirements.txt:1")


def test_the_nearest_folder_wins_in_a_monorepo(tmp_path):
    root = project(tmp_path, {"requirements.txt": "tensorflow==2.15.0\n", "old/requirements.txt": "tensorflow-gpu==2.1.0\n", "new/a.py": ""})
    assert target_for(root / "old").version == (2, 1)
    assert target_for(root / "new" / "a.py").version == (2, 15)


def test_within_a_folder_the_oldest_pin_decides(tmp_path):
    root = project(tmp_path, {"requirements.txt": "tensorflow\n", "Dockerfile": "FROM tensorflow/tensorflow:2.11.0-gpu\n"})
    target = target_for(root)
    assert target.version == (2, 11)
    assert target.tensorflow_from.path.endswith("Dockerfile")


def test_a_keras_2_pin_beside_an_unpinned_tensorflow(tmp_path):
    target = target_for(project(tmp_path, {"requirements.txt": "tensorflow\nkeras==2.14.0\n"}))
    assert target.version == (2, 21)  # the TensorFlow line is the stronger statement
    target = target_for(project(tmp_path / "sub", {"requirements.txt": "numpy\nkeras==2.14.0\n"}))
    assert target.version == (2, 14) and target.keras == 2


def test_legacy_keras_from_the_dockerfile(tmp_path):
    root = project(tmp_path, {"Dockerfile": "FROM tensorflow/tensorflow:2.17.0\nRUN pip install tf-keras~=2.17.0\nENV TF_USE_LEGACY_KERAS=1\n"})
    target = target_for(root)
    assert target.version == (2, 17) and target.keras == 2 and target.declares_tf_keras


def test_a_requested_newer_target_is_an_upgrade(tmp_path):
    root = project(tmp_path, {"requirements.txt": "tensorflow==2.3.0\n"})
    target = target_for(root, requested=(2, 21))
    assert target.upgrade and target.version == (2, 21) and target.pinned == (2, 3) and target.keras == 3
    assert target.upgrade_prefix() == "on upgrade to TF 2.21: "
    assert not target_for(root, requested=(2, 3)).upgrade


def test_the_requirement_to_add_and_where(tmp_path):
    root = project(tmp_path, {"requirements/base.txt": "tensorflow==2.17.1\n"})
    target = target_for(root)
    assert target.version == (2, 17)
    assert target.dependency_file() == str(root / "requirements" / "base.txt")
    assert target.tf_keras_requirement() == "tf-keras~=2.17.0"
    setup = project(tmp_path / "p", {"setup.py": "setup(install_requires=['tensorflow==2.18'])"})
    assert target_for(setup).dependency_file() == str(setup / "setup.py")
    assert target_for(project(tmp_path / "d", {"Dockerfile": "FROM tensorflow/tensorflow:2.18.0"})).dependency_file() is None


def test_adding_editing_and_removing_a_file_changes_the_target(tmp_path):
    root = project(tmp_path, {"train.py": ""})
    assert target_for(root / "train.py").assumed
    (root / "requirements.txt").write_text("tensorflow==2.5.0\n")
    assert target_for(root / "train.py").version == (2, 5)
    (root / "requirements.txt").write_text("tensorflow==2.12.0\n")  # same size, new mtime
    os.utime(root / "requirements.txt", ns=(1, 1))
    assert target_for(root / "train.py").version == (2, 12)
    (root / "requirements.txt").unlink()
    assert target_for(root / "train.py").assumed


def test_a_new_python_file_does_not_invalidate_it(tmp_path):
    root = project(tmp_path, {"requirements.txt": "tensorflow==2.5.0\n"})
    first = target_for(root)
    (root / "other.py").write_text("x = 1\n")
    assert target_for(root) is first
