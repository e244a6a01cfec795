"""The result cache's file format: plain JSON with a schema check, never code.

A cache file sits in the project folder, where anyone who can write the project can write it:
the format must be one that cannot run code when read (pickle runs any code a file names).
Reading is strict: every value must have the type the schema gives it, and anything else (a
planted pickle, a truncated file, another version's layout, a wrong type anywhere) raises
:class:`CacheFormatError`, which the cache treats as a miss.
"""

from __future__ import annotations

import json
from typing import Any

from fixer.types import Applicability, Edit, FileResult, Finding, Fix, Position

# Bumped whenever the layout below changes: a file of another schema is ignored and rebuilt.
SCHEMA = 1
_APPLICABILITY = {a.value: a for a in Applicability}


class CacheFormatError(ValueError):
    """A cache file that is not what this version writes; the cache ignores it."""


def dumps(kind: str, payload: Any) -> bytes:
    """A cache file of ``kind`` holding ``payload`` (already made of JSON types)."""
    return json.dumps({"schema": SCHEMA, "kind": kind, "payload": payload}, separators=(",", ":")).encode()


def loads(data: bytes, kind: str) -> Any:
    """The payload of a cache file of ``kind``; CacheFormatError for anything else."""
    try:
        document = json.loads(data)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise CacheFormatError(f"not JSON: {exc}") from None
    if type(document) is not dict or document.get("schema") != SCHEMA or document.get("kind") != kind:
        raise CacheFormatError("another schema or kind")
    return document.get("payload")


def encode_result(result: FileResult) -> list[Any]:
    """``result`` as JSON types (a list: smaller and faster to read back than a mapping)."""
    return [
        result.path,
        result.source,
        [_encode_finding(f, result.path) for f in result.findings],
        result.error,
        result.fixed_text,
        [_encode_finding(f, result.path) for f in result.applied],
        result.held_back_unsafe,
        result.reverted,
        [[path, list(stamp) if stamp is not None else None] for path, stamp in result.dependencies],
    ]


def decode_result(data: Any) -> FileResult:
    """The FileResult :func:`encode_result` made; CacheFormatError when ``data`` is not one."""
    try:
        path, source, findings, error, fixed_text, applied, held_back, reverted, dependencies = data
        result = FileResult(
            path=_str(path),
            source=_optional_str(source),
            findings=[_decode_finding(f, path) for f in _list(findings)],
            error=_optional_str(error),
            fixed_text=_optional_str(fixed_text),
            applied=[_decode_finding(f, path) for f in _list(applied)],
            held_back_unsafe=_int(held_back),
            reverted=_optional_str(reverted),
            dependencies=tuple(_decode_dependency(d) for d in _list(dependencies)),
        )
    except (TypeError, ValueError) as exc:  # unpacking a wrong shape, or a check below
        raise CacheFormatError(f"not a stored result: {exc}") from None
    return result


def _encode_finding(finding: Finding, path: str) -> list[Any]:
    fix = finding.fix
    return [
        None if finding.path == path else finding.path,  # almost always the result's own path
        finding.code,
        finding.name,
        finding.message,
        finding.start.line,
        finding.start.column,
        finding.end.line,
        finding.end.column,
        None if fix is None else [fix.title, [[e.start, e.end, e.content] for e in fix.edits], fix.applicability.value],
        None if finding.applicability is None else finding.applicability.value,
        finding.cell,
    ]


def _decode_finding(data: Any, path: str) -> Finding:
    own_path, code, name, message, line, column, end_line, end_column, fix, applicability, cell = _list(data)
    return Finding(
        path=path if own_path is None else _str(own_path),
        code=_str(code),
        name=_str(name),
        message=_str(message),
        start=Position(_int(line), _int(column)),
        end=Position(_int(end_line), _int(end_column)),
        fix=None if fix is None else _decode_fix(fix),
        applicability=None if applicability is None else _applicability(applicability),
        cell=None if cell is None else _int(cell),
    )


def _decode_fix(data: Any) -> Fix:
    title, edits, applicability = _list(data)
    decoded = []
    for edit in _list(edits):
        start, end, content = _list(edit)
        decoded.append(Edit(_int(start), _int(end), _str(content)))
    return Fix(title=_str(title), edits=tuple(decoded), applicability=_applicability(applicability))


def _decode_dependency(data: Any) -> tuple[str, tuple[int, int] | None]:
    path, stamp = _list(data)
    if stamp is None:
        return _str(path), None
    size, mtime = _list(stamp)
    return _str(path), (_int(size), _int(mtime))


def _applicability(value: Any) -> Applicability:
    if type(value) is not int or value not in _APPLICABILITY:
        raise CacheFormatError(f"unknown applicability {value!r}")
    return _APPLICABILITY[value]


def _str(value: Any) -> str:
    if type(value) is not str:
        raise CacheFormatError(f"expected a string, found {type(value).__name__}")
    return value


def _optional_str(value: Any) -> str | None:
    return None if value is None else _str(value)


def _int(value: Any) -> int:
    if type(value) is not int:
        raise CacheFormatError(f"expected an integer, found {type(value).__name__}")
    return value


def _list(value: Any) -> list[Any]:
    if type(value) is not list:
        raise CacheFormatError(f"expected a list, found {type(value).__name__}")
    return value
