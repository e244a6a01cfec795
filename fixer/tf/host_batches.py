"""Batches that are not `tf.data` elements: NumPy slices, `ImageDataGenerator` and Python generators.

Not a rule: TFD201 asks it which batch given to `strategy.run` comes from the host, where the
strategy cannot split it (measured on TensorFlow 2.21 with 2 replicas: a NumPy batch of 4 rows
reached both replicas whole, 4 rows each, where a distributed dataset gave 2 each).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic.loop_variables import loop_variable_reaches
from fixer.tf.dataflow import names_in
from fixer.tf.names import dotted_name
from fixer.tf.strategies import visible_defs

if TYPE_CHECKING:
    from fixer.tf.datasets import DatasetModel
    from fixer.tf.model import TFModel

NUMPY = "a NumPy batch"
IMAGE_GENERATOR = "an `ImageDataGenerator` batch"
PYTHON_GENERATOR = "a Python generator's batch"

# NumPy calls that build an array (not a scalar such as `np.mean(x)`).
_ARRAY_BUILDERS = frozenset(
    {
        "array",
        "asarray",
        "load",
        "stack",
        "concatenate",
        "vstack",
        "hstack",
        "zeros",
        "ones",
        "empty",
        "full",
        "arange",
        "linspace",
        "frombuffer",
        "fromfile",
        "loadtxt",
        "genfromtxt",
        "expand_dims",
        "reshape",
        "random.rand",
        "random.randn",
        "random.random",
        "random.normal",
        "random.uniform",
        "random.randint",
    }
)
# Array methods that give an array again.
_ARRAY_METHODS = frozenset({"astype", "reshape", "copy", "squeeze", "transpose", "flatten", "clip"})
# Calls whose first argument's rows come back whole (reshaped or converted, not split).
_SAME_ROWS = frozenset(
    {"numpy.asarray", "numpy.array", "tensorflow.constant", "tensorflow.convert_to_tensor", "tensorflow.cast"}
)
_FLOWS = frozenset({"flow", "flow_from_directory", "flow_from_dataframe"})
_IMAGE_GENERATOR_CLASSES = frozenset({"keras.preprocessing.image.ImageDataGenerator"})


class HostBatches:
    """Tells whether a value handed to the replicas is a batch made on the host, and of what kind.

    A batch is a slice of a NumPy array (`x[i:i + n]`, `x[idx]`), a loop variable or `next(...)`
    of an `ImageDataGenerator.flow...` iterator or of a local generator function; names are
    followed to their bindings. A whole array is not taken for a batch (it may be a constant every
    replica needs).
    """

    def __init__(self, tf: TFModel, datasets: DatasetModel) -> None:
        self.tf = tf
        self.datasets = datasets

    def batch_kind(self, value: cst.BaseExpression, near: cst.CSTNode, depth: int = 0) -> str | None:
        """The kind of host batch ``value`` is, or None (a tf.data element, unknown, not a batch)."""
        if depth > 5:
            return None
        if isinstance(value, cst.Call):
            func = value.func
            if isinstance(func, cst.Name) and func.value == "next" and value.args:
                return self.iterator_kind(value.args[0].value, near, depth + 1)
            if isinstance(func, cst.Attribute) and func.attr.value in ("next", "__next__") and not value.args:
                return self.iterator_kind(func.value, near, depth + 1)
            # The same rows reshaped or converted (`batch = batch.astype(...)` rebinding a loop
            # variable): still the host batch. A split into one value per replica is not this.
            if isinstance(func, cst.Attribute) and func.attr.value in _ARRAY_METHODS:
                return self.batch_kind(func.value, near, depth + 1)
            if (self.tf.names.callee(value) or "") in _SAME_ROWS and value.args:
                return self.batch_kind(value.args[0].value, near, depth + 1)
            return None
        if isinstance(value, cst.Subscript):
            if self.array(value.value, near, depth + 1):
                return NUMPY  # a slice or an index array of a NumPy array
            return self.batch_kind(value.value, near, depth + 1)  # `batch[0]` of a host batch
        if not isinstance(value, cst.Name):
            return None
        enclosing = self.tf.index.enclosing_function(near)
        for ancestor in self.tf.index.ancestors(near):
            if ancestor is enclosing:
                break
            if isinstance(ancestor, cst.For) and value.value in names_in(ancestor.target):
                if not loop_variable_reaches(self.tf.semantic, value, ancestor):
                    break  # rebound in the body first (`x = PerReplica(...)`, a split by hand)
                return self.iterator_kind(unwrap_iteration(ancestor.iter), ancestor, depth + 1)
        return self._agree(
            [self.batch_kind(v, where, depth + 1) for v, where in self.datasets.bindings(value.value, near)]
        )

    def iterator_kind(self, expr: cst.BaseExpression, near: cst.CSTNode, depth: int = 0) -> str | None:
        """The kind of batches iterating ``expr`` gives, or None."""
        if depth > 5:
            return None
        if isinstance(expr, cst.GeneratorExp):
            return PYTHON_GENERATOR
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Name) and func.value == "iter" and expr.args:
                return self.iterator_kind(expr.args[0].value, near, depth + 1)
            if (
                isinstance(func, cst.Attribute)
                and func.attr.value in _FLOWS
                and self._image_generator(func.value, near, depth + 1)
            ):
                return IMAGE_GENERATOR
            if isinstance(func, cst.Name) and self._is_generator_function(func.value, expr):
                return PYTHON_GENERATOR
            return None
        if isinstance(expr, (cst.Name, cst.Attribute)):
            key = dotted_name(expr)
            if key is None:
                return None
            return self._agree(
                [self.iterator_kind(v, where, depth + 1) for v, where in self.datasets.bindings(key, near)]
            )
        return None

    def array(self, expr: cst.BaseExpression, near: cst.CSTNode, depth: int = 0) -> bool:
        """True when ``expr`` is known to be a NumPy array."""
        if depth > 6:
            return False
        if isinstance(expr, cst.Call):
            callee = self.tf.names.callee(expr) or ""
            if callee.startswith("numpy."):
                return callee[len("numpy.") :] in _ARRAY_BUILDERS
            func = expr.func
            if isinstance(func, cst.Attribute) and func.attr.value in _ARRAY_METHODS:
                return self.array(func.value, near, depth + 1)
            return False
        if isinstance(expr, cst.BinaryOperation):
            # `x_train / 255.0`: arithmetic with a number keeps an array.
            numbers = (cst.Integer, cst.Float)
            if isinstance(expr.right, numbers):
                return self.array(expr.left, near, depth + 1)
            if isinstance(expr.left, numbers):
                return self.array(expr.right, near, depth + 1)
            return False
        if isinstance(expr, cst.Name):
            if self._keras_load_data(expr.value, near):
                return True
            bound = self.datasets.bindings(expr.value, near)
            return bool(bound) and all(self.array(v, where, depth + 1) for v, where in bound)
        return False

    def _keras_load_data(self, name: str, near: cst.CSTNode) -> bool:
        """``name`` is unpacked from ``tf.keras.datasets.<set>.load_data()`` (NumPy arrays)."""
        scope = self.tf.index.enclosing_function(near)
        for assign in self.tf.index.assigns:
            if not isinstance(assign, cst.Assign) or not isinstance(assign.value, cst.Call):
                continue
            if self.tf.index.enclosing_function(assign) not in (scope, None):
                continue
            callee = self.tf.names.callee(assign.value) or ""
            if callee.startswith("keras.datasets.") and callee.endswith(".load_data"):
                if any(
                    isinstance(t.target, (cst.Tuple, cst.List)) and name in names_in(t.target) for t in assign.targets
                ):
                    return True
        return False

    def _image_generator(self, expr: cst.BaseExpression, near: cst.CSTNode, depth: int) -> bool:
        """``expr`` is an ``ImageDataGenerator(...)``, directly or through a name."""
        if depth > 6:
            return False
        if isinstance(expr, cst.Call):
            return self.tf.names.callee(expr) in _IMAGE_GENERATOR_CLASSES
        key = dotted_name(expr)
        if key is None:
            return False
        bound = self.datasets.bindings(key, near)
        return bool(bound) and all(self._image_generator(v, where, depth + 1) for v, where in bound)

    def _is_generator_function(self, name: str, call: cst.Call) -> bool:
        """``name`` is a local function that yields (calling it makes a Python generator)."""
        defs = visible_defs(self.tf.index, name, call)
        return bool(defs) and all(isinstance(d, cst.FunctionDef) and _yields(d) for d in defs)

    @staticmethod
    def _agree(kinds: list[str | None]) -> str | None:
        return kinds[0] if kinds and all(k == kinds[0] for k in kinds) else None


def _yields(func: cst.FunctionDef) -> bool:
    """True when ``func`` itself (not a function nested in it) has a ``yield``."""

    class _Find(cst.CSTVisitor):
        found = False

        def visit_Yield(self, node: cst.Yield) -> None:
            self.found = True

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

    finder = _Find()
    func.body.visit(finder)
    return finder.found


# Wrappers a loop iterates through that yield the wrapped iterable's elements: `enumerate` (paired
# with a counter) and progress bars (`tqdm(ds)`, `tqdm.tqdm(ds, total=n)`, `tqdm.auto.tqdm(ds)`).
_PASS_THROUGH = frozenset({"enumerate", "tqdm"})


def unwrap_iteration(iterable: cst.BaseExpression) -> cst.BaseExpression:
    """``X`` of ``enumerate(X)``, ``tqdm(X)`` and their nestings (``enumerate(tqdm(X))``);
    anything else unchanged."""
    while isinstance(iterable, cst.Call) and iterable.args and iterable.args[0].keyword is None:
        name = dotted_name(iterable.func)
        if name is None or name.rsplit(".", 1)[-1] not in _PASS_THROUGH:
            break
        iterable = iterable.args[0].value
    return iterable
