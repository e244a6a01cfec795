"""What can read TF_CONFIG after a script sets it: is the value left to nothing?

TF_CONFIG is read when something is made from it: a strategy or a cluster resolver reads it once,
at construction (benchmarks/probe_tf_config_after_strategy.py), an Estimator's `RunConfig` too,
and a process started later inherits it. A script that sets it after all of these, at its top
level and outside any loop, leaves it to nothing (a transcription of a tutorial's notebook, whose
worker processes the `.py` never starts). Anything unknown counts as a reader: a call into a
library other than TensorFlow, Keras, NumPy and the standard library, a project module that is
not found or whose text names a strategy, resolver, TF_CONFIG, a process start or another project
module, `exec`, `runpy`, `importlib`, and any such call inside a function (it may run later).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.module_summary import QUIET_LIBRARIES
from fixer.tf.names import dotted_name

if TYPE_CHECKING:
    from fixer.tf.model import TFModel
    from fixer.tf.tf_config_sources import TfConfigSetter

# Words of a TensorFlow/Keras callee that builds something from TF_CONFIG.
_READER_WORDS = ("strategy", "clusterresolver", "cluster_resolver", "estimator", "runconfig", "distribut", "tf_config")
# Standard-library modules that run other code or start processes: what they run may read it.
_RUNNING_MODULES = frozenset({"subprocess", "multiprocessing", "runpy", "importlib", "concurrent", "pty"})
_RUNNING_OS = ("os.system", "os.popen", "os.exec", "os.spawn", "os.posix_spawn", "os.fork")
_RUNNING_BUILTINS = frozenset({"exec", "eval", "__import__", "compile"})


def set_after_every_reader(tf: TFModel, setter: TfConfigSetter) -> bool:
    """True when nothing of the module can read the TF_CONFIG ``setter`` sets: the setter is at
    the top level, outside any loop, after a strategy or resolver the module makes, and every call
    or import that may read it (above) runs before it, at the top level too (the module's order
    facts). A module that makes no strategy before it is no distributed program yet (a
    configuration module): not answered here."""
    index = tf.index
    statement = setter.statement
    if not any(index.before(call, statement) for call, _ in tf.strategies.constructions):
        return False
    if index.enclosing_function(statement) is not None:
        return False  # a function may run at any time, even before a strategy is made
    if any(isinstance(a, cst.For | cst.While | cst.ClassDef) for a in index.ancestors(statement)):
        return False  # a loop runs what stands above the setter again after it
    for call in index.calls:
        if index.enclosing_function(call) is None and index.before(call, statement):
            continue  # ran, at the top level, before TF_CONFIG was set
        if _may_read(tf, call):
            return False
    return not any(
        _imports_a_reader(tf, node)
        for node in index.order
        if isinstance(node, cst.Import | cst.ImportFrom) and index.before(statement, node)
    )


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
