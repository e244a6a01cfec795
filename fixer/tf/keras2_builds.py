"""Whether a module builds a Keras model in a way only Keras 2 accepts (read with CPython's `ast`).

Measured on TensorFlow 2.21 (benchmarks/probe_ledger13a_premises.py): Keras 3 raises ValueError
for `Input(shape=150)` (an int, not a tuple: "Cannot convert '150' to a shape") and for
`tf.shape` of a symbolic Keras tensor while a functional model is built ("A KerasTensor cannot be
used as input to a TensorFlow function"); tf-keras (Keras 2) builds both. A program whose model
code does either stops under Keras 3 where its model is built, so it runs on Keras 2 only: the
project-target model takes that as it takes a Keras-2-only call (``Target.with_keras2_usage``).

A tf-keras layer inside a `tensorflow.keras` model counts too (ledger17c class 1): a layer of
TensorFlow Hub (`hub.KerasLayer(...)`) or a Hugging Face TF model (`TFXLMRobertaModel.from_pretrained(...)`,
any `TF*` class of `transformers`) is a tf-keras layer once TensorFlow's Keras is 3 (tensorflow_hub 0.16
depends on tf-keras; transformers' TF models import `tf_keras`: read in their sources), and a tf-keras
layer called on a Keras 3 `Input` raises (benchmarks/probe_ledger17c_premises.py, part 1): such a layer
called in a scope that also calls a Keras `Input`, `Model` or `Sequential` means the program builds
only on Keras 2. So does a part of such a model called on a Keras tensor (`bert_model.bert(input_ids)`:
the Hugging Face model's main layer, a tf-keras layer too).

Only what the probe measured counts: an int literal (or a name bound only to int literals in the
same function or at module level) as `Input`'s shape, and `tf.shape` of a name bound, earlier in
the same function, to an `Input(...)` or to a layer applied to one (`Dense(8)(inputs)`). The
module is read with `ast` because imported modules are summarised that way
(fixer/tf/module_summary.py); the checked file is read the same way. Only a module whose text names
`Input(` (both constructions need one) is parsed, and only its scopes that call `Input` are followed.
Given the text, the walk does not enter a function, class or lambda whose lines cannot hold such a
call: in a test module of a hundred methods, a few build a model.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left
from typing import TYPE_CHECKING

from fixer.tf.names import canonical

if TYPE_CHECKING:
    from collections.abc import Iterator

_INPUTS = frozenset({"keras.Input", "keras.layers.Input"})
_MODELS = _INPUTS | frozenset({"keras.Model", "keras.models.Model", "keras.Sequential", "keras.models.Sequential"})
_SHAPE = "tensorflow.shape"
_HUB_LAYER = "tensorflow_hub.KerasLayer"


def may_build_for_keras2(text: str) -> bool:
    """Cheap test before parsing: both constructions need an `Input(` call in the module."""
    return "Input(" in text


def keras2_build(tree: ast.Module, imports: dict[str, str], text: str | None = None) -> tuple[int, str] | None:
    """(line, what) of the first Keras-2-only model construction in ``tree``, or None.

    ``imports`` maps each imported name to the dotted name it binds (`tf` -> `tensorflow`);
    ``text``, the source of ``tree``, lets the walk leave out the definitions that call no `Input`."""
    lines = _input_lines(text, imports) if text is not None else None
    scopes = _scopes(tree, lines)
    module_ints = _int_names(scopes[0])
    found: list[tuple[int, str]] = []
    for nodes in scopes:
        if any(isinstance(node, ast.Call) and _qualified(node.func, imports) in _MODELS for node in nodes):
            found.extend(_in_scope(nodes, imports, module_ints))
    return min(found) if found else None


def _input_lines(text: str, imports: dict[str, str]) -> list[int] | None:
    """The lines, in order, that may hold the function name of a call :func:`_qualified` reads as
    `Input`: its last name is `Input` (`keras.Input`, `layers.Input`: the canonical spellings only
    rewrite a prefix) or a name imported as one (`from keras import Input as I`). Any line with
    such a name in it, in a comment or a string too: a definition none of whose lines has one
    holds no `Input` call. None when lines cannot be told this way: a name in non-ASCII text may
    be spelled otherwise (Python normalises identifiers), and a lone carriage return ends a line
    for Python's parser."""
    if not text.isascii() or text.count("\r") != text.count("\r\n"):
        return None
    names = {"Input", *(local for local, dotted in imports.items() if dotted.rsplit(".", 1)[-1] == "Input")}
    pattern = re.compile("|".join(re.escape(name) for name in sorted(names)))
    lines: list[int] = []
    line, counted = 1, 0
    for match in pattern.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        if not lines or lines[-1] != line:
            lines.append(line)
    return lines


def _may_call_input(node: ast.AST, lines: list[int] | None) -> bool:
    """A definition may hold an `Input` call: one of ``lines`` (None: any line) lies in its span."""
    if lines is None:
        return True
    first = bisect_left(lines, node.lineno)  # type: ignore[attr-defined]
    return first < len(lines) and lines[first] <= (node.end_lineno or node.lineno)  # type: ignore[attr-defined]


