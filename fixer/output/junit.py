"""JUnit XML: one test case per checked file, failing with its findings."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from fixer.output.text import finding_line

if TYPE_CHECKING:
    from fixer.types import FileResult


def render(results: list[FileResult]) -> str:
    """A ``testsuites`` document that CI systems can show as test results."""
    failures = sum(1 for r in results if r.findings and r.error is None)
    errors = sum(1 for r in results if r.error is not None)
    suites = ET.Element("testsuites", name="distfix")
    suite = ET.SubElement(
        suites, "testsuite", name="distfix", tests=str(len(results)), failures=str(failures), errors=str(errors)
    )
    for result in results:
        case = ET.SubElement(suite, "testcase", classname="distfix", name=result.path)
        if result.error is not None:
            element = ET.SubElement(case, "error", message=result.error)
            element.text = result.error
        elif result.findings:
            element = ET.SubElement(
                case, "failure", message=f"{len(result.findings)} finding{'s' * (len(result.findings) != 1)}"
            )
            element.text = "\n".join(finding_line(f) for f in result.findings)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode")
