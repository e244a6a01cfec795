"""Where a notebook launches the scripts its `%%writefile` cells write, and with which TF_CONFIG.

The multi-worker tutorials write `main.py` in one cell, set `os.environ["TF_CONFIG"]` in
another (the launcher cell) and start the workers with `!python main.py &`, a `%%bash` cell,
`%run main.py` or `subprocess.Popen([sys.executable, "main.py"])`. Each started worker inherits
the kernel's environment, so the TF_CONFIG set before the launch is the cluster the written
script joins: it runs as a worker of that cluster, not as a single-worker notebook kernel.

Read from the cell texts (IPython syntax is not Python); a `%%writefile` cell's own body is
never taken as code that runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# `python main.py`, `python3 -u ./main.py --epochs 3`, `nohup python main.py &`, `TF_CONFIG=.. python main.py`
_SHELL_RUN = re.compile(r"(?:^|[\s;&|(])(?:\S*/)?python3?(?:\.\d+)?\s+(?:-\S+\s+)*(?P<script>[\w./-]+\.py)\b")
_RUN_MAGIC = re.compile(r"^\s*%run\s+(?:-\S+\s+)*(?P<script>[\w./-]+\.py)\b")
_SHELL_CELLS = ("%%bash", "%%sh", "%%script", "%%system")
# A Python line that starts a process and names the script in a string literal.
_STARTERS = re.compile(r"\b(?:subprocess\.\w+|Popen|check_call|check_output|os\.system|os\.spawn\w*|Process)\s*\(")
_QUOTED_SCRIPT = re.compile(r"""["'](?:[^"'\s]*\s)*(?:\S*/)?(?P<script>[\w.-]+\.py)\b[^"']*["']""")
_SETS = re.compile(
    r"""environ\s*\[\s*["']TF_CONFIG["']\s*\]\s*=[^=]|environ\.(?:update|setdefault)\s*\((?:[^)]*["']TF_CONFIG["']|\s*TF_CONFIG\s*=)"""
    r"""|putenv\s*\(\s*["']TF_CONFIG["']|^\s*%(?:env|set_env)\s+TF_CONFIG\b"""
)
_CLEARS = re.compile(
    r"""environ\.pop\s*\(\s*["']TF_CONFIG["']|del\s+os\.environ\s*\[\s*["']TF_CONFIG["']|unsetenv\s*\(\s*["']TF_CONFIG["']"""
)


@dataclass(frozen=True)
class Launch:
    """One line of the notebook that runs a script: where it is, and whether TF_CONFIG is set for it."""

    cell: int  # 1-based cell number among all cells
    line: int  # 1-based line in the cell
    script: str  # the script's path as written, without a leading "./"
    with_tf_config: bool


def launches(cells: list[tuple[int, str]]) -> list[Launch]:
    """Every launch of a ``.py`` script in code cells given as (cell number, source), in order."""
    if not any(".py" in source for _, source in cells):
        return []  # each launch names its script on one line as `NAME.py`: half of a tree's notebooks name none
    found: list[Launch] = []
    tf_config = False
    for number, source in cells:
        lines = source.splitlines()
        if not lines or lines[0].lstrip().startswith("%%writefile"):
            continue
        shell_cell = lines[0].lstrip().startswith(_SHELL_CELLS)
        in_starter = 0  # brackets still open in a process-starting call (its arguments go on)
        for position, line in enumerate(lines, start=1):
            if shell_cell and position == 1:
                continue
            if line.lstrip().startswith("#"):
                continue  # a comment runs nothing
            # The word tests only skip the regexes: each branch of _CLEARS and _SETS names TF_CONFIG,
            # each of _STARTERS opens a call (most lines have neither).
            if "TF_CONFIG" in line:
                if _CLEARS.search(line):
                    tf_config = False
                elif _SETS.search(line):
                    tf_config = True
            starts = not shell_cell and (in_starter > 0 or ("(" in line and bool(_STARTERS.search(line))))
            if starts:
                in_starter = max(0, in_starter + line.count("(") + line.count("[") - line.count(")") - line.count("]"))
            script = _launched_script(line, shell_cell, starts)
            if script is not None:
                found.append(Launch(number, position, script, tf_config or "TF_CONFIG=" in line))
    return found


def _launched_script(line: str, shell_cell: bool, starts_process: bool) -> str | None:
    """The script ``line`` runs: a shell line of a shell cell, ``!python ...``, ``%run ...``, or a
    script named in a string by a process-starting call (``starts_process``)."""
    stripped = line.lstrip()
    match = None
    if shell_cell:
        match = _SHELL_RUN.search(line)
    elif stripped.startswith("!"):
        match = _SHELL_RUN.search(stripped[1:])
    elif stripped.startswith("%run"):
        match = _RUN_MAGIC.match(line)
    elif starts_process and not stripped.startswith("#"):
        match = _QUOTED_SCRIPT.search(line)
    return _normal(match.group("script")) if match else None


def _normal(script: str) -> str:
    return script.removeprefix("./")


def launched_with_tf_config(script: str, found: list[Launch]) -> bool:
    """True when some launch of ``script`` (as a `%%writefile` names it) runs with TF_CONFIG set."""
    name = _normal(script)
    return any(
        launch.with_tf_config and (launch.script == name or launch.script.endswith("/" + name)) for launch in found
    )
