"""What a Python script installs for itself before it trains: `pip install` commands it runs.

A training script handed to a managed platform (a SageMaker entry point, a job's `command:`) often
installs its own pins first:

    subprocess.check_call([sys.executable, "-m", "pip", "install", "tensorflow==2.3.0"])

Such a call is read like a notebook's `!pip install` line (fixer/target/notebook.py): the script
runs on what it installs. Only argument lists made of string constants (and `sys.executable`) and
constant command strings count; a list built at run time says nothing that can be read statically.

A package built for one TensorFlow release names it too: the SageMaker TensorFlow extension
(`sagemaker-tensorflow==2.1.0.1.0.0`) is compiled against the release its first numbers give
(TensorFlow 2.1 here), per the release table of its package index page, checked by
`python benchmarks/probe_sagemaker_tensorflow_versions.py`.

Read as text and parsed (never executed).
"""

from __future__ import annotations

import ast
import re
import shlex

from fixer.syntax import parse_module
from fixer.target.notebook import install_evidence
from fixer.target.requirements import normalise
from fixer.target.sources import Evidence, exactly

# The functions that run a command: `subprocess.check_call([...])`, `os.system("...")`.
_SUBPROCESS_RUNNERS = frozenset({"check_call", "call", "run", "check_output", "Popen"})
# Cheap test before parsing: most scripts install nothing.
_MAY_INSTALL = re.compile(r"\bpip3?\b[\s\S]*\binstall\b|\binstall\b[\s\S]*\bpip3?\b")
# A distribution built for one TensorFlow release, whose version starts with that release's numbers.
_BUILT_FOR_TENSORFLOW = frozenset({"sagemaker-tensorflow"})
_PIP_INSTALL = re.compile(r"\bpip3?\s+install\b")
_PINNED_BUILD = re.compile(r"^(?P<name>[A-Za-z0-9][\w.-]*)===?(?P<major>\d+)\.(?P<minor>\d+)(?:[.\w*+-]*)$")


def script_installs(text: str, path: str) -> list[Evidence]:
    """The TensorFlow, Keras and tf-keras requirements the pip installs run by the script ``text``
    (the file ``path``) state, in source order; [] when it runs none or does not parse."""
    if _MAY_INSTALL.search(text) is None:
        return []
    found: list[Evidence] = []
    for line, command in script_commands(text):
        found += install_evidence(command, path, line) + _extension_builds(command, path, line)
    return found


def script_commands(text: str) -> list[tuple[int, str]]:
    """(line, command) of each constant command the script ``text`` runs through `os.system` or
    `subprocess`, in source order; [] when it does not parse."""
    try:
        tree = parse_module(text)
    except (SyntaxError, ValueError, RecursionError):
        return []
    runners = _imported_runners(tree)
    commands = [
        (node.lineno, command)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and (command := _command(node, runners)) is not None
    ]
    return sorted(commands, key=lambda item: item[0])


def _imported_runners(tree: ast.Module) -> frozenset[str]:
    """The names `from subprocess import check_call` binds to a command runner."""
    return frozenset(
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "subprocess"
        for alias in node.names
        if alias.name in _SUBPROCESS_RUNNERS
    )


def _command(call: ast.Call, runners: frozenset[str]) -> str | None:
    """The command line a call runs, when it is a command runner given a constant command:
    `python -m pip install ...` for `[sys.executable, "-m", "pip", "install", ...]`."""
    function = call.func
    if isinstance(function, ast.Attribute):
        shell_only = _is_name(function.value, "os") and function.attr == "system"
        runner = shell_only or (_is_name(function.value, "subprocess") and function.attr in _SUBPROCESS_RUNNERS)
    else:
        shell_only, runner = False, isinstance(function, ast.Name) and function.id in runners
    if not runner:
        return None
    argument = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "args"), None)
    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
        return argument.value
    if shell_only or not isinstance(argument, (ast.List, ast.Tuple)):
        return None
    words = [_word(element) for element in argument.elts]
    return shlex.join(word for word in words if word is not None) if None not in words else None


def _word(element: ast.expr) -> str | None:
    """A constant word of a command list; `sys.executable` is the Python running the script."""
    if isinstance(element, ast.Constant) and isinstance(element.value, str):
        return element.value
    if isinstance(element, ast.Attribute) and element.attr == "executable" and _is_name(element.value, "sys"):
        return "python"
    return None


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _extension_builds(command: str, path: str, line: int) -> list[Evidence]:
    """The TensorFlow release a pinned install of a package built for one names
    (`sagemaker-tensorflow==2.1.0.1.0.0`: TensorFlow 2.1)."""
    found: list[Evidence] = []
    for part in re.split(r"&&|;|\|\|", command):
        install = _PIP_INSTALL.search(part)
        for word in part[install.end() :].split() if install is not None else []:
            match = _PINNED_BUILD.match(word.strip("'\""))
            if match is not None and normalise(match.group("name")) in _BUILT_FOR_TENSORFLOW:
                release = (int(match.group("major")), int(match.group("minor")))
                found.append(Evidence("tensorflow", exactly(release), path, line, command))
    return found
