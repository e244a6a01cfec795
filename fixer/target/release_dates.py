"""When each TensorFlow minor release first reached PyPI: the earliest upload of any of its files
(`benchmarks/probe_tensorflow_release_dates.py` prints this table from PyPI's release data;
measured 2026-11-27). 2.16's first upload is 2.16.1 (2.16.0 has no files), 1.13's is 1.13.1.

A date turns into the newest release out by then: an image built on that day cannot ship a later
one (it may ship an earlier one), so the version is an upper bound, which is what the renames
(`Target.has`) and the Keras of a release (2 below 2.16) need.
"""

from __future__ import annotations

import datetime

FIRST_UPLOAD: tuple[tuple[tuple[int, int], str], ...] = (
    ((1, 0), "2017-02-15"), ((1, 1), "2017-04-21"), ((1, 2), "2017-06-15"), ((1, 3), "2017-08-16"),
    ((1, 4), "2017-11-01"), ((1, 5), "2018-01-26"), ((1, 6), "2018-03-01"), ((1, 7), "2018-03-29"),
    ((1, 8), "2018-04-28"), ((1, 9), "2018-07-10"), ((1, 10), "2018-08-08"), ((1, 11), "2018-09-27"),
    ((1, 12), "2018-11-06"), ((1, 13), "2019-02-26"), ((1, 14), "2019-06-19"), ((2, 0), "2019-09-30"),
    ((1, 15), "2019-10-16"), ((2, 1), "2020-01-08"), ((2, 2), "2020-05-07"), ((2, 3), "2020-07-27"),
    ((2, 4), "2020-12-14"), ((2, 5), "2021-05-13"), ((2, 6), "2021-08-11"), ((2, 7), "2021-11-04"),
    ((2, 8), "2022-02-02"), ((2, 9), "2022-05-16"), ((2, 10), "2022-09-06"), ((2, 11), "2022-11-18"),
    ((2, 12), "2023-03-22"), ((2, 13), "2023-07-05"), ((2, 14), "2023-09-26"), ((2, 15), "2023-11-14"),
    ((2, 16), "2024-03-09"), ((2, 17), "2024-07-11"), ((2, 18), "2024-10-25"), ((2, 19), "2025-03-12"),
    ((2, 20), "2025-08-13"), ((2, 21), "2026-03-06"),
)  # fmt: skip


def newest_released_by(day: datetime.date) -> tuple[int, int] | None:
    """The highest TensorFlow version uploaded to PyPI on or before ``day``; None before 1.0 and
    after the table's last measurement (a release may have come out since: not known)."""
    if day > datetime.date(2026, 11, 27):
        return None
    out = [version for version, date in FIRST_UPLOAD if datetime.date.fromisoformat(date) <= day]
    return max(out) if out else None
