"""libcst nodes hashed in C (the language server, the batch check): the same identity hash, without a Python call.

A libcst node is equal only to itself, and every node class carries ``CSTNode.__hash__``, which
returns ``id(self)`` from Python code. The server hashes about 200,000 nodes per edit of a
3,000-line file (merging the chunks' indexes, the rules' tables keyed by node), and those calls
were about a fifth of its CPU per edit (benchmarks/README.md, the LSP section). ``object.__hash__``
is an identity hash too, computed in C: dictionaries and sets of nodes hold and find exactly what
they did. It is installed when the server starts, and only while libcst's equality is identity.
"""

from __future__ import annotations

import libcst as cst


def node_classes() -> list[type]:
    """``CSTNode`` and every class below it."""
    found: list[type] = []
    pending: list[type] = [cst.CSTNode]
    while pending:
        current = pending.pop()
        found.append(current)
        pending.extend(current.__subclasses__())
    return found


def identity_equality() -> bool:
    """libcst compares nodes by identity (``CSTNode.__eq__``): two equal-looking nodes differ."""
    first, second = cst.Name("x"), cst.Name("x")
    return first == first and first != second


def install() -> int:
    """Give every node class that uses libcst's Python identity hash the C one; the number of
    classes changed: 0 when it is installed already, or when libcst's equality is not identity
    (its hash must then stay its own)."""
    python_hash = cst.CSTNode.__dict__["__hash__"]
    if python_hash is object.__hash__ or not identity_equality():
        return 0
    changed = 0
    for node_class in node_classes():
        if node_class.__dict__.get("__hash__") is python_hash:
            node_class.__hash__ = object.__hash__  # type: ignore[assignment]
            changed += 1
    return changed
