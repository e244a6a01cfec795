"""An MLPerf results submission states its TensorFlow in `<submitter>/systems/<system>.json`'s
`"framework"` field, for the code under `<submitter>/benchmarks/` (issue 28, ledger16b class 1a)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from fixer.config import Config
from fixer.engine import check_source
from fixer.target import target_for

if TYPE_CHECKING:
    from pathlib import Path

LOOP = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
dataset = strategy.experimental_distribute_datasets_from_function(make_input)
"""

CODE = "acme/benchmarks/resnet/implementations/tf/common/loop.py"


def _system(framework: str | None, name: str = "box-8x.json") -> dict[str, str]:
    fields = {"submitter": "acme", "system_name": name.removesuffix(".json"), "number_of_nodes": "1"}
    if framework is not None:
        fields["framework"] = framework
    return {f"acme/systems/{name}": json.dumps(fields, indent=4)}


def _submission(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for name, text in {CODE: LOOP, **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root / CODE


def test_a_systems_framework_release_decides_the_benchmarks_code(tmp_path: Path):
    code = _submission(tmp_path, _system("TensorFlow 2.2.2"))
    target = target_for(code)
    assert target.version == (2, 2) and target.keras == 2
    assert target.tensorflow_from is not None and target.tensorflow_from.path.endswith("box-8x.json")
    assert not target.has("tensorflow.distribute.MultiWorkerMirroredStrategy")


def test_no_rename_to_a_name_the_declared_release_lacks(tmp_path: Path):
    select = Config(select=("TFD401",))
    declared = _submission(tmp_path / "a", _system("TensorFlow 2.2.2"))
    assert check_source(str(declared), LOOP, select).findings == []  # 2.2 has only the experimental name
    undeclared = _submission(tmp_path / "b", _system(None))
    assert [f.code for f in check_source(str(undeclared), LOOP, select).findings] == ["TFD401"]


def test_other_spellings_of_a_release(tmp_path: Path):
    assert target_for(_submission(tmp_path / "a", _system("Tensorflow v2.8.0"))).version == (2, 8)
    assert target_for(_submission(tmp_path / "b", _system("tensorflow-2.5.1"))).version == (2, 5)


def test_several_systems_the_oldest_decides(tmp_path: Path):
    systems = {**_system("TensorFlow 2.8.0", "big.json"), **_system("TensorFlow 2.5.1", "small.json")}
    assert target_for(_submission(tmp_path, systems)).version == (2, 5)


def test_editing_a_systems_json_invalidates_the_folders_target(tmp_path: Path):
    code = _submission(tmp_path, _system("TensorFlow 2.2.2"))
    assert target_for(code).version == (2, 2)
    (tmp_path / "acme/systems/box-8x.json").write_text(json.dumps({"framework": "TensorFlow 2.10.1", "n": 12}))
    assert target_for(code).version == (2, 10)
    (tmp_path / "acme/systems/older.json").write_text(json.dumps({"framework": "TensorFlow 2.3.0"}))
    assert target_for(code).version == (2, 3)  # a system added changes the folder too


def test_controls_a_framework_without_a_release_says_nothing(tmp_path: Path):
    for folder, framework in [
        ("none", None),  # a json without "framework"
        ("family", "tf2.0"),  # a family name: Google's v0.7 systems, for code built on a 2.3 nightly
        ("x", "TF 2.x"),
        ("bare", "TensorFlow"),
        ("vendor", "TensorFlow NVIDIA Release 21.05"),  # the container's numbering, not TensorFlow's
        ("ngc", "NGC MXNet 21.05 , NGC PyTorch 21.05 , NGC TensorFlow 21.05-tf1"),
        ("torch", "PyTorch 1.9.0"),
    ]:
        assert target_for(_submission(tmp_path / folder, _system(framework))).assumed, framework


def test_control_systems_json_outside_a_submission_layout(tmp_path: Path):
    """A `systems/` folder beside no `benchmarks/` is some other project's configuration."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "lab/systems").mkdir(parents=True)
    (tmp_path / "lab/systems/gpu.json").write_text(json.dumps({"framework": "TensorFlow 2.2.2"}))
    (tmp_path / "lab/train.py").write_text(LOOP)
    assert target_for(tmp_path / "lab/train.py").assumed
