"""IPython's assignment from a shell or magic line (``files = !ls``, ``name, = !cmd``, ``t = %time f()``).

IPython's input transformer (``MagicAssign``/``SystemAssign`` in ``inputtransformer2``) finds the
line's first ``=`` outside brackets and, when a ``!`` or ``%`` follows it, turns the right side into
a call; whatever stands before that ``=`` is kept as the assignment target. So any target is
accepted: a tuple (``a, = !cmd``, ``a, b = !cmd``, ``*a, b = !cmd``), a subscript or attribute
(``x[0] = !cmd``, ``a.b = !cmd``), an annotated name (``x: list = !cmd``). A chained assignment
(``x = y = !cmd``), an augmented one (``x += !cmd``) and a comparison (``a == !cmd``) are left as
Python (measured with ``TransformerManager.transform_cell``, IPython 9.18: tests/test_notebook.py).
"""

from __future__ import annotations

# Two-character operators that end in `=` but are not an assignment's `=`.
_NOT_ASSIGN = frozenset("=!<>+-*/%@&|^:")


def is_shell_assignment(line: str) -> bool:
    """True when IPython runs the line as an assignment from a ``!`` shell or ``%`` magic line."""
    if "!" not in line and "%" not in line:
        return False  # the right side starts with one of them; most lines hold neither (no scan)
    equals = _first_assign(line)
    if equals is None:
        return False
    rest = line[equals + 1 :].lstrip(" \t")
    return rest[:1] in ("!", "%")


def _first_assign(line: str) -> int | None:
    """The index of the line's first ``=`` that is an assignment, outside brackets and strings."""
    depth, quote, position = 0, "", 0
    while position < len(line):
        char = line[position]
        if quote:
            if char == "\\":
                position += 1
            elif line.startswith(quote, position):
                position += len(quote) - 1
                quote = ""
        elif char == "#":
            return None
        elif char in "'\"":
            quote = line[position : position + 3] if line[position : position + 3] in ('"""', "'''") else char
            position += len(quote) - 1
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "=" and depth == 0:
            # `==`, `<=`, `+=`, `:=`, `**=`, `//=`, `>>=`...: an operator, which IPython steps over.
            if line[position + 1 : position + 2] == "=":
                position += 1
            elif not (position and line[position - 1] in _NOT_ASSIGN):
                return position
        position += 1
    return None
