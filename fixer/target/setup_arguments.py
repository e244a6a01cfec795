"""The parts of a `setup.py` that are not requirements: `setup(keywords=[...], classifiers=[...],
description=...)`, the module-level values only those arguments name (`KEYWORDS = [...]`) and
the module-level values nothing in the script reads.

setup.py is read as text (never run), every string literal a candidate requirement, so a
`keywords=["deep-learning", "tensorflow"]` list would read as a bare `tensorflow` requirement
(issue 28, ledger10b class 1). Only `install_requires`, `extras_require` and `setup_requires`
(and what they name) state what pip installs; the spans returned here are blanked before the
strings are read (docs/target.md, "Sources").
"""

from __future__ import annotations

import ast
import re

from fixer.syntax import parse_module

REQUIREMENT_ARGUMENTS = frozenset({"install_requires", "extras_require", "setup_requires"})


def blank_descriptive_arguments(text: str) -> str:
    """``text`` with every character of the non-requirement arguments of its `setup(...)` calls,
    of the module-level assignments only they name, and of those nothing in the script reads,
    replaced by a space (newlines kept, so line numbers hold). ``text`` unchanged when it does not
    parse or calls no `setup`."""
    try:
        tree = parse_module(text)
    except (SyntaxError, ValueError):
        return text
    spans: list[ast.expr] = []
    named_by_requirements: set[str] = set()
    named_by_others: set[str] = set()
    calls = [call for call in ast.walk(tree) if isinstance(call, ast.Call) and _is_setup(call.func)]
    for call in calls:
        for keyword in call.keywords:
            if keyword.arg is None:
                continue  # `**metadata`: what it holds cannot be told, keep it
            names = {n.id for n in ast.walk(keyword.value) if isinstance(n, ast.Name)}
            if keyword.arg in REQUIREMENT_ARGUMENTS:
                named_by_requirements |= names
            else:
                named_by_others |= names
                spans.append(keyword.value)
        spans += call.args  # positional: `setup("name", "1.0", ...)` names no requirement
    only_descriptive = named_by_others - named_by_requirements
    # A module-level value no code of the script reads (`FRAMEWORKS = ["tensorflow", "pytorch"]`
    # left unused) reaches no argument of `setup()`: it installs nothing either. Not without a
    # `setup()` call (a fragment: what reads it is elsewhere) or with `setup(**locals())`-style
    # arguments (whose names cannot be told).
    unread_is_dead = bool(calls) and not any(k.arg is None for call in calls for k in call.keywords)
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}
    for statement in tree.body:
        if not isinstance(statement, ast.Assign):
            continue
        targets = [t.id for t in statement.targets if isinstance(t, ast.Name)]
        if any(name in only_descriptive for name in targets) or (
            unread_is_dead and len(targets) == len(statement.targets) and not any(name in read for name in targets)
        ):
            spans.append(statement.value)
    return _blanked(text, spans) if spans else text


def _is_setup(func: ast.expr) -> bool:
    """`setup(...)`, `setuptools.setup(...)`, `distutils.core.setup(...)`."""
    return (isinstance(func, ast.Name) and func.id == "setup") or (
        isinstance(func, ast.Attribute) and func.attr == "setup"
    )


def _blanked(text: str, nodes: list[ast.expr]) -> str:
    """``text`` with each node's source replaced by spaces (ast columns are UTF-8 byte offsets)."""
    lines = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)  # the lines ast counts (no form feeds)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    chars = list(text)

    def offset(line: int, column: int) -> int:
        prefix = lines[line - 1].encode("utf-8", "surrogateescape")[:column]
        return starts[line - 1] + len(prefix.decode("utf-8", "surrogateescape"))

    for node in nodes:
        if node.end_lineno is None or node.end_col_offset is None:
            continue
        begin, end = offset(node.lineno, node.col_offset), offset(node.end_lineno, node.end_col_offset)
        for index in range(begin, end):
            if chars[index] not in "\r\n":
                chars[index] = " "
    return "".join(chars)
