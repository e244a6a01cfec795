"""A printed TensorFlow release the notebook still ran on long after newer ones came out: its
environment is frozen on that release, which is then the notebook's target, not merely a past run.

A saved output printing TF 2.2 usually says only where the notebook last ran (saved_runs.py): a
rerun today gets today's TensorFlow. The cell's own record of when it ran changes that. Jupyter
records each cell's run times in its metadata (`execution`: `iopub.execute_input`, ... with
JupyterLab's record-timing and on Kaggle; `papermill`: `start_time` / `end_time` under papermill).
Platform images take up a new TensorFlow within months of its release, so a kernel that printed
2.2 on a day more than a year after TF 2.3 first reached PyPI (release_dates.py, measured) had
not been updated and will not be: a pinned image (Kaggle's "pin to original environment", whose
notebooks carry `kaggle.dockerImageVersionId`) or an environment kept on that release on purpose.
A rename to a name that release lacks breaks the notebook where it runs.

The signal is the printing cell's own date, so the release and the day come from one run; a run
within the year of the next release stays a past run (an image may lag a release by months).
Read as text from the notebook JSON, never executed.
"""

from __future__ import annotations

import datetime
import re

from fixer.target.release_dates import FIRST_UPLOAD

# How long after a newer release a platform image may still hold the older one: images are
# rebuilt a few times a year; a year leaves room for the slowest.
_MARGIN = datetime.timedelta(days=365)
# The date of an ISO timestamp (`2025-11-28T17:14:40.310276Z`).
_DAY = re.compile(r"^(?P<day>\d{4}-\d{2}-\d{2})T")
_PAPERMILL_TIMES = ("start_time", "end_time")


def run_day(cell: dict[str, object]) -> datetime.date | None:
    """The latest day the cell's metadata records it running (Jupyter's `execution`, papermill's
    times); None when it records none."""
    metadata = cell.get("metadata")
    if not isinstance(metadata, dict):
        return None
    stamps: list[object] = []
    execution = metadata.get("execution")
    if isinstance(execution, dict):
        stamps += execution.values()
    papermill = metadata.get("papermill")
    if isinstance(papermill, dict):
        stamps += [papermill.get(key) for key in _PAPERMILL_TIMES]
    days: list[datetime.date] = []
    for stamp in stamps:
        match = _DAY.match(stamp) if isinstance(stamp, str) else None
        if match is not None:
            try:
                days.append(datetime.date.fromisoformat(match.group("day")))
            except ValueError:
                continue
    return max(days, default=None)


def _next_release(version: tuple[int, int]) -> tuple[tuple[int, int], datetime.date] | None:
    """The first TensorFlow release after ``version`` in the same major, with its first upload."""
    later = [(v, datetime.date.fromisoformat(day)) for v, day in FIRST_UPLOAD if v[0] == version[0] and v > version]
    return min(later, default=None)


def frozen_note(version: tuple[int, int], cell: dict[str, object]) -> str | None:
    """Why the kernel that printed ``version`` in ``cell`` is frozen on it (`run 2025-11-28, TF 2.3
    out since 2020-07-27`); None when the cell has no run date or ran within a year of the next
    release (or no newer release is known)."""
    day = run_day(cell)
    newer = _next_release(version)
    if day is None or newer is None or day < newer[1] + _MARGIN:
        return None
    (major, minor), since = newer
    return f"run {day.isoformat()}, TF {major}.{minor} out since {since.isoformat()}"
