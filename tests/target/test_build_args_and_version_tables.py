"""A TensorFlow pip spec passed as an image build argument (MLPerf v0.7's PerfZero builds) and a
README table column headed "TensorFlow Version(s)" (Habana's Model-References) state the TensorFlow
of the code they document (issue 28, ledger16b classes 1b and 1c)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from fixer.target import target_for
from fixer.target.requirements import parse_requirement

if TYPE_CHECKING:
    from pathlib import Path

BUILD = """\
# Language model benchmark

## Running

Build the image with our pinned nightly:

```
docker build \\
  --pull \\
  -t bench/tf \\
  --build-arg tf_spec=tf-nightly-gpu==2.3.0.dev20200701 \\
  -f ./Dockerfile_generic ./ctx
```
"""

TABLE = """\
# Image classifier for the accelerator

## Supported configuration

| Validated on | Runtime Release | TensorFlow Version(s) | Mode |
|:---:|:---:|:---:|:---:|
| Card-A | 3.1.0 | 2.12.0 | Training |
| Card-B | 3.2.0 | 2.13.0 | Training |

## Changelog
"""


def _tree(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_a_dated_nightly_pin_is_its_release():
    named = parse_requirement("tf-nightly-gpu==2.3.0.dev20200620")
    assert named is not None and named.kind == "tensorflow" and named.allowed.newest() == (2, 3)
    bare = parse_requirement("tf-nightly-gpu")
    assert bare is not None and bare.kind == "tf-nightly"  # control: today's nightly, no release


def test_a_readme_build_argument_decides(tmp_path: Path):
    root = _tree(tmp_path, {"bench/README.md": BUILD, "bench/train.py": "import tensorflow as tf\n"})
    target = target_for(root / "bench/train.py")
    assert target.version == (2, 3)
    assert target.tensorflow_from is not None and target.tensorflow_from.path.endswith("README.md")


def test_a_dockerfile_argument_default_decides(tmp_path: Path):
    dockerfile = "FROM ubuntu:20.04\nARG tf_spec=tensorflow-gpu==2.4.1\nRUN pip install ${tf_spec}\n"
    root = _tree(tmp_path, {"bench/Dockerfile": dockerfile, "bench/train.py": "import tensorflow as tf\n"})
    assert target_for(root / "bench/train.py").version == (2, 4)


def test_controls_prose_and_unpinned_build_arguments_say_nothing(tmp_path: Path):
    prose = "# Bench\n\nWe built the image from a tf-nightly wheel of late June.\n"
    unpinned = BUILD.replace("tf-nightly-gpu==2.3.0.dev20200701", "tf-nightly-gpu")
    other = BUILD.replace("tf-nightly-gpu==2.3.0.dev20200701", "numpy==1.19.0")
    for name, readme in [("prose", prose), ("unpinned", unpinned), ("other", other)]:
        root = _tree(tmp_path / name, {"bench/README.md": readme, "bench/train.py": "import tensorflow as tf\n"})
        assert target_for(root / "bench/train.py").assumed, name


def test_a_systems_readme_beside_the_implementations_folder(tmp_path: Path):
    """MLPerf v0.7: `<bench>/<system>/README.md` documents `<bench>/implementations/<impl>/`."""
    root = _tree(
        tmp_path,
        {
            "acme/systems/pod-32-TF2.0.json": json.dumps({"framework": "tf2.0"}),
            "acme/benchmarks/lm/pod-32-TF2.0/README.md": BUILD,
            "acme/benchmarks/lm/card-8-TF2.0/README.md": BUILD.replace("2.3.0.dev20200701", "2.2.0.dev20200401"),
            "acme/benchmarks/lm/implementations/lm-cloud-TF2.0-pod-32/common/loop.py": "import tensorflow as tf\n",
            "acme/benchmarks/lm/implementations/lm-cloud-TF2.0-card-8/common/loop.py": "import tensorflow as tf\n",
        },
    )
    implementations = root / "acme/benchmarks/lm/implementations"
    assert target_for(implementations / "lm-cloud-TF2.0-pod-32/common/loop.py").version == (2, 3)
    assert target_for(implementations / "lm-cloud-TF2.0-card-8/common/loop.py").version == (2, 2)
    readme = root / "acme/benchmarks/lm/pod-32-TF2.0/README.md"
    readme.write_text(BUILD.replace("2.3.0.dev20200701", "2.4.0.dev20200901"))  # an edit invalidates
    assert target_for(implementations / "lm-cloud-TF2.0-pod-32/common/loop.py").version == (2, 4)


def test_a_version_table_decides_oldest_row(tmp_path: Path):
    root = _tree(
        tmp_path,
        {"vision/README.md": TABLE, "vision/requirements.txt": "PyYAML==6.0\n", "vision/train.py": "import os\n"},
    )
    target = target_for(root / "vision/train.py")
    assert target.version == (2, 12) and target.keras == 2
    (root / "vision/README.md").write_text(TABLE.replace("| 2.12.0 |", "| 2.11.0 |"))  # an edit invalidates
    assert target_for(root / "vision/train.py").version == (2, 11)


def test_controls_a_table_without_the_tensorflow_header_says_nothing(tmp_path: Path):
    other = TABLE.replace("TensorFlow Version(s)", "Framework Release")
    family = TABLE.replace("| 2.12.0 |", "| 2.x |").replace("| 2.13.0 |", "| >= 2.12 |")
    for name, readme in [("header", other), ("family", family)]:
        root = _tree(tmp_path / name, {"vision/README.md": readme, "vision/train.py": "import os\n"})
        assert target_for(root / "vision/train.py").assumed, name
