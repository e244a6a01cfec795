"""The rule codes a small test program gets, shared by the precision regression tests.

Each of those tests is a minimal program in our own words; a program that does not parse would
pass every "not reported" assertion for the wrong reason, so a parse error fails the test here.
"""

from __future__ import annotations

import textwrap

from fixer.engine import check_source


def codes_of(source: str, path: str = "train.py") -> list[str]:
    """The codes `check` reports for ``source`` (dedented) as the file ``path``; never TFD000."""
    codes = [f.code for f in check_source(path, textwrap.dedent(source)).findings]
    assert "TFD000" not in codes, "the test program does not parse, so it proves nothing"
    return codes