def _scopes(tree: ast.Module, lines: list[int] | None = None) -> list[list[ast.AST]]:
    """The assignments and calls of each scope (the module first, then each function, class and
    lambda body), in source order: one walk of the tree. A definition that cannot hold an `Input`
    call by ``lines`` (:func:`_input_lines`) is left out with every scope in it."""
    scopes: list[list[ast.AST]] = [[]]
    stack: list[tuple[ast.AST, int]] = [(child, 0) for child in reversed(tree.body)]
    while stack:
        node, scope = stack.pop()
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Call)):
            scopes[scope].append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            if not _may_call_input(node, lines):
                continue  # its scopes call no `Input`: keras2_build would not read them
            scopes.append([])
            inner = len(scopes) - 1
            body = node.body if isinstance(node.body, list) else [node.body]
            stack.extend((child, inner) for child in reversed(body))
            continue  # decorators, defaults and bases are left out: no model is built there
        stack.extend((child, scope) for child in reversed(list(ast.iter_child_nodes(node))))
    return scopes


def _in_scope(nodes: list[ast.AST], imports: dict[str, str], module_ints: frozenset[str]) -> Iterator[tuple[int, str]]:
    """Keras-2-only constructions of one scope, in source order (names bound before their use)."""
    ints = _int_names(nodes) | module_ints
    symbolic: set[str] = set()
    tf_keras_layers: set[str] = set()
    ordered = sorted(
        (node for node in nodes if isinstance(node, (ast.Assign, ast.Call))),
        key=lambda node: (node.lineno, node.col_offset),
    )
    for node in ordered:
        if isinstance(node, ast.Call):
            name = _qualified(node.func, imports)
            if name in _INPUTS and _int_shape(node, ints):
                yield node.lineno, "Input(shape=<int>)"
            elif name == _SHAPE and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in symbolic:
                yield node.lineno, f"tf.shape({node.args[0].id}) of a Keras tensor"
            elif isinstance(node.func, ast.Name) and node.func.id in tf_keras_layers:
                yield node.lineno, f"{node.func.id}(...), a tf-keras layer, in a Keras model"
            elif (part := _tf_keras_part(node, tf_keras_layers, symbolic)) is not None:
                yield node.lineno, f"{part}(...), part of a tf-keras model, on a Keras tensor"
        elif isinstance(node, ast.Assign) and _symbolic_value(node.value, imports, symbolic):
            symbolic.update(target.id for target in node.targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.Assign) and _tf_keras_layer(node.value, imports):
            tf_keras_layers.update(target.id for target in node.targets if isinstance(target, ast.Name))


def _tf_keras_part(call: ast.Call, tf_keras_layers: set[str], symbolic: set[str]) -> str | None:
    """`model.part` when ``call`` calls an attribute of a tf-keras model on a Keras tensor, or None.

    A Hugging Face TF model is often used through its main layer (`bert_model.bert(input_ids, ...)`,
    a tf-keras `TFBertMainLayer`): that part is a tf-keras layer too, and calling it on a Keras 3
    `Input` raises as calling the model does. Only a call with a Keras tensor among its positional
    arguments counts, so that a method that builds nothing (`bert_model.summary()`) is left out."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in tf_keras_layers):
        return None
    if not any(isinstance(arg, ast.Name) and arg.id in symbolic for arg in call.args):
        return None
    return f"{func.value.id}.{func.attr}"


def _tf_keras_layer(value: ast.expr, imports: dict[str, str]) -> bool:
    """``value`` makes a tf-keras layer: `tensorflow_hub.KerasLayer(...)`, or a `transformers` `TF*`
    model class called or loaded (`TFBertModel.from_pretrained(...)`)."""
    if not isinstance(value, ast.Call):
        return False
    name = _qualified(value.func, imports) or ""
    if name == _HUB_LAYER:
        return True
    parts = name.split(".")
    if parts[-1] == "from_pretrained":
        parts = parts[:-1]
    return len(parts) == 2 and parts[0] == "transformers" and parts[1].startswith("TF")


def _symbolic_value(value: ast.expr, imports: dict[str, str], symbolic: set[str]) -> bool:
    """``value`` is a Keras tensor: `Input(...)`, or a layer called on one (`Dense(8)(x)`)."""
    if not isinstance(value, ast.Call):
        return False
    if _qualified(value.func, imports) in _INPUTS:
        return True
    return isinstance(value.func, ast.Call) and any(
        isinstance(arg, ast.Name) and arg.id in symbolic for arg in value.args
    )


def _int_shape(call: ast.Call, ints: frozenset[str]) -> bool:
    """`Input`'s shape (keyword `shape` or the first argument) is an int."""
    shape = next((kw.value for kw in call.keywords if kw.arg == "shape"), call.args[0] if call.args else None)
    return _is_int(shape) or (isinstance(shape, ast.Name) and shape.id in ints)


def _int_names(nodes: list[ast.AST]) -> frozenset[str]:
    """Names every assignment of which among ``nodes`` (one scope's) is an int literal."""
    values: dict[str, list[ast.expr | None]] = {}
    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values.setdefault(target.id, []).append(node.value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
            values.setdefault(node.target.id, []).append(node.value)
    return frozenset(name for name, assigned in values.items() if all(_is_int(value) for value in assigned))


def _is_int(value: ast.expr | None) -> bool:
    return isinstance(value, ast.Constant) and isinstance(value.value, int) and not isinstance(value.value, bool)


def _qualified(func: ast.expr, imports: dict[str, str]) -> str | None:
    """The canonical dotted name a call's function refers to through the module's imports."""
    parts: list[str] = []
    node = func
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in imports:
        return None
    return canonical(".".join([imports[node.id], *reversed(parts)]))
