"""The language server's C identity hash for libcst nodes (fixer/node_hash.py): installed in
a fresh interpreter, nodes still hash and compare by identity, and a check gives what it gave."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FILE = ROOT / "corpus" / "reduction" / "tfd303_mean_loss" / "before.py"

PROGRAM = """
import json, sys
import libcst as cst
from fixer.engine import check_source
from fixer import node_hash

text = open(sys.argv[1], encoding="utf-8").read()
before = [repr(f) for f in check_source("doc.py", text).findings]
python_hash = cst.Name.__hash__
changed = node_hash.install()
first, second = cst.Name("x"), cst.Name("x")
print(json.dumps({
    "changed": changed,
    "again": node_hash.install(),
    "was_python": python_hash is not object.__hash__,
    "now_c": cst.Name.__hash__ is object.__hash__ and cst.Module.__hash__ is object.__hash__,
    "identity": hash(first) == hash(first) and len({first, second, first}) == 2 and {first: 1}.get(second) is None,
    "findings": len(before),
    "same_findings": before == [repr(f) for f in check_source("doc.py", text).findings],
}))
"""


def test_nodes_hash_by_identity_in_c_and_findings_do_not_change() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(FILE)], cwd=ROOT, capture_output=True, text=True, timeout=600, check=True
    )
    report = json.loads(result.stdout)
    assert report["changed"] > 100  # every concrete node class
    assert report["again"] == 0
    assert report["was_python"] and report["now_c"]
    assert report["identity"]
    assert report["findings"] > 0 and report["same_findings"]
