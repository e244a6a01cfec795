"""Where projects state their TensorFlow outside the walk's pin files (issue 28, ledger8b class 1):
a setup script in a packaging subfolder that builds on its parent's requirements file, a Keras 2
only package required with no TensorFlow named, and a README's requirements bullet list."""

from __future__ import annotations

from fixer.config import Config
from fixer.engine import check_source
from fixer.target import target_for
from fixer.target.readme import read_readme
from tests.project_trees import tree

# Builds its install list from the folder above and adds TensorFlow from a module constant.
CONSTANT_SETUP = """\
import os

release = '3.1'
tf_release = '2.12.0'


def requirements():
    with open(os.path.join(os.path.dirname(__file__), '../requirements.txt')) as f:
        return [line.strip() for line in f if line.strip()]


needed = requirements()
if nightly_build:
    needed.append('tf-nightly')
else:
    needed.append(f'tensorflow~={tf_release}')
"""

# The same shape with a literal, open above, beside a nightly variant on one line.
LITERAL_SETUP = """\
from pathlib import Path

needed = (Path(__file__).parent.parent / "requirements.txt").read_text().split()
needed.append("tf-nightly" if nightly_build else "tensorflow>=2.4.0")
"""

# A packaging script of its own: it does not read the folder above's requirements.
STANDALONE_SETUP = "needed = ['tensorflow==2.6.0']\n"

SYNC_BN = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    norm = tf.keras.layers.experimental.SyncBatchNormalization(momentum=0.9)
"""


def test_a_packaging_subfolders_setup_script_states_the_parents_tensorflow(tmp_path):
    root = tree(
        tmp_path,
        {
            "lib/requirements.txt": "numpy\n",
            "lib/pip_package/setup.py": CONSTANT_SETUP,
            "lib/vision/layers.py": "",
        },
    )
    target = target_for(root / "lib" / "vision" / "layers.py")
    assert (target.version, target.keras, target.assumed) == ((2, 12), 2, False)
    assert target.tensorflow_from is not None and target.tensorflow_from.text == "tensorflow~=2.12.0"


def test_a_literal_beside_a_nightly_variant_is_capped_by_the_parents_addons(tmp_path):
    root = tree(
        tmp_path,
        {
            "lib/requirements.txt": "numpy\ntensorflow-addons\n",
            "lib/pip_package/setup.py": LITERAL_SETUP,
            "lib/vision/layers.py": "",
        },
    )
    target = target_for(root / "lib" / "vision" / "layers.py")
    assert (target.version, target.keras) == ((2, 15), 2)
    assert target.tensorflow_from is not None and target.tensorflow_from.text == "tensorflow>=2.4.0"


def test_a_setup_script_that_does_not_build_on_the_parent_or_sits_elsewhere_is_not_read(tmp_path):
    standalone = tree(
        tmp_path / "a",
        {"lib/requirements.txt": "numpy\n", "lib/pip_package/setup.py": STANDALONE_SETUP, "lib/x.py": ""},
    )
    elsewhere = tree(
        tmp_path / "b",
        {"lib/requirements.txt": "numpy\n", "lib/tools/setup.py": CONSTANT_SETUP, "lib/x.py": ""},
    )
    assert target_for(standalone / "lib" / "x.py").assumed
    assert target_for(elsewhere / "lib" / "x.py").assumed


def test_tfd403_follows_the_packaging_script(tmp_path):
    files = {"lib/requirements.txt": "numpy\n", "lib/vision/layers.py": SYNC_BN}
    stated = tree(tmp_path / "a", {**files, "lib/pip_package/setup.py": CONSTANT_SETUP})
    unstated = tree(tmp_path / "b", files)
    select = Config(select=("TFD403",))
    assert check_source(str(stated / "lib/vision/layers.py"), SYNC_BN, select).findings == []
    assert [f.code for f in check_source(str(unstated / "lib/vision/layers.py"), SYNC_BN, select).findings] == [
        "TFD403"
    ]


def test_a_keras_2_only_package_with_no_tensorflow_named_means_keras_2(tmp_path):
    addons = tree(tmp_path / "a", {"requirements.txt": "numpy\ntensorflow-addons\n", "x.py": ""})
    plain = tree(tmp_path / "b", {"requirements.txt": "numpy\n", "x.py": ""})
    target = target_for(addons / "x.py")
    assert (target.keras, target.assumed) == (2, True)
    assert target.keras2_from is not None and target.keras2_from.text == "tensorflow-addons"
    assert target_for(plain / "x.py").keras == 3


README_LIST = """\
# Mask detection

