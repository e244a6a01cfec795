"""When each TensorFlow minor release first reached PyPI: the table `fixer/target/release_dates.py`
keeps (a notebook pinned to the platform image of a given day runs a TensorFlow released by then;
docs/target.md, "A notebook pinned to the image of its first publication"). Needs network access
to PyPI (its JSON release data, one request).

Run: python benchmarks/probe_tensorflow_release_dates.py
Measured 2026-11-27 (first upload of any file of the minor release):

    1.0 2017-02-15   1.1 2017-04-21   ...   1.13 2019-02-26 (1.13.1)   1.14 2019-06-19
    2.0 2019-09-30   1.15 2019-10-16  2.1 2020-01-08   2.2 2020-05-07   2.3 2020-07-27
    2.4 2020-12-14   2.5 2021-05-13   2.6 2021-08-11   2.7 2021-11-04   2.8 2022-02-02
    2.9 2022-05-16   2.10 2022-09-06  2.11 2022-11-18  2.12 2023-03-22  2.13 2023-07-05
    2.14 2023-09-26  2.15 2023-11-14  2.16 2024-03-09 (2.16.1)  2.17 2024-07-11
    2.18 2024-10-25  2.19 2025-03-12  2.20 2025-08-13  2.21 2026-03-06

and whether it agrees with the table (prints "table agrees" or each difference).
"""

from __future__ import annotations

import json
import os
import re
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fixer.target.release_dates import FIRST_UPLOAD  # noqa: E402


def first_uploads() -> dict[tuple[int, int], tuple[str, str]]:
    """(major, minor) -> (first upload day, the release it was) from PyPI's JSON for tensorflow."""
    with urllib.request.urlopen("https://pypi.org/pypi/tensorflow/json", timeout=60) as response:
        releases = json.load(response)["releases"]
    first: dict[tuple[int, int], tuple[str, str]] = {}
    for version, files in releases.items():
        match = re.fullmatch(r"(\d+)\.(\d+)\.\d+", version)
        if match is None or not files:
            continue
        key = (int(match.group(1)), int(match.group(2)))
        day = min(f["upload_time_iso_8601"] for f in files)[:10]
        if key not in first or day < first[key][0]:
            first[key] = (day, version)
    return first


def main() -> None:
    measured = first_uploads()
    for key in sorted(measured):
        print(f"{key[0]}.{key[1]} {measured[key][0]} ({measured[key][1]})")
    differences = [(v, d, measured.get(v)) for v, d in FIRST_UPLOAD if measured.get(v, ("",))[0] != d]
    print("table agrees" if not differences else f"differences: {differences}")


if __name__ == "__main__":
    main()
