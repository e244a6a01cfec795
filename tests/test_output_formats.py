"""CI output formats: SARIF validated against the official 2.1.0 schema, GitHub annotations, JUnit,
notebook findings located in the .ipynb file, and --output-file for every format."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

# The official OASIS schema, kept in the repository (tests/data/README.md says where it comes from).
SCHEMA_PATH = Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
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
    jsonschema.validate(log, SCHEMA)
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
        f"::warning file={script},line=3,col=10,endLine=3,endColumn=56,"
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


def test_ruffs_spelling_of_the_option_is_accepted(script, distfix):
    """Someone used to ruff types --output-format; it is the same option as --format."""
    ours = distfix("check", "--format", "concise", str(script))
    theirs = distfix("check", "--output-format", "concise", str(script))
    assert (theirs.returncode, theirs.stdout) == (ours.returncode, ours.stdout) == (1, ours.stdout)
    assert ours.stdout.count("TFD401") == 1


def test_the_schema_rejects_what_it_should():
    """The copy is the real schema, not something that accepts anything."""
    assert SCHEMA["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"version": "2.1.0", "runs": [{"results": []}]}, SCHEMA)  # a run needs its tool


def _notebook(folder: Path, cells: list[list[str]], ensure_ascii: bool = False) -> Path:
    raw = [{"cell_type": "markdown", "metadata": {}, "source": ["# Training\n"]}]
    raw += [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": c} for c in cells]
    path = folder / "train.ipynb"
    data = {"cells": raw, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(data, indent=1, ensure_ascii=ensure_ascii) + "\n", encoding="utf-8")
    return path


def _marked(path: Path, line: int, column: int, end_column: int) -> str:
    """The text of the .ipynb file at a 1-based line and [column, end_column)."""
    return path.read_text(encoding="utf-8").splitlines()[line - 1][column - 1 : end_column - 1]


NOTEBOOK_CELLS = [
    ["import tensorflow as tf\n", "strategy = tf.distribute.MirroredStrategy()\n"],
    ["%time x = 1\n", 'print("caf\u00e9 \\"q\\"\tok"); strategy.experimental_run_v2(fn)\n'],
]


@pytest.mark.parametrize("ensure_ascii", [False, True])
def test_github_annotations_of_notebooks_point_into_the_ipynb_json(tmp_path, distfix, ensure_ascii):
    notebook = _notebook(tmp_path, NOTEBOOK_CELLS, ensure_ascii)
    result = distfix("check", "--format", "github", "--select", "TFD401", str(notebook))
    assert result.returncode == 1, result.stderr
    line = result.stdout.strip()
    properties = dict(item.split("=", 1) for item in line.split("::")[1][len("error "):].split(","))
    start, column, end_column = int(properties["line"]), int(properties["col"]), int(properties["endColumn"])
    lines = notebook.read_text(encoding="utf-8").splitlines()
    assert lines[start - 1].lstrip().startswith('"print('), "the JSON line that holds cell 3's line 2"
    assert _marked(notebook, start, column, end_column) == "experimental_run_v2"
    assert properties["endLine"] == str(start)
    assert line.endswith("::cell 3, line 2: `experimental_run_v2` is removed in TensorFlow 2.21 (`AttributeError`; 2.21 assumed: no pin found); use `run`")


def test_sarif_of_notebooks_points_into_the_ipynb_json_and_names_the_cell(tmp_path, distfix):
    notebook = _notebook(tmp_path, NOTEBOOK_CELLS, ensure_ascii=True)
    result = distfix("check", "--format", "sarif", "--select", "TFD401", str(notebook))
    log = json.loads(result.stdout)
    jsonschema.validate(log, SCHEMA)
    assert log["runs"][0]["columnKind"] == "unicodeCodePoints"
    (finding,) = log["runs"][0]["results"]
    location = finding["locations"][0]
    region = location["physicalLocation"]["region"]
    assert _marked(notebook, region["startLine"], region["startColumn"], region["endColumn"]) == "experimental_run_v2"
    assert region["endLine"] == region["startLine"]
    assert location["logicalLocations"] == [{"name": "cell 3"}]
    assert finding["message"]["text"] == "cell 3, line 2: `experimental_run_v2` is removed in TensorFlow 2.21 (`AttributeError`; 2.21 assumed: no pin found); use `run`"
    assert finding["properties"] == {"cell": 3, "cellLine": 2, "cellColumn": 34}
    assert "fixes" not in finding  # the edits are in the combined module, not in the file


def test_notebook_with_one_string_source_and_a_finding_across_lines(tmp_path, distfix):
    source = (
        "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\n"
        "for _ in range(3):\n    strategy.experimental_run_v2(\n        fn)\n"
    )
    notebook = _notebook(tmp_path, [source])  # type: ignore[list-item]
    result = distfix("check", "--format", "sarif", "--select", "TFD402", str(notebook))
    (finding,) = json.loads(result.stdout)["runs"][0]["results"]
    region = finding["locations"][0]["physicalLocation"]["region"]
    assert finding["properties"] == {"cell": 2, "cellLine": 4, "cellColumn": 5}
    # The whole cell is one JSON string on one line: the region covers the call with its escaped newline.
    assert region["endLine"] == region["startLine"]
    assert _marked(notebook, region["startLine"], region["startColumn"], region["endColumn"]) == "strategy.experimental_run_v2(\\n        fn)"


@pytest.mark.parametrize("output_format", ["text", "concise", "json", "sarif", "github", "junit"])
def test_output_file_holds_exactly_the_report(script, distfix, tmp_path, output_format):
    printed = distfix("check", "--format", output_format, str(script))
    target = tmp_path / f"report.{output_format}"
    written = distfix("check", "--format", output_format, "--output-file", str(target), str(script))
    assert written.returncode == printed.returncode == 1
    assert written.stdout == ""
    assert target.read_text(encoding="utf-8") == printed.stdout
    assert "TFD401" in printed.stdout