Trained on two GPUs with tensorflow == 2.9 in an earlier version (prose: not a statement).

## Requirements

*   tensorflow_gpu==2.3.1
*   tensorflow_addons==0.10.0

## Results
"""

README_SPACED = """\
Requirements:
* tensorflow == 2.3.1
* numpy
"""

README_ELSEWHERE = """\
## Benchmarks

* tensorflow==2.9.0: 120 images/s
* tensorflow>=2.4 works too
"""


def test_a_readme_requirements_bullet_list_names_the_tensorflow():
    listed = read_readme(README_LIST, "README.md")
    assert [(e.kind, e.line, e.allowed.newest()) for e in listed] == [("tensorflow", 7, (2, 3))]
    spaced = read_readme(README_SPACED, "README.md")
    assert [(e.line, e.allowed.newest()) for e in spaced] == [(2, (2, 3))]


def test_a_chinese_environment_heading_opens_the_list_too():
    readme = "# 剪枝\n\n## 运行环境\n\n* python == 3.7\n* tensorflow == 2.3.1\n\n## 结果\n\n* tensorflow==2.9.0\n"
    assert [(e.line, e.allowed.newest()) for e in read_readme(readme, "README.md")] == [(6, (2, 3))]


def test_bullets_under_another_heading_in_code_or_open_say_nothing():
    assert read_readme(README_ELSEWHERE, "README.md") == []
    fenced = "## Requirements\n\n```\n* tensorflow==2.3.1\n```\n"
    assert read_readme(fenced, "README.md") == []
    open_range = "## Requirements\n\n* tensorflow>=2.3\n"
    assert read_readme(open_range, "README.md") == []


MWMS = """\
import tensorflow as tf

strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
"""


def test_tfd401_renames_nothing_that_the_listed_release_lacks(tmp_path):
    listed = tree(tmp_path / "a", {"README.md": README_LIST, "train.py": MWMS})
    unlisted = tree(tmp_path / "b", {"README.md": README_ELSEWHERE, "train.py": MWMS})
    select = Config(select=("TFD401",))
    # TF 2.3 has only the experimental name (MultiWorkerMirroredStrategy arrived in 2.4).
    assert check_source(str(listed / "train.py"), MWMS, select).findings == []
    assert [f.code for f in check_source(str(unlisted / "train.py"), MWMS, select).findings] == ["TFD401"]


SDK_SETUP = """\
from setuptools import setup

