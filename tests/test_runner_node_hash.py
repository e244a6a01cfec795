"""The batch check hashes libcst nodes in C (fixer/runner.py, fixer/node_hash.py): installed when
a first file reaches the analysis, not for files the text pre-filter answers, and findings unchanged."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILE = ROOT / "corpus" / "reduction" / "tfd303_mean_loss" / "before.py"

PROGRAM = """
import json, sys
from pathlib import Path
import libcst as cst
from fixer.engine import check_source
from fixer.runner import Job, process_file

clean, flagged = Path(sys.argv[1]), Path(sys.argv[2])
before = [repr(f) for f in check_source(str(flagged), flagged.read_text(encoding="utf-8")).findings]
job = Job(use_cache=False)
process_file(clean, job)
after_clean = cst.Name.__hash__ is object.__hash__
result = process_file(flagged, job)
print(json.dumps({
    "after_clean": after_clean,
    "after_flagged": cst.Name.__hash__ is object.__hash__ and cst.Module.__hash__ is object.__hash__,
    "findings": len(before),
    "same_findings": before == [repr(f) for f in result.findings],
}))
"""


def test_the_first_analysed_file_installs_the_c_hash_and_findings_do_not_change(tmp_path: Path) -> None:
    clean = tmp_path / "clean.py"
    clean.write_text("print('no trigger text here')\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(clean), str(FILE)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    report = json.loads(result.stdout)
    assert not report["after_clean"]  # the pre-filter answered: nothing of the analysis was needed
    assert report["after_flagged"]
    assert report["findings"] > 0 and report["same_findings"]
