"""What caps the TensorFlow a project with an open requirement installs (docs/target.md, "Versions
stated outside pin files"): the newest TensorFlow pip finds for each old Python, the TensorFlow
range TensorFlow Addons' last release declares, and which other packages of
fixer/target/versions.py KERAS2_PACKAGES are built on it. Needs network access to the package index.

Run: python benchmarks/probe_tensorflow_caps.py
Measured 2026-11-27: Python 3.5 -> 2.3.1, 3.6 -> 2.6.2, 3.7 -> 2.11.0, 3.8 -> 2.13.1, 3.9 -> 2.20.0;
tensorflow-addons 0.23.0: INCLUSIVE_MIN_TF_VERSION 2.13.0, EXCLUSIVE_MAX_TF_VERSION 2.16.0, and
`import tensorflow_addons` under this TensorFlow (2.21, Keras 3) raises
`ModuleNotFoundError: No module named 'keras.src.engine'`;
uncertainty-baselines 0.0.7 (the last wheel): Requires-Dist names `tf-nightly` (no ceiling: the
published metadata does not tell), its `uncertainty_baselines/optimizers.py` imports
tensorflow_addons, and `import uncertainty_baselines` under TensorFlow 2.21 with tensorflow-addons
0.23.0 beside it has no `optimizers` (the import error is caught and logged by its `__init__`).
"""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
import tempfile
import zipfile

PYTHONS = ("3.5", "3.6", "3.7", "3.8", "3.9")
_PIP = [sys.executable, "-m", "pip"]


def newest_for(python: str) -> str:
    """The newest tensorflow wheel pip finds for ``python`` on manylinux x86_64."""
    listed = subprocess.run(
        [
            *_PIP,
            "index",
            "versions",
            "tensorflow",
            "--python-version",
            python,
            "--only-binary=:all:",
            "--platform",
            "manylinux2014_x86_64",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    found = re.search(r"^tensorflow \(([^)]+)\)", listed.stdout, re.M)
    return found.group(1) if found else f"not found ({listed.stderr.strip().splitlines()[-1:]})"


_IMPORT = """
import os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
try:
    import tensorflow_addons
    print(f"import tensorflow_addons under TensorFlow {tf.__version__}: ok")
except Exception as error:
    print(f"import tensorflow_addons under TensorFlow {tf.__version__}: {type(error).__name__}: {error}")
"""


def addons_range() -> list[tuple[str, str]]:
    """The TensorFlow bounds tensorflow_addons/version.py of the last release states, and what
    importing it under this interpreter's TensorFlow does (the wheel unpacked, not installed)."""
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(
            [*_PIP, "download", "tensorflow-addons==0.23.0", "--no-deps", "--only-binary=:all:", "-q", "-d", folder],
            capture_output=True,
            check=False,
        )
        wheels = glob.glob(f"{folder}/*.whl")
        if not wheels:
            return [("download", "failed")]
        wheel = zipfile.ZipFile(wheels[0])
        text = wheel.read("tensorflow_addons/version.py").decode()
        wheel.extractall(folder)
        env = {**os.environ, "PYTHONPATH": folder}
        ran = subprocess.run([sys.executable, "-c", _IMPORT], capture_output=True, text=True, env=env, check=False)
        print(ran.stdout.strip() or ran.stderr.strip().splitlines()[-1])
        return re.findall(r"(\w+_TF_VERSION)\s*=\s*\"([^\"]+)\"", text)


_IMPORT_UB = """
import os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
import uncertainty_baselines as ub
print(f"import uncertainty_baselines under TensorFlow {tf.__version__}: has optimizers: {hasattr(ub, 'optimizers')}")
"""


def keras2_package(distribution: str, version: str) -> None:
    """What the wheel of ``distribution`` declares (Requires-Dist), which of its modules import
    tensorflow_addons, and whether its import under this TensorFlow keeps its optimizers module
    (tensorflow-addons 0.23.0 unpacked beside it)."""
    with tempfile.TemporaryDirectory() as folder:
        for wanted in (f"{distribution}=={version}", "tensorflow-addons==0.23.0"):
            subprocess.run(
                [*_PIP, "download", wanted, "--no-deps", "--only-binary=:all:", "-q", "-d", folder],
                capture_output=True,
                check=False,
            )
        wheels = sorted(glob.glob(f"{folder}/*.whl"))
        if len(wheels) != 2:
            print(f"{distribution} {version}: download failed")
            return
        for path in wheels:
            zipfile.ZipFile(path).extractall(folder)
        wheel = zipfile.ZipFile(next(w for w in wheels if "addons" not in w))
        metadata = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
        requires = [line for line in wheel.read(metadata).decode().splitlines() if line.startswith("Requires-Dist")]
        print(f"{distribution} {version}: " + "; ".join(requires))
        for name in wheel.namelist():
            if name.endswith(".py") and re.search(r"(?m)^import tensorflow_addons", wheel.read(name).decode()):
                print(f"{distribution} {version}: {name} imports tensorflow_addons")
        env = {**os.environ, "PYTHONPATH": folder}
        ran = subprocess.run([sys.executable, "-c", _IMPORT_UB], capture_output=True, text=True, env=env, check=False)
        print(ran.stdout.strip() or ran.stderr.strip().splitlines()[-1])


def main() -> None:
    for python in PYTHONS:
        print(f"Python {python}: newest tensorflow {newest_for(python)}")
    for name, value in addons_range():
        print(f"tensorflow-addons 0.23.0 {name} = {value}")
    keras2_package("uncertainty-baselines", "0.0.7")


if __name__ == "__main__":
    main()
