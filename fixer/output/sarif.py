"""SARIF 2.1.0: rules, results with locations, and fixes as SARIF ``fixes``.

Columns count Unicode code points (``columnKind``). A notebook finding's region is the place of
the cell's source line in the ``.ipynb`` file's JSON (what code scanning shows); the cell is in
the message (``cell N, line L:``), in a logical location and in the result's properties.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fixer import __version__
from fixer.codes import ERROR, INFO, WARNING, severity
from fixer.explain import PROJECT_URL, docs_url
from fixer.output.ipynb_location import NotebookLocator, cell_prefix
from fixer.registry import default_registry
from fixer.textmap import TextMap
from fixer.types import Applicability, FileResult, Finding

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVELS = {ERROR: "error", WARNING: "warning", INFO: "note"}  # the rule's severity as a SARIF level


def _uri(path: str) -> str:
    candidate = Path(path)
    if candidate.is_absolute():
        try:
            return candidate.relative_to(Path.cwd()).as_posix()
        except ValueError:
            return candidate.as_uri()
    return candidate.as_posix()


def _region(start_line: int, start_column: int, end_line: int, end_column: int) -> dict[str, int]:
    return {"startLine": start_line, "startColumn": start_column, "endLine": end_line, "endColumn": end_column}


def _fix(finding: Finding, textmap: TextMap, uri: str) -> list[dict[str, Any]]:
    if finding.fix is None or not finding.fix.edits or finding.fix.applicability is Applicability.DISPLAY_ONLY:
        return []
    replacements = []
    for edit in finding.fix.edits:
        start, end = textmap.position(edit.start), textmap.position(edit.end)
        replacements.append(
            {
                "deletedRegion": _region(start.line, start.column, end.line, end.column),
                "insertedContent": {"text": edit.content},
            }
        )
    return [
        {
            "description": {"text": f"{finding.fix.title} ({finding.fix.applicability.label})"},
            "artifactChanges": [{"artifactLocation": {"uri": uri}, "replacements": replacements}],
        }
    ]


def _result(
    finding: Finding, textmap: TextMap | None, locator: NotebookLocator | None, rule_index: dict[str, int]
) -> dict[str, Any]:
    uri = _uri(finding.path)
    start, end = (
        locator.region(finding) if locator is not None and finding.cell is not None else (finding.start, finding.end)
    )
    region = _region(
        start.line, start.column, end.line, max(end.column, start.column) if end.line == start.line else end.column
    )
    location: dict[str, Any] = {"physicalLocation": {"artifactLocation": {"uri": uri}, "region": region}}
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "level": _LEVELS[severity(finding.code)],
        "message": {"text": cell_prefix(finding) + finding.message},
        "locations": [location],
    }
    if finding.code in rule_index:
        result["ruleIndex"] = rule_index[finding.code]
    if finding.cell is not None:
        location["logicalLocations"] = [{"name": f"cell {finding.cell}"}]
        result["properties"] = {
            "cell": finding.cell,
            "cellLine": finding.start.line,
            "cellColumn": finding.start.column,
        }
    elif textmap is not None:
        fixes = _fix(finding, textmap, uri)
        if fixes:
            result["fixes"] = fixes
    return result


def render(results: list[FileResult]) -> str:
    """One SARIF log with a single run of distfix."""
    rules = default_registry().rules
    descriptors = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.message},
            "fullDescription": {"text": rule.doc_sections().get("What it does", rule.message)},
            **({"helpUri": url} if (url := docs_url(rule.code, rule.name)) else {}),
            "defaultConfiguration": {"level": _LEVELS[severity(rule.code)]},
            "properties": {"family": rule.family(), "fix": rule.applicability.label, "severity": severity(rule.code)},
        }
        for rule in rules
    ]
    rule_index = {rule.code: position for position, rule in enumerate(rules)}
    sarif_results: list[dict[str, Any]] = []
    for file_result in results:
        textmap = TextMap(file_result.source) if file_result.source is not None else None
        locator = NotebookLocator(file_result.source or "") if file_result.path.endswith(".ipynb") else None
        sarif_results.extend(_result(f, textmap, locator, rule_index) for f in file_result.findings)
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "distfix",
                        "version": __version__,
                        **({"informationUri": PROJECT_URL} if PROJECT_URL else {}),
                        "rules": descriptors,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": sarif_results,
            }
        ],
    }
    return json.dumps(log, indent=2)
