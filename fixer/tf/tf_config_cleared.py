"""Whether a project module, run on import, leaves TF_CONFIG deleted (read with CPython's `ast`).

A notebook or script sometimes clears the cluster in a helper it imports first (`import setup`
whose top level runs `os.environ.pop("TF_CONFIG", None)`). A `MultiWorkerMirroredStrategy` built
afterwards without TF_CONFIG is one local worker, which TensorFlow creates after other ops
(measured on 2.21, `docs/probes.md`); TFD105 asks this module about the imports that run before
the strategy. Only the module's top level counts (not a function's body), and the last statement
naming TF_CONFIG decides: a deletion or the empty object `"{}"` clears it, anything else (an
assignment, `update`, `setdefault`) may set a cluster.
"""

from __future__ import annotations

import ast

from fixer.tf.legacy_switch import top_level_statements

KEY = "TF_CONFIG"
_NO_CLUSTER = frozenset({"{}", ""})


def clears_tf_config(tree: ast.Module) -> bool:
    """The module's top level ends with TF_CONFIG deleted or set to the empty object."""
    cleared = False
    for statement in top_level_statements(tree.body):
        effect = _effect(statement)
        if effect is not None:
            cleared = effect
    return cleared


def _effect(statement: ast.stmt) -> bool | None:
    """True when ``statement`` clears TF_CONFIG, False when it may set it, None when it does not
    name it."""
    if isinstance(statement, ast.Delete):
        if any(_environ_key(target) for target in statement.targets):
            return True
    elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        if (
            isinstance(call.func, ast.Attribute)
            and call.func.attr == "pop"
            and _is_environ(call.func.value)
            and call.args
            and _is_key(call.args[0])
        ):
            return True
    elif isinstance(statement, ast.Assign) and any(_environ_key(t) for t in statement.targets):
        value = statement.value
        return isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value.strip() in _NO_CLUSTER
    if any(_is_key(node) for node in ast.walk(statement)):
        return False  # named some other way: it may set a cluster
    return None


def _environ_key(node: ast.expr) -> bool:
    """``os.environ["TF_CONFIG"]``."""
    return isinstance(node, ast.Subscript) and _is_environ(node.value) and _is_key(node.slice)


def _is_environ(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ"
    )


def _is_key(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == KEY
