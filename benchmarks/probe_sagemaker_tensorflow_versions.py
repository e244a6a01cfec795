"""Which TensorFlow each release of the SageMaker TensorFlow extension (`sagemaker-tensorflow`) is
built for: the rule `fixer/target/script_installs.py` applies (the first two numbers of its version
are the TensorFlow release: `sagemaker-tensorflow==2.1.0.1.0.0` is TensorFlow 2.1; docs/target.md).
Needs network access to PyPI (the package's JSON release data, one request).

The package's index page carries a release table ("Sagemaker TensorFlow Extensions PyPI Version |
Release Version | TensorFlow Release Version | Python Versions"). The probe reads that table and
every release uploaded, and checks that each release's first two numbers are the TensorFlow
release of its table row.

Run: python benchmarks/probe_sagemaker_tensorflow_versions.py
Measured 2026-11-27: 49 releases from 1.7.0.1.0.0 to 2.14.0.1.20.0; the table's 18 rows
(2.14.0.1.20.x: 2.14.0, ..., 2.3.0.1.6.1: 2.3.0, 2.2.0.1.0.0: 2.2, 2.1.0.1.0.0: 2.1, 2.0.0.1.0.0:
2.0, 1.15.0.1.0.0: 1.15, 1.14.0.1.0.0: "1.14, 1.13") cover 20 of them, and every one agrees with
the rule (for the 1.14 row, the newer of the two releases it names); the other 29 (older 1.x,
other builds such as 2.3.0.1.0.0) are not in the table. Prints "rule agrees" or each difference.
"""

from __future__ import annotations

import json
import re
import urllib.request

_ROW = re.compile(r"^\s*\* - (?P<pypi>\d[\w.]*)\s*\n\s*- (?P<release>v[\w.]+)\s*\n\s*- (?P<tensorflow>[\d., ]+)$", re.M)


def package_data() -> dict[str, object]:
    with urllib.request.urlopen("https://pypi.org/pypi/sagemaker-tensorflow/json", timeout=60) as response:
        data: dict[str, object] = json.load(response)
    return data


def first_two(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def main() -> None:
    data = package_data()
    info = data["info"]
    releases = data["releases"]
    assert isinstance(info, dict) and isinstance(releases, dict)
    rows = [(m.group("pypi"), m.group("tensorflow").strip()) for m in _ROW.finditer(info["description"])]
    uploaded = sorted(
        (v for v, files in releases.items() if files), key=lambda v: tuple(map(int, re.findall(r"\d+", v)))
    )
    print(f"{len(uploaded)} releases: {uploaded[0]} .. {uploaded[-1]}")
    differences = []
    for pypi, tensorflow in rows:
        named = [first_two(v.strip()) for v in tensorflow.split(",")]
        prefix = pypi.removesuffix("x")  # `2.14.0.1.20.x`: every release of that line
        members = [v for v in uploaded if v == pypi or (pypi.endswith("x") and v.startswith(prefix))]
        print(f"row {pypi}: TensorFlow {tensorflow}; releases {members}")
        for release in members:
            if first_two(release) != max(named):
                differences.append((release, tensorflow))
    outside = [v for v in uploaded if not any(v == p or (p.endswith("x") and v.startswith(p[:-1])) for p, _ in rows)]
    print(f"releases the table does not list: {outside}")
    print("rule agrees" if not differences else f"differences: {differences}")


if __name__ == "__main__":
    main()
