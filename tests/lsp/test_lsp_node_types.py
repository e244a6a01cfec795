"""The language server's hierarchy-only isinstance for libcst nodes (fixer/node_types.py):
installed in a fresh interpreter, every isinstance and issubclass answer between node classes is
the one abc gave, abstract node classes stay abstract, and a check gives what it gave."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FILE = ROOT / "corpus" / "reduction" / "tfd303_mean_loss" / "before.py"

PROGRAM = """
import abc, json, sys
import libcst as cst
from fixer.engine import check_source
from fixer import node_types
from fixer.tf.index import ModuleIndex

text = open(sys.argv[1], encoding="utf-8").read()
findings = [repr(f) for f in check_source("doc.py", text).findings]
classes = node_types.node_classes()
nodes = list({type(n): n for n in ModuleIndex.build(cst.parse_module(text)).order}.values())
def answers():
    return [
        [isinstance(node, c) for node in nodes for c in classes],
        [issubclass(a, b) for a in classes for b in classes],
        [isinstance(node, (cst.Name, cst.Attribute)) for node in nodes],
        [isinstance(node, cst.BaseExpression | cst.BaseStatement) for node in nodes],
    ]
before = answers()
metaclass = type(cst.Name)
changed = node_types.install()
try:
    cst.BaseExpression()
    abstract = False
except TypeError:
    abstract = True
print(json.dumps({
    "changed": changed,
    "again": node_types.install(),
    "was_abc": metaclass is abc.ABCMeta,
    "now": type(cst.Name).__name__,
    "still_abc": isinstance(cst.Name, abc.ABCMeta),
    "nodes": len(nodes),
    "same_answers": answers() == before,
    "some_true": sum(before[0]),
    "abstract": abstract,
    "findings": len(findings),
    "same_findings": findings == [repr(f) for f in check_source("doc.py", text).findings],
}))
"""


def test_isinstance_answers_and_findings_do_not_change() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(FILE)], cwd=ROOT, capture_output=True, text=True, timeout=600, check=True
    )
    report = json.loads(result.stdout)
    assert report["changed"] > 400  # every node class, abstract ones included
    assert report["again"] == 0
    assert report["was_abc"] and report["now"] == "_HierarchyOnly" and report["still_abc"]
    assert report["nodes"] > 20 and report["some_true"] > report["nodes"]
    assert report["same_answers"]
    assert report["abstract"]
    assert report["findings"] > 0 and report["same_findings"]


PROGRAM_WITH_A_REGISTRY = """
import libcst as cst
from fixer import node_types

class Outside:
    pass

cst.BaseExpression.register(Outside)  # a virtual subclass: only ABCMeta's check knows it
print(node_types.install(), isinstance(Outside(), cst.BaseExpression))
"""


def test_not_installed_when_a_node_class_has_a_virtual_subclass() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM_WITH_A_REGISTRY],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    assert result.stdout.split() == ["0", "True"]
