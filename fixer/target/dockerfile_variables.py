"""The values a Dockerfile's own `ENV` and `ARG` lines give its variables, put into later lines.

    ENV TF_VERSION=2.5.0
    RUN pip3 install tensorflow==${TF_VERSION}

A base image's Dockerfile often names the TensorFlow it installs once, as a variable, and the
`pip install` line reads it: the pin is the substituted word (`tensorflow==2.5.0`). Only values
declared above the line in the same file count (Docker's own scoping); an `ARG` default is what
an image built without `--build-arg` gets, and a variable without a value is left as written.
Read as text (never executed).
"""

from __future__ import annotations

import re

# `NAME=value` pairs of `ENV A=1 B=2` / `ARG A=1` (quotes optional), and the legacy `ENV NAME value`.
_PAIR = re.compile(r"""(?P<name>[A-Za-z_]\w*)=(?:"(?P<double>[^"]*)"|'(?P<single>[^']*)'|(?P<bare>[^\s"']*))""")
_LEGACY = re.compile(r"^(?P<name>[A-Za-z_]\w*)\s+(?P<value>\S.*?)\s*$")
# `${NAME}`, `${NAME:-default}` (the variable's value when set) and `$NAME`.
_REFERENCE = re.compile(r"\$(?:\{(?P<braced>[A-Za-z_]\w*)(?::?[-+][^}]*)?\}|(?P<plain>[A-Za-z_]\w*))")


def declare(keyword: str, rest: str, values: dict[str, str]) -> None:
    """Record in ``values`` what an `ENV` or `ARG` instruction (``rest`` after the keyword) sets."""
    pairs = list(_PAIR.finditer(rest))
    if pairs:
        for pair in pairs:
            value = next((v for v in pair.group("double", "single", "bare") if v is not None), "")
            if value:
                values[pair.group("name")] = substitute(value, values)
    elif keyword == "ENV" and (legacy := _LEGACY.match(rest.strip())) is not None:
        values[legacy.group("name")] = substitute(legacy.group("value").strip("'\""), values)


def substitute(text: str, values: dict[str, str]) -> str:
    """``text`` with every reference to a variable of ``values`` replaced by its value."""
    if "$" not in text:
        return text

    def value(reference: re.Match[str]) -> str:
        name = reference.group("braced") or reference.group("plain")
        return values.get(name, reference.group(0))

    return _REFERENCE.sub(value, text)
