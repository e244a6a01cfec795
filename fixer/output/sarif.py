"""SARIF 2.1.0: rules, results with locations, and fixes as SARIF ``fixes``."""

from __future__ import annotations

import json
from pathlib import Path

from fixer import __version__
from fixer.explain import docs_url
from fixer.registry import default_registry
from fixer.textmap import TextMap
from fixer.types import Applicability, FileResult, Finding

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVELS = {"TFD000": "error"}


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


def _fix(finding: Finding, textmap: TextMap, uri: str) -> list[dict]:
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


def _result(finding: Finding, textmap: TextMap | None, rule_index: dict[str, int]) -> dict:
    uri = _uri(finding.path)
    region = _region(finding.start.line, finding.start.column, finding.end.line, max(finding.end.column, finding.start.column))
    result: dict = {
        "ruleId": finding.code,
        "level": _LEVELS.get(finding.code, "warning"),
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}, "region": region}}],
    }
    if finding.code in rule_index:
        result["ruleIndex"] = rule_index[finding.code]
    if finding.cell is not None:
        result["properties"] = {"cell": finding.cell}
    if textmap is not None and finding.cell is None:
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
            "helpUri": docs_url(rule.code, rule.name),
            "properties": {"family": rule.family(), "fix": rule.applicability.label},
        }
        for rule in rules
    ]
    rule_index = {rule.code: position for position, rule in enumerate(rules)}
    sarif_results = []
    for file_result in results:
        textmap = TextMap(file_result.source) if file_result.source is not None else None
        sarif_results.extend(_result(f, textmap, rule_index) for f in file_result.findings)
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "distfix",
                        "version": __version__,
                        "informationUri": "https://github.com/distfix/distfix",
                        "rules": descriptors,
                    }
                },
                "results": sarif_results,
            }
        ],
    }
    return json.dumps(log, indent=2)
