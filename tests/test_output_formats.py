"""CI output formats: SARIF validated against the official 2.1.0 schema, GitHub annotations, JUnit."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

# The official OASIS schema lives in the shared folder beside the repository (as in CI).
SCHEMA_PATH = Path(__file__).resolve().parents[2] / "shared" / "schemas" / "sarif-schema-2.1.0.json"
SOURCE = (
    "import tensorflow as tf\n"
    "strategy = tf.distribute.MirroredStrategy()\n"
    "strategy.experimental_distribute_datasets_from_function(fn)\n"
)


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "train.py"
    path.write_text(SOURCE)
    (tmp_path / "broken.py").write_text("strategy.experimental_distribute_datasets_from_function(\n")
    return path


def test_sarif_is_valid_and_carries_rules_locations_and_fixes(script, distfix):
    result = distfix("check", "--format", "sarif", str(script.parent))
    assert result.returncode == 2  # broken.py
    log = json.loads(result.stdout)
    if not SCHEMA_PATH.is_file():
        pytest.skip(f"the SARIF 2.1.0 schema is not at {SCHEMA_PATH}")
    jsonschema.validate(log, json.loads(SCHEMA_PATH.read_text()))
    run = log["runs"][0]
    assert any(rule["id"] == "TFD401" for rule in run["tool"]["driver"]["rules"])
    finding = next(r for r in run["results"] if r["ruleId"] == "TFD401")
    region = finding["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 3, "startColumn": 10, "endLine": 3, "endColumn": 56}
    replacement = finding["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement == {
        "deletedRegion": {"startLine": 3, "startColumn": 10, "endLine": 3, "endColumn": 56},
        "insertedContent": {"text": "distribute_datasets_from_function"},
    }
    assert any(r["ruleId"] == "TFD000" and r["level"] == "error" for r in run["results"])


def test_github_annotations(script, distfix):
    result = distfix("check", "--format", "github", str(script))
    assert result.stdout.strip() == (
        f"::error file={script},line=3,col=10,endLine=3,endColumn=56,"
        "title=TFD401 renamed-distribute-api::`experimental_distribute_datasets_from_function` is deprecated; use `distribute_datasets_from_function`"
    )


def test_junit_one_case_per_file(script, distfix):
    result = distfix("check", "--format", "junit", str(script.parent))
    root = ET.fromstring(result.stdout.split("\n", 1)[1])
    suite = root.find("testsuite")
    assert suite.get("tests") == "2" and suite.get("failures") == "1" and suite.get("errors") == "1"
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert cases[str(script)].find("failure").get("message") == "1 finding"


def test_concise_has_no_summary(script, distfix):
    result = distfix("check", "--format", "concise", str(script))
    assert result.stdout == f"{script}:3:10: TFD401 [*] `experimental_distribute_datasets_from_function` is deprecated; use `distribute_datasets_from_function`\n"
