"""Which TensorFlow a cloud launcher in the project runs a training script on.

A SageMaker or Vertex AI job is started from a notebook or a script beside the training code; the
call names the script and the TensorFlow the platform runs it on:

    TensorFlow(entry_point="train.py", source_dir="src", framework_version="2.8", ...)  # SageMaker
    CustomTrainingJob(script_path="task.py", container_uri=".../vertex-ai/training/tf-cpu.2-6:latest")

The script then runs on that release whatever its folder pins, as it runs in a job manifest's image
(fixer/target/manifests.py). Values are read when they are string literals, or names bound once,
at the top level, to a string literal before the call (notebook cells in order); anything computed
at run time says nothing. Read as text and parsed (never executed).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from fixer.notebook_cells import code_cells
from fixer.syntax import parse_module
from fixer.target.sources import Evidence, exactly, image_statements

# Cheap tests before parsing: most files launch nothing.
_MAY_LAUNCH = re.compile(r"sagemaker|container_uri")
# SageMaker's TensorFlow estimator, under both module paths it is exported from.
_ESTIMATORS = frozenset({"sagemaker.tensorflow.TensorFlow", "sagemaker.tensorflow.estimator.TensorFlow"})
_RELEASE = re.compile(r"^(?P<major>\d+)\.(?P<minor>\d+)(?:\.\d+)?$")
# A Google prebuilt training image: `tf-cpu.2-6`, `tf2-gpu.2-12` (regional registry prefixes allowed).
_PREBUILT = re.compile(r"(?<![\w-])tf2?-(?:cpu|gpu|tpu)\.\d+-\d+")

# (resolved script path, the statement that names its TensorFlow)
Launch = tuple[str, Evidence]


def may_launch(text: str) -> bool:
    """The text may start a SageMaker or Vertex AI job (a cheap test before parsing)."""
    return _MAY_LAUNCH.search(text) is not None


def launched_scripts(text: str, path: str, root: Path) -> list[Launch]:
    """The scripts the launcher ``text`` (the .py or .ipynb file ``path``) runs in a SageMaker
    TensorFlow estimator or a Vertex AI prebuilt container, each with the TensorFlow it names.
    A script path is resolved from the launcher's folder, then from each folder above it up to
    ``root`` (a pipeline run from the repository root names paths from there); only existing
    files count."""
    if not may_launch(text):
        return []
    cells = _cells(text) if path.endswith(".ipynb") else [(None, text)]
    trees = []
    for cell, source in cells:
        try:
            trees.append((cell, parse_module(source)))
        except (SyntaxError, ValueError, RecursionError):
            continue
    # Each tree walked once, its nodes shared by every question below: walking a large notebook's
    # cells five times was most of the launchers' cost on vertex-ai-samples (benchmarks/README.md, speed13).
    walked = [(cell, list(ast.walk(tree))) for cell, tree in trees]
    counts = _store_counts(walked)
    values = _constants(trees, counts)
    paths = _written_paths(walked, counts)
    imported = _imports(walked)
    found: list[Launch] = []
    for cell, nodes in walked:
        for call in (node for node in nodes if isinstance(node, ast.Call)):
            at = (cell or 0, call.lineno)
            named = _dotted(call.func, imported)
            if named in _ESTIMATORS:
                found += _sagemaker(call, at, values, path)
            else:
                found += _vertex(call, at, values, paths, path, root)
    return found


def _cells(text: str) -> list[tuple[int | None, str]]:
    """(1-based cell number, source) of each code cell, shell and magic lines blanked (they are
    not Python; blanking keeps the line numbers)."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return []
    return [(number, _without_magics(source)) for number, source, _ in code_cells(data)]


def _without_magics(source: str) -> str:
    lines = ["" if line.lstrip().startswith(("!", "%")) else line for line in source.splitlines()]
    return "\n".join(lines)


# A top-level string constant: its value and where it is bound ((cell, line) orders notebook cells).
_Constant = tuple[str, tuple[int, int]]
# Each cell's (or the script's) every node, in `ast.walk` order.
_Walked = list[tuple[int | None, list[ast.AST]]]


def _store_counts(walked: _Walked) -> dict[str, int]:
    """How many times each name is stored anywhere in the launcher (assignments, loops, `with`).

    The launcher is a file the target model reads as text, not the module being checked: no
    semantic model (fixer/semantic, built on libcst for checked modules) exists for it, and the
    only question asked is whether a name is stored exactly once in the whole file."""
    counts: dict[str, int] = {}
    for _, nodes in walked:
        for node in nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                counts[node.id] = counts.get(node.id, 0) + 1
    return counts


def _constants(trees: list[tuple[int | None, ast.Module]], counts: dict[str, int]) -> dict[str, _Constant]:
    """The names bound exactly once in the launcher (``counts``: ``_store_counts``), by a top-level
    `NAME = "text"`: their value and position. A name bound twice (or by a loop, an import, a
    function) has no one value."""
    constants: dict[str, _Constant] = {}
    for cell, tree in trees:
        for statement in tree.body:
            if (
                isinstance(statement, ast.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)
            ):
                constants[statement.targets[0].id] = (statement.value.value, (cell or 0, statement.lineno))
    return {name: value for name, value in constants.items() if counts.get(name) == 1}


# A name's one string or f-string value, and where it is bound.
_Written = tuple[ast.expr, tuple[int, int]]


