"""What can read TF_CONFIG after a script sets it: is the value left to nothing?

TF_CONFIG is read when something is made from it: a strategy or a cluster resolver reads it once,
at construction (benchmarks/probe_tf_config_after_strategy.py), an Estimator's `RunConfig` too,
and a process started later inherits it. A script that sets it after all of these, at its top
level and outside any loop, leaves it to nothing (a transcription of a tutorial's notebook, whose
worker processes the `.py` never starts). Anything unknown counts as a reader: a call into a
library other than TensorFlow, Keras, NumPy and the standard library, a project module that is
not found or whose text names a strategy, resolver, TF_CONFIG, a process start or another project
module, `exec`, `runpy`, `importlib`, and any such call inside a function (it may run later).

A notebook whose later cell asks for a kernel restart (fixer/tf/restart_cells.py) ends the setter's
process there: the new kernel does not inherit `os.environ` (benchmarks/probe_noise22_premises.py),
so only the code between the setter and that cell is asked, with the functions of earlier cells
that this code names.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.module_summary import QUIET_LIBRARIES
from fixer.tf.names import dotted_name
from fixer.tf.restart_cells import top_statement

if TYPE_CHECKING:
    from fixer.tf.model import TFModel
    from fixer.tf.tf_config_sources import TfConfigSetter

# Words of a TensorFlow/Keras callee that builds something from TF_CONFIG.
_READER_WORDS = ("strategy", "clusterresolver", "cluster_resolver", "estimator", "runconfig", "distribut", "tf_config")
# Standard-library modules that run other code or start processes: what they run may read it.
_RUNNING_MODULES = frozenset({"subprocess", "multiprocessing", "runpy", "importlib", "concurrent", "pty"})
_RUNNING_OS = ("os.system", "os.popen", "os.exec", "os.spawn", "os.posix_spawn", "os.fork")
_RUNNING_BUILTINS = frozenset({"exec", "eval", "__import__", "compile"})


def set_after_every_reader(
    tf: TFModel, setter: TfConfigSetter, program: tuple[cst.CSTNode | None, cst.CSTNode | None] = (None, None)
) -> bool:
    """True when nothing of the module can read the TF_CONFIG ``setter`` sets: the setter is at
    the top level, outside any loop, after a strategy or resolver the module makes, and every call
    or import that may read it (above) runs before it, at the top level too (the module's order
    facts). A module that makes no strategy before it is no distributed program yet (a
    configuration module): not answered here.

    ``program`` bounds the process the setter runs in, as (first, end) top-level statements of a
    notebook whose cells ask for kernel restarts (fixer/tf/restart_cells.py): code before ``first``
    or from ``end`` on runs in another kernel, whose ``os.environ`` is not this one's, so its
    strategies neither count as made nor as readers."""
    index = tf.index
    statement = setter.statement
    first, end = program

    def elsewhere(node: cst.CSTNode) -> bool:
        """``node`` runs in another kernel than the setter's."""
        return (first is not None and index.before(node, first)) or (end is not None and not index.before(node, end))

    if not any(index.before(call, statement) and not elsewhere(call) for call, _ in tf.strategies.constructions):
        return False
    if index.enclosing_function(statement) is not None:
        return False  # a function may run at any time, even before a strategy is made
    if any(isinstance(a, cst.For | cst.While | cst.ClassDef) for a in index.ancestors(statement)):
        return False  # a loop runs what stands above the setter again after it
    called = _defs_named_from(tf, statement, end) if end is not None else None
    for call in index.calls:
        if index.enclosing_function(call) is None and index.before(call, statement):
            continue  # ran, at the top level, before TF_CONFIG was set
        if end is not None and not index.before(call, end):
            continue  # in a later kernel's code (also its functions, which only that kernel defines)
        name = _def_name(top_statement(tf, call))
        if called is not None and name is not None and name not in called:
            continue  # a function nothing from the setter to the restart names (defined above it)
        if _may_read(tf, call):
            return False
    return not any(
        _imports_a_reader(tf, node)
        for node in index.order
        if isinstance(node, cst.Import | cst.ImportFrom)
        and index.before(statement, node)
        and (end is None or index.before(node, end))
    )


def _defs_named_from(tf: TFModel, statement: cst.CSTNode, end: cst.CSTNode) -> set[str]:
    """Names of the module's top-level functions and classes that the code from ``statement`` to
    ``end`` names (called, or handed on as a callback), and those their bodies name in turn: what
    may run in that stretch besides its own lines."""
    index = tf.index
    defs = {
        name: node
        for node in tf.module.body
        if isinstance(node, cst.FunctionDef | cst.ClassDef)
        for name in [node.name.value]
    }
    regions: list[cst.CSTNode] = [statement]
    named: set[str] = set()
    while regions:
        region = regions.pop()
        for name, uses in index.names.items():
            if name in named or name not in defs:
                continue
            if region is statement:
                found = any(not index.before(use, statement) and index.before(use, end) for use in uses)
            else:
                found = any(index.is_within(use, region) for use in uses)
            if found:
                named.add(name)
                regions.append(defs[name])
    return named


def _def_name(node: cst.CSTNode) -> str | None:
    """The name a top-level ``def`` or ``class`` binds (None for another statement)."""
    return node.name.value if isinstance(node, cst.FunctionDef | cst.ClassDef) else None


def _may_read(tf: TFModel, call: cst.Call) -> bool:
    """``call`` may make something that reads TF_CONFIG, or start or run code that may."""
    local = dotted_name(call.func)
    if local is None:
        return False  # a method of a value (`model.fit`): what made the value was asked instead
    head = local.split(".")[0]
    if head in _RUNNING_BUILTINS:
        return True
    callee = tf.names.callee(call)
    if callee is None:
        return False  # a function or local of the module: its own calls are asked
    root = callee.split(".")[0]
    if root in QUIET_LIBRARIES:
        return any(word in callee.lower() for word in _READER_WORDS)
    if root in sys.stdlib_module_names:
        return root in _RUNNING_MODULES or callee.startswith(_RUNNING_OS)
    return not tf.project.quiet_on_tf_config(head)


def _imports_a_reader(tf: TFModel, node: cst.Import | cst.ImportFrom) -> bool:
    """An import after the setter runs the imported module's top level: a reader unless it is a
    quiet library or a quiet project module."""
    if isinstance(node, cst.ImportFrom):
        if node.relative:
            return True
        module = dotted_name(node.module) if node.module is not None else None
        roots = [module.split(".")[0]] if module else []
    else:
        roots = [(dotted_name(alias.name) or "").split(".")[0] for alias in node.names]
    return any(root not in QUIET_LIBRARIES and root not in sys.stdlib_module_names for root in roots)
