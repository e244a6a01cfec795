"""Which calls start other processes: a script that starts its workers is a launcher, not a worker."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from fixer.tf.index import ModuleIndex
    from fixer.tf.names import NameResolver
    from fixer.tf.programs import Programs

# Calls that start a process which inherits (or is given) this process's environment.
PROCESS_STARTERS = frozenset(
    {
        "subprocess.Popen",
        "subprocess.run",
        "subprocess.call",
        "subprocess.check_call",
        "subprocess.check_output",
        "multiprocessing.Process",
        "multiprocessing.Pool",
        "multiprocessing.get_context",
        "torch.multiprocessing.spawn",
        "os.system",
        "os.fork",
        "os.execv",
        "os.execve",
        "os.execvp",
        "os.execvpe",
        "os.spawnv",
        "os.spawnve",
        "os.posix_spawn",
        "asyncio.create_subprocess_exec",
        "asyncio.create_subprocess_shell",
    }
)


def process_starts(index: ModuleIndex, names: NameResolver) -> list[cst.Call]:
    """Every call of the module that starts another process, in source order."""
    return [call for call in index.calls if names.callee(call) in PROCESS_STARTERS]


def starts_processes_after(
    index: ModuleIndex, names: NameResolver, node: cst.CSTNode, programs: Programs | None = None
) -> bool:
    """True when a process is started after ``node`` runs (later in the source, or in the same loop).

    Such a script passes what it set up (TF_CONFIG in `os.environ`) on to the processes it
    starts: it is a launcher, and what it sets is meant for them. With ``programs``, only a start
    in ``node``'s own program counts (a later program pasted into the file is another script).
    """
    loops = [a for a in index.ancestors(node) if isinstance(a, cst.For | cst.While)]
    for call in process_starts(index, names):
        if programs is not None and not programs.same_program(node, call):
            continue
        if index.before(node, call) or any(index.is_within(call, loop) for loop in loops):
            return True
    return False


# In a notebook, cells such as `%%bash --bg` / `!python main.py &` start the workers; masking
# (fixer/magics.py) turns each such line into a comment that keeps all but its first character.
# `%run main.py` runs the script in the kernel itself, which reads the kernel's environment: for
# the TF_CONFIG set before it, that is a launch too.
_NOTEBOOK_MARK = re.compile(r"(?m)^# distfix-cell \d+$")
_MASKED_SHELL = re.compile(
    r"(?m)^[ \t]*#(?:%%?(?:bash|sh|script|system|sx)\b|(?:python3?|ython3?|nohup|mpirun|horovodrun|torchrun)\b"
    r"|run\s+(?:-\S+\s+)*[\w./-]+\.py\b)"
)


def shell_start_lines(text: str) -> list[int]:
    """Lines (1-based) of a combined notebook text whose masked shell magic starts a process."""
    if not _NOTEBOOK_MARK.search(text):
        return []
    return [text.count("\n", 0, match.start()) + 1 for match in _MASKED_SHELL.finditer(text)]