def _written_paths(walked: _Walked, counts: dict[str, int]) -> dict[str, _Written]:
    """The names bound exactly once in the launcher (``counts``), at any level, to a string or an
    f-string (`train_script_uri = f"{files}/training/assets/train.py"` in a pipeline function): a
    path a job call may be handed by name."""
    written: dict[str, _Written] = {}
    for cell, nodes in walked:
        for node in nodes:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and counts.get(node.targets[0].id) == 1
                and isinstance(node.value, (ast.Constant, ast.JoinedStr))
            ):
                written[node.targets[0].id] = (node.value, (cell or 0, node.lineno))
    return written


def _imports(walked: _Walked) -> dict[str, str]:
    """What each imported name stands for: `TensorFlow` -> `sagemaker.tensorflow.TensorFlow`."""
    names: dict[str, str] = {}
    for _, nodes in walked:
        for node in nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        names[alias.asname] = alias.name
                    else:
                        first = alias.name.split(".")[0]
                        names[first] = first
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _dotted(node: ast.expr, imported: dict[str, str]) -> str | None:
    """The imported dotted name an expression stands for (`sm.tensorflow.TensorFlow` with `import
    sagemaker as sm`: `sagemaker.tensorflow.TensorFlow`), None when it is not one."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in imported:
        return None
    return ".".join([imported[node.id], *reversed(parts)])


def _text(node: ast.expr | None, at: tuple[int, int], values: dict[str, _Constant]) -> tuple[str, str] | None:
    """The string a call argument is (a literal, or a name bound once to one before the call) and
    how to quote it in a statement; None when it cannot be told."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, repr(node.value)
    if isinstance(node, ast.Name) and node.id in values:
        value, bound = values[node.id]
        if bound < at:
            return value, f"{node.id} ({value!r})"
    return None


def _script_path(node: ast.expr, at: tuple[int, int], paths: dict[str, _Written]) -> str | None:
    """The project path of a `.py` file an argument names: a string, or the constant tail of an
    f-string that puts it under a folder known at run time (`f"{bucket}/training/assets/train.py"`:
    the project's files uploaded there keep their relative paths); or a name bound once to one
    of those before the call."""
    if isinstance(node, ast.Name) and node.id in paths and paths[node.id][1] < at:
        node = paths[node.id][0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value if node.value.endswith(".py") else None
    if isinstance(node, ast.JoinedStr) and len(node.values) > 1:
        tail = node.values[-1]
        if isinstance(tail, ast.Constant) and isinstance(tail.value, str):
            written = tail.value.lstrip("/")
            return written if written.endswith(".py") and "/" in written else None
    return None


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def resolve_written(written: str, launcher: str, root: Path) -> Path | None:
    """The existing file a path written in a launcher names: from the launcher's folder, then from
    each folder above it up to ``root``."""
    folder = Path(launcher).parent
    for base in [folder, *folder.parents]:
        candidate = (base / written).resolve()
        if candidate.is_file():
            return candidate
        if base == root or root not in base.parents:
            break
    return None


def _sagemaker(call: ast.Call, at: tuple[int, int], values: dict[str, _Constant], path: str) -> list[Launch]:
    """The entry point of a SageMaker TensorFlow estimator and its `framework_version`. A custom
    `image_uri` decides instead of the version, and is not read."""
    if _keyword(call, "image_uri") is not None:
        return []
    version = _text(_keyword(call, "framework_version"), at, values)
    entry = _text(_keyword(call, "entry_point"), at, values)
    if version is None or entry is None:
        return []
    release = _RELEASE.match(version[0])
    if release is None:
        return []
    source_dir = _keyword(call, "source_dir")
    folder = _text(source_dir, at, values) if source_dir is not None else ("", "")
    if folder is None:
        return []
    written = str(Path(folder[0]) / entry[0]) if folder[0] else entry[0]
    script = (Path(path).parent / written).resolve()  # SageMaker reads both from the launcher's folder
    if not script.is_file():
        return []
    statement = f"framework_version={version[1]}"
    number = (int(release.group("major")), int(release.group("minor")))
    return [(str(script), Evidence("tensorflow", exactly(number), path, at[1], statement, cell=at[0] or None))]


def _vertex(
    call: ast.Call, at: tuple[int, int], values: dict[str, _Constant], paths: dict[str, _Written], path: str, root: Path
) -> list[Launch]:
    """A call given a Google prebuilt TensorFlow training image (any keyword ending in
    `container_uri`) and the path of a project script (`script_path=`, or any argument naming an
    existing .py file)."""
    images = [
        (keyword.arg, value)
        for keyword in call.keywords
        if keyword.arg is not None and keyword.arg.endswith("container_uri")
        if (value := _text(keyword.value, at, values)) is not None and _PREBUILT.search(value[0])
        if "/prediction/" not in value[0]  # a serving image: the model is served there, not trained
    ]
    if not images:
        return []
    arguments = [*call.args, *(k.value for k in call.keywords)]
    scripts = [
        script
        for argument in arguments
        if (written := _script_path(argument, at, paths)) is not None
        if (script := resolve_written(written, path, root)) is not None
    ]
    found: list[Launch] = []
    for name, (image, quoted) in images:
        for evidence in image_statements(image, path, at[1], at[0] or None):
            if evidence.kind == "tensorflow":
                said = Evidence(evidence.kind, evidence.allowed, path, at[1], f"{name}={quoted}", cell=evidence.cell)
                found += [(str(script), said) for script in scripts]
    return found
