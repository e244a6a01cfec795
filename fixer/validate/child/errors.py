"""The script's exception as a person reads it: the real error type, its first informative line,
the script's line, and whether it means missing network data, a missing module or a missing file.

TensorFlow wraps errors raised while tracing a ``tf.function`` in an "in user code:" message
whose last line is the real error; runtime op errors start with "Graph execution error:" and
name the root error further down.
"""

from __future__ import annotations

import os
import re
import traceback
from typing import Any

_FILE = re.compile(r'File "([^"]+)", line (\d+)')
_USER_CODE_ERROR = re.compile(r"^ {4}([A-Za-z_][\w.]*)(?::\s*(.*))?$")
_ROOT_ERROR = re.compile(r"^\s*\(\d+\)\s+[A-Z_]+:\s+(.*)$")
_NOISE = re.compile(r"^(Graph execution error:|Detected at node|in user code:|\d+ root error\(s\) found|\[\[)")
_FUNCTION_NODE = re.compile(r"^\{\{function_node [^}]*\}\}\s*")
_OP_SUFFIX = re.compile(r"\s*\[Op:[^\]]*\]\s*$")
_MISSING_FILE = re.compile(r"(\S+)\s*:\s*No such file or directory|Could not find directory (\S+)")
_NETWORK_WORDS = ("URL", "urlopen", "Connection", "resolve host", "Name or service not known")


def _clean(line: str) -> str:
    return _OP_SUFFIX.sub("", _FUNCTION_NODE.sub("", line.strip()))


def first_informative_line(text: str) -> str:
    """The first line of an error message that says what went wrong."""
    for raw in text.splitlines():
        root = _ROOT_ERROR.match(raw)
        if root:
            return _clean(root.group(1))
        line = raw.strip()
        if line and not raw[:1].isspace() and not _NOISE.match(line):
            return _clean(line)
    return ""


def _user_code_error(text: str) -> tuple[str, str] | None:
    """The real error of an "in user code:" message: the line after its last ``File`` frame."""
    lines = text.splitlines()
    last_frame = max((i for i, line in enumerate(lines) if line.strip().startswith("File ")), default=-1)
    for line in lines[last_frame + 1 :]:
        match = _USER_CODE_ERROR.match(line)
        if match and not line.startswith(" " * 5):
            return match.group(1).rsplit(".", 1)[-1], _clean(match.group(2) or "")
    return None


def _script_line(exc: BaseException, text: str, script: str) -> int | None:
    in_message = [int(line) for path, line in _FILE.findall(text) if os.path.realpath(path) == script]
    if in_message:
        return in_message[-1]  # where it happened inside a tf.function
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if os.path.realpath(f.filename) == script]
    return frames[-1].lineno if frames else None


def _origin(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "(no message)"
    last = frames[-1]
    return f"(no message) raised at {os.path.basename(last.filename)}:{last.lineno} `{last.line}`"


def _missing(exc: BaseException, text: str) -> dict[str, Any] | None:
    if isinstance(exc, ModuleNotFoundError):
        return {"kind": "module", "name": exc.name}
    if isinstance(exc, FileNotFoundError):
        return {"kind": "file", "name": exc.filename}
    found = _MISSING_FILE.search(text)
    if type(exc).__name__ == "NotFoundError" and found:
        return {"kind": "file", "name": found.group(1) or found.group(2)}
    return None


def describe(exc: BaseException, script: str) -> dict[str, Any]:
    """The error record the parent reports (type, message, line, network, missing)."""
    script = os.path.realpath(script)
    text = str(exc)
    kind, message = type(exc).__name__, first_informative_line(text)
    if text.lstrip().startswith("in user code:"):
        kind, message = _user_code_error(text) or (kind, message)
    return {
        "type": kind,
        "message": (message or _origin(exc))[:500],
        "line": _script_line(exc, text, script),
        # DownloadRefused: --synthetic-data's get_file stopped a download (child/data.py)
        "network": kind == "DownloadRefused" or any(word in text for word in _NETWORK_WORDS),
        "missing": _missing(exc, text),
    }


def exit_error(exc: SystemExit) -> dict[str, Any] | None:
    """A ``sys.exit`` with a failure code or message as an error record; None for a clean exit."""
    if exc.code in (None, 0):
        return None
    message = exc.code if isinstance(exc.code, str) else f"exit code {exc.code}"
    frames = traceback.extract_tb(exc.__traceback__)
    # argparse rejects the command line with exit code 2 (its message went to stderr): the
    # script was not given the arguments it needs, which says nothing about its distribution.
    usage = exc.code == 2 and any(os.path.basename(f.filename) == "argparse.py" for f in frames)
    return {
        "type": "SystemExit",
        "message": message[:500],
        "line": frames[-1].lineno if frames else None,
        "network": False,
        "missing": None,
        "usage": usage,
    }
