"""Whether a module is written for TensorFlow 1.x: a fact about the TensorFlow it runs, handed to
the project-target model (``ctx.tf.target.tf1_program``, fixer/target/model.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.target.requirements import Range
from fixer.target.sources import Evidence, exactly, line_of
from fixer.tf.compat import imported_modules
from fixer.tf.names import dotted_name

if TYPE_CHECKING:
    from fixer.target import Target
    from fixer.tf.index import ModuleIndex
    from fixer.tf.names import NameResolver

# Top-level names that only TensorFlow 1.x has (gone from `tf` in 2.0; `tf.compat.v1` keeps them).
_TF1_ONLY_NAMES = frozenset(
    {
        "tensorflow.Session",
        "tensorflow.InteractiveSession",
        "tensorflow.placeholder",
        "tensorflow.ConfigProto",
        "tensorflow.global_variables_initializer",
        "tensorflow.get_variable",
        "tensorflow.variable_scope",
    }
)
# Keras 2's TF 1 session accessor, exported for the v1 API only: `tf.keras.backend.get_session` is gone
# from TensorFlow 2 (benchmarks/probe_fix22a_premises.py). The names model spells `tf.keras` as `keras`,
# so the chain's root tells it from multi-backend Keras (whose 2.3 keeps it on TF 2).
_TF1_ONLY_KERAS = "keras.backend.get_session"
# Names of the TensorFlow 1 API kept by TensorFlow 2: a program using them is written for 1.x
# behaviour, though it runs on the pinned TensorFlow 2.
_V1_API_NAMES = (
    "tensorflow.compat.v1.disable_v2_behavior",
    "tensorflow.estimator.tpu.TPUEstimator",
    "tensorflow.compat.v1.estimator.tpu.TPUEstimator",
)


# The version a program written for TensorFlow 1 and 2 compares to pick its path.
_VERSION_NAMES = ("tensorflow.__version__", "tensorflow.version.VERSION", "tensorflow.VERSION")


def tf1_program_evidence(index: ModuleIndex, names: NameResolver, path: str, text: str) -> Evidence | None:
    """What shows the file is written for TensorFlow 1.x APIs, as a statement about its target
    (fixer/target); None for a TensorFlow 2 program.

    A name only 1.x has (``tensorflow.contrib``, ``tf.Session``, ``tf.placeholder`` under
    ``import tensorflow as tf``) means the file runs on TensorFlow 1.15 (``allowed`` is 1.15).
    ``import tensorflow.compat.v1 as tf`` (its ``distribute`` namespace has only the experimental
    strategy classes), ``disable_v2_behavior()`` and TPUEstimator mean the TensorFlow 1 API on
    the pinned TensorFlow (``allowed`` open). Graph mode alone (``disable_eager_execution()``
    under ``import tensorflow as tf``) is neither: the TF 2 names are there.
    """
    v1_api: str | None = None
    for module in imported_modules(index):
        if module.startswith("tensorflow.contrib"):
            return _statement(module, path, text, tf1_only=True)
        if module == "tensorflow.compat.v1" or module.startswith("tensorflow.compat.v1."):
            v1_api = v1_api or module
    qualified_names = [
        (attribute, names.qualified(attribute) or "")
        for attribute in index.attributes
        # The longest chain, once (the exact class: isinstance on libcst's abstract bases is slow).
        if type(index.parent.get(attribute)) is not cst.Attribute
    ]
    # A program that asks which TensorFlow runs is written for both: its 1.x names are the fallback.
    for_both = any(_asks_which_tensorflow(index, attribute, qualified) for attribute, qualified in qualified_names)
    for attribute, qualified in qualified_names:
        tf1_only = (
            qualified.startswith("tensorflow.contrib.")
            or qualified in _TF1_ONLY_NAMES
            or (qualified == _TF1_ONLY_KERAS and _through_tensorflow(names, attribute))
        )
        if not tf1_only and not qualified.startswith(_V1_API_NAMES):
            continue  # the name first: most attributes are not 1.x names, and an ancestor walk is dear
        if _conditional(index, attribute) or (for_both and qualified not in _V1_API_NAMES):
            continue
        if tf1_only:
            return _statement(dotted_name(attribute) or qualified, path, text, tf1_only=True)
        v1_api = v1_api or dotted_name(attribute) or qualified
    return _statement(v1_api, path, text, tf1_only=False) if v1_api is not None else None


def written_for_both(index: ModuleIndex, names: NameResolver) -> bool:
    """The file asks which TensorFlow runs (`tf.__version__` compared, `tf.executing_eagerly()`):
    it is written for TensorFlow 1 and 2 alike."""
    return any(
        _asks_which_tensorflow(index, attribute, names.qualified(attribute) or "")
        for attribute in index.attributes
        if type(index.parent.get(attribute)) is not cst.Attribute
    )


def _through_tensorflow(names: NameResolver, attribute: cst.Attribute) -> bool:
    """The chain is spelled from the TensorFlow module (``tf.keras.backend....``)."""
    root: cst.BaseExpression = attribute
    while isinstance(root, cst.Attribute):
        root = root.value
    return isinstance(root, cst.Name) and names.qualified(root) == "tensorflow"


def runs_tensorflow_1(target: Target) -> bool:
    """The target model's TF1 fact says the file runs on TensorFlow 1.x itself: it uses a name only
    1.x has (``tensorflow.contrib``, ``tf.Session`` under ``import tensorflow as tf``). Graphs are
    the default there, so failures of TensorFlow 2's eager context do not apply. The
    ``tf.compat.v1`` API alone is not that: it runs eagerly on the pinned TensorFlow 2."""
    evidence = target.tf1_from
    return evidence is not None and not evidence.allowed.open_ended


def _asks_which_tensorflow(index: ModuleIndex, attribute: cst.Attribute, qualified: str) -> bool:
    """`tf.executing_eagerly()`, or the version compared (`tf.__version__ < "2"`,
    `tf.__version__.startswith("1.")`), not merely printed."""
    if qualified == "tensorflow.executing_eagerly":
        return True
    if not qualified.startswith(_VERSION_NAMES):
        return False
    if qualified.endswith(".startswith"):
        return True
    for ancestor in index.ancestors(attribute):
        if isinstance(ancestor, cst.Comparison):
            return True
        if isinstance(ancestor, cst.BaseStatement | cst.BaseSmallStatement):
            return False
    return False


def _conditional(index: ModuleIndex, node: cst.CSTNode) -> bool:
    """``node`` runs only on one path: in an `if`/`else` (`if tf.executing_eagerly(): ... else:
    tf.Session()`), a conditional expression or a `try` (`except ImportError:`). Such a use is the
    other-version fallback of a program written for both, not what the program is."""
    return any(isinstance(a, cst.If | cst.IfExp | cst.Try) for a in index.ancestors(node))


def _statement(name: str, path: str, text: str, *, tf1_only: bool) -> Evidence:
    """``name`` (as the file writes it) as a target statement at its first line in ``text``."""
    offset = text.find(name.rsplit(".", 1)[-1]) if name not in text else text.find(name)
    line = line_of(text, offset) if offset >= 0 else 1
    return Evidence("tf1-program", exactly((1, 15)) if tf1_only else Range(), path, line, name)
