"""What a run needs to know about the rules before it knows whether any file must be analysed.

A warm ``distfix check`` answers every file from the cache; importing the rules (and libcst,
which they import) only to list their codes or to key the cache was most of its time. So the
codes are written out here, and the cache is keyed on the bytes of the rule and engine sources
rather than on the imported modules. tests/test_codes.py keeps :data:`RULE_CODES` equal to the
rules the registry discovers.
"""

from __future__ import annotations

import difflib
import hashlib
import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import codemods  # the package only: importing it imports no rule

if TYPE_CHECKING:
    from collections.abc import Iterable

PARSE_ERROR_CODE = "TFD000"

# Every rule in codemods/, sorted; a new rule adds its code here (tests/test_codes.py says so).
RULE_CODES: tuple[str, ...] = (
    "TFD101", "TFD102", "TFD103", "TFD104", "TFD105", "TFD106", "TFD107", "TFD108", "TFD109", "TFD110",
    "TFD111", "TFD112", "TFD113", "TFD114",
    "TFD201", "TFD202", "TFD203", "TFD204", "TFD205",
    "TFD301", "TFD302", "TFD303", "TFD304", "TFD305",
    "TFD401", "TFD402", "TFD403", "TFD404",
    "TFD501", "TFD502", "TFD503", "TFD504",
    "TFD601", "TFD602", "TFD603", "TFD604", "TFD605",
)  # fmt: skip

KNOWN_CODES: tuple[str, ...] = (PARSE_ERROR_CODE, *RULE_CODES)

# How bad a finding of each code is, carried into the text summary, SARIF levels, GitHub
# annotations and LSP severities. error: the script crashes, hangs or computes a wrong result;
# warning: it is slower than it should be, or uses a deprecated name; info: advice.
ERROR, WARNING, INFO = "error", "warning", "info"
_NOT_ERRORS: dict[str, str] = {
    "TFD401": WARNING,  # a deprecated name (its message says when the name is removed outright)
    "TFD402": WARNING,  # replicas run one after another: slow, not wrong
    "TFD112": INFO,  # a hard-coded device list runs where it was written; a smaller machine hangs
    "TFD601": INFO,  # a hard-coded TF_CONFIG runs; it only ties the script to one cluster
}
SEVERITIES: dict[str, str] = {code: _NOT_ERRORS.get(code, ERROR) for code in KNOWN_CODES}


def severity(code: str) -> str:
    """``error``, ``warning`` or ``info`` for a finding's code (an unknown code is an error)."""
    return SEVERITIES.get(code, ERROR)


def unknown_codes(values: list[str]) -> list[str]:
    """The codes or prefixes in ``values`` (comma-separated or repeated) that name no code."""
    parts = [part.strip().upper() for value in values for part in value.split(",")]
    return [part for part in parts if part and not any(code.startswith(part) for code in KNOWN_CODES)]


def did_you_mean(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str:
    """`` (did you mean X?)`` for the choice closest to ``word``, or nothing when none is close."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=cutoff)
    return f" (did you mean {close[0]}?)" if close else ""


def code_error(values: Iterable[str], where: str) -> str | None:
    """The one check of rule codes that every command and ``[tool.distfix]`` goes through:
    None when every code or prefix in ``values`` names a code, else the message for the first
    that does not (``where`` says which option or key it came from)."""
    unknown = unknown_codes(list(values))
    # Codes differ from each other by a digit or two: only a one-character slip (TFD4O1) gets a
    # suggestion, so TFD499 is not told it meant TFD604.
    if not unknown:
        return None
    # A letter typed for the digit it looks like (O for 0, I or l for 1) is the usual slip: when
    # reading it as that digit names a code, that code is the suggestion.
    as_digits = unknown[0].upper()[:3] + unknown[0].upper()[3:].replace("O", "0").replace("I", "1").replace("L", "1")
    hint = (
        f" (did you mean {as_digits}?)"
        if as_digits in KNOWN_CODES
        else did_you_mean(unknown[0], KNOWN_CODES, cutoff=0.8)
    )
    return f"unknown rule code or prefix {unknown[0]} in {where}{hint}; `distfix rules` lists them"


@lru_cache(maxsize=1)
def source_fingerprint() -> str:
    """:func:`fingerprint_sources` of the installed engine (``fixer``) and rules (``codemods``).

    Reading their ~130 files costs about 10 ms, where importing them cost 0.3 s.
    """
    return fingerprint_sources([str(Path(__file__).parent), *codemods.__path__])


def fingerprint_sources(roots: Iterable[str]) -> str:
    """A digest of the names and bytes of every ``.py`` file under ``roots``.

    Any edit to a rule or to the engine, or a file added or removed, changes it, so cached
    results of another version of the code are never reused.
    """
    digest = hashlib.blake2b(digest_size=16)
    for root in roots:
        for folder, _, files in sorted(os.walk(root)):
            for name in sorted(files):
                if not name.endswith(".py"):
                    continue
                path = os.path.join(folder, name)
                digest.update(os.path.relpath(path, os.path.dirname(root)).encode())
                digest.update(b"\0")
                with open(path, "rb") as handle:
                    digest.update(handle.read())
                digest.update(b"\0")
    return digest.hexdigest()
