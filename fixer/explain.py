"""Rule documentation for ``distfix explain``, ``distfix rules`` and LSP hovers."""

from __future__ import annotations

from fixer.codes import severity
from fixer.report import render
from fixer.rule import Invalid, Rule, dedent_example

# distfix has no public home yet: no address is linked until it has one. Set PROJECT_URL then,
# and the LSP codeDescription and the SARIF helpUri/informationUri follow.
PROJECT_URL: str | None = None
# docs/rules.md is `distfix explain --all`; each rule is a heading "# TFDnnn name".
DOCS_PATH = "docs/rules.md#{code}-{name}"


# TFD000 is not a rule (no module, no examples): what the engine reports for a file it could not read.
PARSE_ERROR_EXPLANATION = """\
# TFD000 parse-error

*Family:* none · *Severity:* error · *Fix:* none (fix the file)

## What it does
Reports a file distfix could not read or parse, with the reason and, for a syntax error, the
parser's line and column: a syntax error, a file too deeply nested to parse, an undecodable or
binary file, a file over 10 MB, or a malformed notebook. No rule looked at that file.

## What to do
Fix the file (Python reports the same syntax error) and run distfix again. It is reported
whatever `--select` says, since a file that cannot be read was not checked. Files that hold
none of the texts any rule needs are skipped before parsing, so they never get TFD000.
"""


def docs_path(code: str, name: str) -> str:
    """Where a rule's documentation is in the repository (``docs/rules.md`` and its anchor)."""
    return DOCS_PATH.format(code=code.lower(), name=name)


def docs_url(code: str, name: str) -> str | None:
    """Where a rule's documentation lives online (LSP ``codeDescription``, SARIF ``helpUri``);
    None while distfix has no public home."""
    if PROJECT_URL is None:
        return None
    return f"{PROJECT_URL}/blob/main/{docs_path(code, name)}"


def render_explanation(rule: type[Rule], fmt: str = "markdown") -> str:
    """The rule's documentation: its docstring sections plus its first example and its fix.

    ``fmt`` is ``markdown`` (explain, hover) or ``text`` (the same without code fences).
    """
    example: Invalid | None = rule.first_invalid()
    sections = rule.doc_sections()
    sections.pop("Summary", None)
    return render(
        "explain.md.j2",
        rule=rule,
        family=rule.family(),
        severity=severity(rule.code),
        sections=sections,
        example=dedent_example(example.code) if example else None,
        fixed=dedent_example(example.after) if example and example.after else None,
        fence="```" if fmt == "markdown" else "",
        url=docs_url(rule.code, rule.name) or f"{docs_path(rule.code, rule.name)} in the distfix repository",
    )


def rule_summary(rule: type[Rule]) -> dict[str, object]:
    """One row of ``distfix rules``: code, name, family, message, fix availability."""
    return {
        "code": rule.code,
        "name": rule.name,
        "family": rule.family(),
        "message": rule.message,
        "fix": rule.applicability.label if rule.has_fix() else "display-only",
        "severity": severity(rule.code),
    }


def rules_markdown(rows: list[dict[str, object]]) -> str:
    """The rule table of the README."""
    lines = ["| code | name | family | what it finds | fix |", "|---|---|---|---|---|"]
    lines += [f"| {r['code']} | {r['name']} | {r['family']} | {r['message']} | {r['fix']} |" for r in rows]
    return "\n".join(lines)
