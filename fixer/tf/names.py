"""Canonical qualified names through every import form.

``tf.keras.layers.Dense``, ``keras.layers.Dense`` and ``from tensorflow.keras import layers`` +
``layers.Dense`` all resolve to ``keras.layers.Dense``; ``tf.compat.v2.distribute.X`` and
``tensorflow.distribute.X`` resolve to ``tensorflow.distribute.X``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from fixer.tf.index import ModuleIndex

# Prefix rewrites, longest first, that make equivalent spellings compare equal.
_CANONICAL_PREFIXES: tuple[tuple[str, str], ...] = (
    ("tensorflow.compat.v2.keras.", "keras."),
    ("tensorflow.compat.v1.keras.", "keras."),
    ("tensorflow.python.keras.", "keras."),
    ("tensorflow.keras.", "keras."),
    ("tf_keras.", "keras."),
    ("keras.api._v2.keras.", "keras."),
    ("tensorflow.compat.v2.", "tensorflow."),
    ("tensorflow.compat.v1.distribute.", "tensorflow.distribute."),
    ("tensorflow.compat.v1.train.", "tensorflow.train."),
    ("tensorflow.compat.v1.data.", "tensorflow.data."),
)
_CANONICAL_EXACT = {
    "tensorflow.keras": "keras",
    "tf_keras": "keras",
    "tensorflow.compat.v2": "tensorflow",
    "tensorflow.compat.v2.keras": "keras",
}


def canonical(qualified: str) -> str:
    """Map an equivalent spelling of a TensorFlow / Keras name to one canonical form."""
    if qualified in _CANONICAL_EXACT:
        return _CANONICAL_EXACT[qualified]
    for prefix, replacement in _CANONICAL_PREFIXES:
        if qualified.startswith(prefix):
            return replacement + qualified[len(prefix) :]
    return qualified


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a chain of plain names and attributes, else None."""
    if isinstance(node, cst.Name):
        return node.value  # most calls: rules ask it of every name and callee of a file
    parts: list[str] = []
    current: cst.BaseExpression = node
    while isinstance(current, cst.Attribute):
        parts.append(current.attr.value)
        current = current.value
    if not isinstance(current, cst.Name):
        return None
    parts.append(current.value)
    return ".".join(reversed(parts))


def _import_target(alias: cst.ImportAlias) -> str | None:
    return dotted_name(alias.name) if isinstance(alias.name, (cst.Name, cst.Attribute)) else None


def _as_name(alias: cst.ImportAlias) -> str | None:
    return alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) else None


def imported_modules(node: cst.Import) -> Iterator[tuple[str, str | None]]:
    """``(dotted module, its as-name or None)`` for each module an ``import`` statement names."""
    for alias in node.names:
        target = _import_target(alias)
        if target is not None:
            yield target, _as_name(alias)


def imported_names(node: cst.ImportFrom) -> Iterator[tuple[str, str]]:
    """``(local name, imported name)`` for each plain name a ``from ... import`` binds (none for ``*``)."""
    if isinstance(node.names, cst.ImportStar):
        return
    for alias in node.names:
        if isinstance(alias.name, cst.Name):
            yield _as_name(alias) or alias.name.value, alias.name.value


class NameResolver:
    """Resolves expressions of one module to canonical qualified names.

    Imports anywhere in the module count (function-level imports are common in training scripts);
    a module-level ``Alias = tf.distribute.MirroredStrategy`` also counts as an alias.

    ``reexported(level, module, name)``, when given, says what TensorFlow or Keras name a
    ``from <module> import <name>`` of one of the project's own modules binds (the module
    re-exporting ``tf``: ``from tensorflow_asr import tf``), or None.
    """

    def __init__(self, index: ModuleIndex, reexported: Callable[[int, str, str], str | None] | None = None) -> None:
        self._bindings: dict[str, str] = {}
        self._reexported = reexported
        # Answers of `qualified`, kept once the bindings are complete: rules ask again and again.
        self._resolved: dict[cst.BaseExpression, str | None] | None = None
        for node in index.imports:
            self._add_import(node)
        self._add_assigned_aliases(index)
        self._resolved = {}

    def _add_import(self, node: cst.Import | cst.ImportFrom) -> None:
        if isinstance(node, cst.Import):
            for target, as_name in imported_modules(node):
                if as_name is not None:
                    self._bindings[as_name] = target
                else:
                    head = target.split(".")[0]
                    self._bindings.setdefault(head, head)
            return
        module = dotted_name(node.module) if node.module is not None else ""
        if module is None:
            return
        level = len(node.relative)
        for local, name in imported_names(node):
            library = self._library_reexport(level, module, name)
            if library is not None:
                self._bindings[local] = library
            elif not level:
                self._bindings[local] = f"{module}.{name}"

    def _library_reexport(self, level: int, module: str, name: str) -> str | None:
        """The TensorFlow/Keras name a project module hands on, for an import from that module."""
        if self._reexported is None or (not level and _is_tf_family(canonical(module))):
            return None  # TensorFlow's own module: bound as written
        return self._reexported(level, module, name)

    def _add_assigned_aliases(self, index: ModuleIndex) -> None:
        for node in index.assigns:
            if not isinstance(node, cst.Assign) or len(node.targets) != 1:
                continue
            target = node.targets[0].target
            if not isinstance(target, cst.Name) or target.value in self._bindings:
                continue
            if not isinstance(node.value, (cst.Attribute, cst.Name)):
                continue
            resolved = self.qualified(node.value)
            if resolved is not None and _is_tf_family(resolved):
                self._bindings[target.value] = resolved

    def qualified(self, node: cst.BaseExpression) -> str | None:
        """The canonical qualified name of a name/attribute chain, or None if not imported."""
        resolved = self._resolved
        if resolved is None:
            return self._qualify(node)
        found = resolved.get(node)
        if found is None and node not in resolved:
            found = resolved[node] = self._qualify(node)
        return found

    def _qualify(self, node: cst.BaseExpression) -> str | None:
        spelled = self.as_imported(node)
        return canonical(spelled) if spelled is not None else None

    def as_imported(self, node: cst.BaseExpression) -> str | None:
        """The qualified name of a name/attribute chain as its import spells it, before the
        canonical rewrites (``tensorflow.compat.v1.distribute.X`` stays so), or None if not imported."""
        dotted = dotted_name(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        imported = self._bindings.get(head)
        if imported is None:
            return None
        return f"{imported}.{rest}" if rest else imported

    def callee(self, call: cst.Call) -> str | None:
        """The canonical qualified name of what ``call`` calls, or None."""
        return self.qualified(call.func)

    @property
    def imports_tensorflow(self) -> bool:
        """True when the module imports TensorFlow or Keras in any form."""
        return any(_is_tf_family(canonical(bound)) for bound in self._bindings.values())

    def local_name_for(self, qualified: str) -> str | None:
        """The local spelling that reaches ``qualified`` (e.g. ``tf`` for ``tensorflow``), or None."""
        for local, bound in sorted(self._bindings.items()):
            if canonical(bound) == qualified:
                return local
        for local, bound in sorted(self._bindings.items()):
            bound = canonical(bound)
            if qualified.startswith(bound + "."):
                return local + qualified[len(bound) :]
        return None


def _is_tf_family(qualified: str) -> bool:
    return qualified.split(".")[0] in {"tensorflow", "keras"}
