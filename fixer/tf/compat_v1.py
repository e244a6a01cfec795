"""Whether a `tf.distribute...` chain may be spelled through `tensorflow.compat.v1`.

The names model normalises `tf.compat.v1.distribute.X` to `tensorflow.distribute.X`, and binds
each module alias once (the last import; an assignment to a name an import already holds is left
out). A program may still reach the TF 1 API through its alias: `import tensorflow.compat.v1 as
tf` in a `try` with `import tensorflow as tf` as the fallback, or `tf = tf.compat.v1` after a
version test. There `tf.distribute.experimental.ParameterServerStrategy()` is the TF 1 class
(it builds with no cluster resolver) and `tf.distribute.MultiWorkerMirroredStrategy` does not
exist (benchmarks/probe_ledger20a_premises.py). Which definitions of the alias can reach the use
is fixer.semantic's answer; this module only asks whether one of them holds `tensorflow.compat.v1`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic import BindingKind
from fixer.tf.names import dotted_name

if TYPE_CHECKING:
    from fixer.semantic import Binding
    from fixer.tf.model import TFModel

_V1 = "tensorflow.compat.v1"


def may_be_compat_v1(tf: TFModel, node: cst.BaseExpression) -> bool:
    """True when ``node`` (a name/attribute chain) is spelled through `tensorflow.compat.v1`, or its
    leading name may hold that module where it is used: any import or assignment of the name that
    can reach the use gives it `tensorflow.compat.v1`. One such definition suffices: the rules that
    ask stay silent when a program may run the TF 1 class."""
    spelled = tf.names.as_imported(node)
    if spelled is not None and (spelled == _V1 or spelled.startswith(_V1 + ".")):
        return True
    head = _leading_name(node)
    if head is None:
        return False
    return any(_holds_v1(tf, definition) for definition in tf.semantic.resolve(head))


def _leading_name(node: cst.BaseExpression) -> cst.Name | None:
    """`tf` of `tf.distribute.experimental.X`, or None when the chain starts with a call or subscript."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return node if isinstance(node, cst.Name) and dotted_name(node) is not None else None


def _holds_v1(tf: TFModel, definition: Binding) -> bool:
    """``definition`` gives its name `tensorflow.compat.v1`: `import tensorflow.compat.v1 as tf`,
    `from tensorflow.compat import v1 as tf`, or `tf = tf.compat.v1` (the right side read through
    the module's imports)."""
    if definition.kind is BindingKind.IMPORT and definition.imported is not None:
        module, name = definition.imported
        return (f"{module}.{name}" if name else module) == _V1
    if definition.kind is BindingKind.ASSIGNMENT and isinstance(definition.value, cst.Attribute):
        return tf.names.as_imported(definition.value) == _V1
    return False
