"""issue 28, prec23: the ledger's last version fp and wrong safe renames (TFD401, TFD403) and the
orbit base class of a namespace-package project (TFD402). Each shape in our own words, each with a
control that stays reported.
"""

from __future__ import annotations

from pathlib import Path

from fixer.runner import Job, run
from tests.rules.test_tfd402_run_time_compiling import ASYNC_BASE, ASYNC_TEST

# --- TFD402: a project folder without `__init__.py` (PEP 420) imported by name --------------------

# The orbit trainer of the TFD402 rule tests, imported from a package folder named at each test.
ORBIT_BASE = ASYNC_BASE
ORBIT_TEST = ASYNC_TEST.replace("from proj import base_trainer", "from {package}.engine import loops")


def _findings(root: Path, name: str, code: str) -> list:
    (root / ".git").mkdir(exist_ok=True)
    results = run(sorted(root.rglob("*.py")), Job(use_cache=False), jobs=1)
    (result,) = [r for r in results if Path(r.path).name == name]
    return [f for f in result.findings if f.code == code]


def _namespace_project(root: Path, imported_as: str, base: str = ORBIT_BASE) -> list:
    # `labcode/` has no __init__.py (a namespace package); `labcode/engine/` is a regular package.
    engine = root / "labcode" / "engine"
    engine.mkdir(parents=True)
    (engine / "__init__.py").write_text("")
    (engine / "loops.py").write_text(base)
    (engine / "loops_test.py").write_text(ORBIT_TEST.format(package=imported_as))
    return _findings(root, "loops_test.py", "TFD402")


def test_orbit_base_of_a_class_in_a_namespace_package_is_found(tmp_path):
    assert _namespace_project(tmp_path, "labcode") == []


def test_a_package_name_that_is_no_folder_around_the_module_stays_unresolved(tmp_path):
    # Control: `otherlab` is not a folder of the project: its base class cannot be followed.
    assert len(_namespace_project(tmp_path, "otherlab")) == 1


def test_a_namespace_package_base_that_is_not_orbit_keeps_the_finding(tmp_path):
    plain = ORBIT_BASE.replace("(orbit.StandardTrainer, orbit.StandardEvaluator)", "")
    assert len(_namespace_project(tmp_path, "labcode", plain)) == 1


# --- TFD401: an open requirement near the code, an older release pinned farther up ---------------

COMMUNICATION = """\
import tensorflow as tf

IMPLEMENTATIONS = {
    "ring": tf.distribute.experimental.CollectiveCommunication.RING,
}


def make_strategy():
    return tf.distribute.experimental.MultiWorkerMirroredStrategy()
"""

STEP_RUNNER = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


@tf.function
def step(batch):
    return strategy.experimental_run_v2(lambda x: x * 2, args=(batch,))
