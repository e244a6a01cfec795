"""A notebook platform's per-notebook metadata that pins a notebook to the platform image of its
first publication: Kaggle's `kernel-metadata.json` and a course's `track_meta.py` (a list of
per-notebook entries) with `docker_image_pinning_type` "original".

The image of that day is what runs the notebook, whatever its folder pins. When the entry gives a
date (`2020-06-16`), the image ships at most the newest TensorFlow on PyPI by then
(fixer/target/release_dates.py, measured); when it gives only a kernel id, no release can be told
offline, and the version is unknown (not the newest): `Target.version_unknown`. Read as text or
JSON, never executed.
"""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path

from fixer.target.release_dates import newest_released_by
from fixer.target.requirements import Range
from fixer.target.small_files import read_small_text
from fixer.target.sources import Evidence, exactly, line_of

METADATA_NAMES = ("kernel-metadata.json", "track_meta.py")
_ORIGINAL = re.compile(r"""["']?docker_image_pinning_type["']?\s*[:=]\s*["']original["']""", re.I)
_DATE = re.compile(r"(?<!\d)(?P<year>(?:19|20)\d\d)-(?P<month>[01]\d)-(?P<day>[0-3]\d)(?!\d)")
_OPENERS = {"(": ")", "{": "}", "[": "]"}


def _entry_around(text: str, offset: int) -> str:
    """The innermost `dict(...)` / `{...}` around ``offset`` (one notebook's entry), or ""."""
    depth = 0
    for start in range(offset - 1, -1, -1):
        char = text[start]
        if char in ")}]":
            depth += 1
        elif char in _OPENERS:
            if depth == 0:
                if char == "[":
                    return ""  # a list of entries, not one entry
                closing, level = _OPENERS[char], 0
                for end in range(start, len(text)):
                    level += text[end] in _OPENERS
                    level -= text[end] in ")}]"
                    if level == 0 and text[end] == closing:
                        return text[start : end + 1]
                return ""
            depth -= 1
    return ""


def _statement(entry: str, path: str, line: int) -> Evidence:
    """What an entry pinning to the original image says: the release of its date, or unknown."""
    for match in _DATE.finditer(entry):
        try:
            day = datetime.date(int(match.group("year")), int(match.group("month")), int(match.group("day")))
        except ValueError:
            continue
        version = newest_released_by(day)
        if version is not None:
            text = f'docker_image_pinning_type "original", dated {match.group(0)}'
            return Evidence("tensorflow", exactly(version), path, line, text)
    return Evidence("tensorflow", Range(), path, line, 'docker_image_pinning_type "original", no date')


def _from_track_meta(text: str, notebook: str, path: str) -> Evidence | None:
    for quoted in re.finditer(rf"""["'](?:[\w./-]*/)?{re.escape(notebook)}["']""", text):
        entry = _entry_around(text, quoted.start())
        if _ORIGINAL.search(entry):
            return _statement(entry, path, line_of(text, quoted.start()))
    return None


def _from_kernel_metadata(text: str, notebook: str, path: str) -> Evidence | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or str(data.get("docker_image_pinning_type", "")).lower() != "original":
        return None
    if Path(str(data.get("code_file", ""))).name != notebook:
        return None
    line = line_of(text, text.find("docker_image_pinning_type"))
    return _statement(json.dumps({k: v for k, v in data.items() if "date" in k.lower()}), path, line)


def platform_pin(notebook: Path, folders: list[Path]) -> tuple[Evidence | None, list[str]]:
    """The pin of ``notebook`` in the first metadata file of ``folders`` (nearest first) that has
    an entry for it, and every metadata file path looked at (for the cache)."""
    looked: list[str] = []
    for folder in folders:
        for name in METADATA_NAMES:
            path = folder / name
            looked.append(str(path))
            text = read_small_text(path)
            if text is None:
                continue
            read = _from_kernel_metadata if name.endswith(".json") else _from_track_meta
            found = read(text, notebook.name, str(path))
            if found is not None:
                return found, looked
    return None, looked


def undated_pin(evidence: Evidence) -> bool:
    """``evidence`` pins a notebook to the image of a day that is not known: no release can be told."""
    return evidence.allowed.open_ended and Path(evidence.path).name in METADATA_NAMES


def platform_image(evidence: Evidence) -> bool:
    """``evidence`` is a notebook platform's pin to the image of the notebook's first publication
    (dated or not): the newest release it can hold is known at best, the oldest never."""
    return Path(evidence.path).name in METADATA_NAMES
