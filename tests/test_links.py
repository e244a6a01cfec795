"""No link to an address that does not exist: distfix has no public home yet, so no file of the
project names one (docs/install.md says so once; fixer.explain.PROJECT_URL is where to set it)."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Addresses the project once linked to and that nobody can reach.
UNREACHABLE = ("github.com/distfix", "distfix/distfix")


def test_no_file_links_to_the_unknown_public_home():
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    offenders = []
    for name in filter(None, listed):
        path = ROOT / name
        if name == "tests/test_links.py" or not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        offenders += [f"{name}: {address}" for address in UNREACHABLE if address in text]
    assert offenders == []


def test_the_explain_text_points_into_the_repository(distfix):
    result = distfix("explain", "TFD401")
    assert result.stdout.rstrip().endswith("Docs: docs/rules.md#tfd401-renamed-distribute-api in the distfix repository")