"""


def _vendored(root: Path, near: str, far: dict[str, str], module: str = COMMUNICATION) -> list:
    """``root/vendor/lib`` (a package) whose own setup script says ``near``, in a repository
    whose other files say ``far`` (file name relative to ``root`` -> text)."""
    package = root / "vendor" / "lib"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "comms.py").write_text(module)
    (root / "vendor" / "setup.py").write_text(f'from setuptools import setup\nsetup(install_requires=["{near}"])\n')
    for name, text in far.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return _findings(root, "comms.py", "TFD401")


README_LIST = "# Mask project\n\n## Requirements\n\n*   tensorflow_gpu==2.3.1\n*   pillow\n"


def test_a_lower_bound_near_the_code_is_not_enough_when_the_root_readme_pins_an_older_release(tmp_path):
    # The vendored package's `>=2.4.0` admits 2.4 names; the README of the project that vendors
    # it pins 2.3.1, which has only the experimental names: no rename runs on both.
    assert _vendored(tmp_path, "tensorflow>=2.4.0", {"README.md": README_LIST}) == []


def test_a_lower_bound_alone_keeps_its_safe_rename(tmp_path):
    # Control: nothing farther up states a release: the lower bound decides, the renames stay.
    findings = _vendored(tmp_path, "tensorflow>=2.4.0", {"README.md": "# Mask project\n"})
    assert len(findings) == 2
    assert any(f.fix is not None and "CommunicationImplementation" in f.message for f in findings)


def test_an_older_container_farther_up_also_disagrees(tmp_path):
    dockerfile = {"Dockerfile": "FROM tensorflow/tensorflow:2.3.0-gpu\n"}
    assert _vendored(tmp_path, "tensorflow>=2.4.0", dockerfile) == []
    # Control: a container of a release that has the names keeps the rename.
    newer = {"Dockerfile": "FROM tensorflow/tensorflow:2.6.0-gpu\n"}
    assert any(f.fix is not None for f in _vendored(tmp_path / "newer", "tensorflow>=2.4.0", newer))


def test_an_exact_pin_near_the_code_decides_alone(tmp_path):
    # Control: `==2.4.1` is no lower bound: the package pins its release, the README does not move it.
    findings = _vendored(tmp_path, "tensorflow==2.4.1", {"README.md": README_LIST})
    assert any(f.fix is not None and "CommunicationImplementation" in f.message for f in findings)


def test_a_removed_method_whose_new_name_the_older_release_lacks_gets_advice(tmp_path):
    # `experimental_run_v2` is gone from the release the lower bound resolves to, `run` is
    # missing from the 2.1 the root pins: advice that names both, no edit.
    far = {"requirements.txt": "tensorflow==2.1.0\n"}
    (finding,) = _vendored(tmp_path, "tensorflow>=2.4.0", far, STEP_RUNNER)
    assert finding.fix is None
    assert "needs TF 2.2" in finding.message and "requirements.txt:1 states TensorFlow 2.1" in finding.message
    # Control: with an older release that has `run`, the rename is safe on both.
    older = {"requirements.txt": "tensorflow==2.3.0\n"}
    (renamed,) = _vendored(tmp_path / "ok", "tensorflow>=2.4.0", older, STEP_RUNNER)
    assert renamed.fix is not None


# --- TFD403: `tf-nightly` near the code, a release pinned by the enclosing project ----------------

SYNC_BN = """\
import tensorflow as tf


def norm_layer():
    return tf.keras.layers.experimental.SyncBatchNormalization(momentum=0.9)
"""


def _nightly_subproject(root: Path, project_requirements: str) -> list:
    sub = root / "models" / "projects" / "detector"
    sub.mkdir(parents=True)
    (sub / "requirements.txt").write_text("tf-nightly\ngin-config\n")
    (sub / "layers.py").write_text(SYNC_BN)
    (root / "models" / "requirements.txt").write_text(project_requirements)
    return _findings(root, "layers.py", "TFD403")


def test_tf_nightly_of_a_subproject_gives_way_to_the_release_its_project_pins(tmp_path):
    # The project pins TensorFlow 2.12 (Keras 2.12, which has experimental.SyncBatchNormalization).
    assert _nightly_subproject(tmp_path, "tensorflow~=2.12.0\npyyaml\n") == []


def test_tf_nightly_stays_the_current_release_when_the_project_pins_none(tmp_path):
    # Control: an open requirement farther up names no release: the nightly's Keras 3 is judged.
    assert len(_nightly_subproject(tmp_path, "tensorflow>=2.4\npyyaml\n")) == 1


def test_the_target_names_the_older_release_and_forgets_it_when_the_readme_changes(tmp_path):
    from fixer.target.model import target_for

    _vendored(tmp_path, "tensorflow>=2.4.0", {"README.md": README_LIST})
    module = tmp_path / "vendor" / "lib" / "comms.py"
    target = target_for(module)
    assert target.older_from is not None and target.older_from.text.endswith("tensorflow_gpu==2.3.1")
    assert target.floor == (2, 3) and not target.has("tensorflow.distribute.MultiWorkerMirroredStrategy")
    # The README is a file the decision read: editing it invalidates the cached decision.
    (tmp_path / "README.md").write_text("# Mask project\n\n## Requirements\n\n*   tensorflow_gpu==2.5.0\n")
    assert target_for(module).has("tensorflow.distribute.MultiWorkerMirroredStrategy")


def test_a_tensorflow_1_release_farther_up_is_another_program(tmp_path):
    # A `tf2/` folder requiring `tensorflow` below a root pinning 1.15 for the TF 1 code beside it:
    # the TF 2 code never runs on 1.15, so its renames stay safe.
    findings = _vendored(tmp_path, "tensorflow", {"requirements.txt": "tensorflow==1.15.4\n"})
    assert any(f.fix is not None and "CommunicationImplementation" in f.message for f in findings)
    # Control: a TF 2 release farther up still counts.
    assert _vendored(tmp_path / "two", "tensorflow", {"requirements.txt": "tensorflow==2.3.1\n"}) == []