setup(
    name="jobsdk",
    install_requires=["requests"],
    extras_require={
        "tf2": ["tensorflow>=2.12.0,<2.15.0", "tensorflow-estimator"],
        "torch": ["torch"],
    },
)
"""

IMAGE_WITH_EXTRA = """\
FROM python:3.9
COPY ./sdk/python /opt/sdk
RUN pip install --no-cache-dir /opt/sdk/.[tf2]
COPY train.py /opt/train.py
"""


def test_an_image_installing_the_repositorys_package_with_an_extra_gets_that_extras_tensorflow(tmp_path):
    root = tree(
        tmp_path,
        {
            "sdk/python/setup.py": SDK_SETUP,
            "examples/quick/Dockerfile": IMAGE_WITH_EXTRA,
            "examples/quick/train.py": "",
        },
    )
    target = target_for(root / "examples" / "quick" / "train.py")
    assert (target.version, target.keras) == ((2, 14), 2)
    assert target.tensorflow_from is not None and target.tensorflow_from.path.endswith("setup.py")


# The build script copies the repository's `sdk` folder into `./staging/` first; COPY of a folder
# copies its contents, so `/srv/python` is the repository's `sdk/python`.
STAGED_IMAGE = """\
FROM python:3.9
COPY ./staging/sdk /srv/
RUN pip install "/srv/python/.[tf2]"
"""


def test_a_package_copied_through_a_staging_folder_is_found_by_its_own_folders(tmp_path):
    root = tree(tmp_path, {"sdk/python/setup.py": SDK_SETUP, "jobs/Dockerfile": STAGED_IMAGE, "jobs/train.py": ""})
    assert target_for(root / "jobs" / "train.py").version == (2, 14)


def test_another_extra_or_an_uncopied_path_names_no_tensorflow(tmp_path):
    other = tree(
        tmp_path / "a",
        {"sdk/python/setup.py": SDK_SETUP, "Dockerfile": IMAGE_WITH_EXTRA.replace("[tf2]", "[torch]"), "x.py": ""},
    )
    uncopied = tree(
        tmp_path / "b",
        {
            "sdk/python/setup.py": SDK_SETUP,
            "Dockerfile": IMAGE_WITH_EXTRA.replace("/opt/sdk/.", "/srv/other/."),
            "x.py": "",
        },
    )
    assert target_for(other / "x.py").assumed
    assert target_for(uncopied / "x.py").assumed


BUILD_VENV = """\
#!/bin/bash
set -e
python3 tools/virtualenv.py old-venv
. old-venv/bin/activate
pip3 install tensorflow==1.15.5
virtualenv -p python3 tf2-venv
source tf2-venv/bin/activate
pip3 install tensorflow==2.1.0 numpy
zip -r tf2-venv.zip tf2-venv
"""

RUN_JOB = """\
#!/bin/bash
launcher --num_workers 2 \\
  --worker_launch_cmd "tf2-venv.zip/tf2-venv/bin/python mnist_tf2.py --steps 10"
"""

PS_WITHOUT_RESOLVER = """\
import tensorflow as tf

strategy = tf.distribute.experimental.ParameterServerStrategy()
"""


def test_a_file_launched_with_a_shipped_virtualenvs_python_runs_its_tensorflow(tmp_path):
    root = tree(
        tmp_path,
        {
            "jobs/build_venv.sh": BUILD_VENV,
            "jobs/run_job.sh": RUN_JOB,
            "jobs/mnist_tf2.py": PS_WITHOUT_RESOLVER,
            "jobs/other.py": PS_WITHOUT_RESOLVER,
        },
    )
    launched = target_for(root / "jobs" / "mnist_tf2.py")
    assert (launched.version, launched.keras) == ((2, 1), 2)
    assert launched.tensorflow_from is not None and launched.tensorflow_from.path.endswith("build_venv.sh")
    assert target_for(root / "jobs" / "other.py").assumed  # not launched: the folder's own (nothing)
    select = Config(select=("TFD604",))
    # TF 2.1's Estimator-era ParameterServerStrategy() reads TF_CONFIG: no resolver needed there.
    assert check_source(str(root / "jobs" / "mnist_tf2.py"), PS_WITHOUT_RESOLVER, select).findings == []
    assert [f.code for f in check_source(str(root / "jobs" / "other.py"), PS_WITHOUT_RESOLVER, select).findings] == [
        "TFD604"
    ]


def test_a_virtualenv_without_a_tensorflow_install_decides_nothing(tmp_path):
    build = BUILD_VENV.replace("tensorflow==2.1.0 ", "")
    root = tree(tmp_path, {"build_venv.sh": build, "run_job.sh": RUN_JOB, "mnist_tf2.py": ""})
    assert target_for(root / "mnist_tf2.py").assumed
