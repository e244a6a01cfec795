"""Which Keras a model is: Keras 2 (tf-keras) or Keras 3, from its import and TF_USE_LEGACY_KERAS.

Shared by the rules whose verdict depends on the Keras in use (TFD101, TFD107, TFD109, TFD504);
what the project runs comes from its target (fixer/target).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

import libcst as cst

from fixer.target.versions import KERAS3_FROM
from fixer.tf.compat import imports_keras2_only_library
from fixer.tf.module_summary import ImportRef
from fixer.tf.names import dotted_name, imported_modules, imported_names
from fixer.tf.tf_config_sources import NOT_LITERAL, env_setters, literal_value

if TYPE_CHECKING:
    from fixer.target import Target
    from fixer.tf.model import TFModel

_KERAS = frozenset({"keras", "tf_keras"})  # importing one reads the switch
_LEGACY_TRUE = frozenset({"1", "true", "True"})  # what TensorFlow 2.21 accepts (tensorflow/__init__.py)


@dataclass(frozen=True)
class LegacySetting:
    """What the script sets TF_USE_LEGACY_KERAS to: True ("1", "true", "True"), False (anything
    else), None (not set, or not a literal); ``node`` is the value of the last setting."""

    value: bool | None
    node: cst.BaseExpression | None
    literal: bool = True


# Per module, its setting: several rules ask for it (three times per check of a long file).
_SETTINGS: WeakKeyDictionary[TFModel, LegacySetting] = WeakKeyDictionary()


def legacy_keras(tf: TFModel) -> LegacySetting:
    """The script's own TF_USE_LEGACY_KERAS setting (the last one; `os.putenv` does not count:
    TensorFlow reads `os.environ`). Comments and docstrings that mention it are not settings."""
    setting = _SETTINGS.get(tf)
    if setting is None:
        setting = _SETTINGS[tf] = _legacy_keras(tf)
    return setting


def _legacy_keras(tf: TFModel) -> LegacySetting:
    setters = env_setters(tf, "TF_USE_LEGACY_KERAS", putenv=False)
    if not setters:
        # A library that imports only under tf-keras (TFRS) means the switch is set outside.
        if imports_keras2_only_library(tf.index):
            return LegacySetting(True, None)
        return _project_setting(tf)
    last = setters[-1]
    value = literal_value(tf, last.value)
    if value is NOT_LITERAL:
        return LegacySetting(None, last.value, literal=False)
    return LegacySetting(str(value) in _LEGACY_TRUE, last.value)


def _project_setting(tf: TFModel) -> LegacySetting:
    """The switch as set by the project modules that run before TensorFlow reads it (the script's
    package's `__init__.py`, a `config` module imported first: fixer/tf/legacy_switch.py)."""
    switch = tf.project.legacy_switch(_imports_before_keras(tf))
    if switch == "unknown":
        return LegacySetting(None, None, literal=False)
    return LegacySetting(None if switch is None else switch == "on", None)


def _imports_before_keras(tf: TFModel) -> list[ImportRef]:
    """The module-level imports of the script that run before TensorFlow reads the switch: before
    its first `tf.keras` use or Keras import, and before `import tensorflow` when it imports from
    `tensorflow.keras` (TensorFlow fixes that package's path at its own import;
    benchmarks/probe_legacy_switch_order.py)."""
    written = [(node, _imported(node)) for node in tf.index.imports if tf.index.enclosing_function(node) is None]
    from_keras = any(any(m.startswith("tensorflow.keras") for m in modules) for _, modules in written)
    first_use = min((tf.index.order[a] for a in tf.index.attributes if a.attr.value == "keras"), default=None)
    found: list[ImportRef] = []
    for node, modules in written:
        if first_use is not None and tf.index.order[node] > first_use:
            break
        roots = {m.split(".")[0] for m in modules}
        if (
            roots & _KERAS
            or any(m.startswith("tensorflow.keras") for m in modules)
            or (from_keras and "tensorflow" in roots)
        ):
            break
        if isinstance(node, cst.Import):
            found += [ImportRef(0, m) for m in modules]
        elif node.module is not None or node.relative:
            module = dotted_name(node.module) if node.module is not None else ""
            names = [name for _, name in imported_names(node)]
            found += [ImportRef(len(node.relative), module or "", n) for n in names] or [
                ImportRef(len(node.relative), module or "")
            ]
    return found


def _imported(node: cst.Import | cst.ImportFrom) -> list[str]:
    """The dotted modules (or module.name) an import statement names: `from tensorflow import
    keras` is `tensorflow.keras`."""
    if isinstance(node, cst.Import):
        return [target for target, _ in imported_modules(node)]
    if node.relative or node.module is None:
        return []
    module = dotted_name(node.module) or ""
    return [module, *(f"{module}.{name}" for _, name in imported_names(node))]


def keras_module(tf: TFModel, func: cst.BaseExpression) -> str:
    """Which Keras a model class comes from: "tf_keras" (Keras 2), "keras" (standalone: Keras 3
    from TensorFlow 2.16 on) or "tensorflow" (`tf.keras`: follows TF_USE_LEGACY_KERAS)."""
    dotted = dotted_name(func) or ""
    head = dotted.split(".")[0]
    bound = _import_path(tf, head) or head
    root = bound.split(".")[0]
    return root if root in ("tf_keras", "keras") else "tensorflow"


def _import_path(tf: TFModel, local: str) -> str | None:
    """The module path the file's first absolute import of ``local`` names, as written (not
    canonicalised): ``import a.b as local`` is ``a.b``, ``import local.b`` is ``local`` (the name it
    binds), ``from m import local`` is ``m.local``."""
    paths = _IMPORT_PATHS.get(tf)
    if paths is None:
        paths = _IMPORT_PATHS[tf] = _first_import_paths(tf)
    return paths.get(local)


# Per module, :func:`_import_path` of every name: TFD101 asks it for each model construction, and
# a scan of every binding each time was 3 ms per edit of a 3,000-line test file.
_IMPORT_PATHS: WeakKeyDictionary[TFModel, dict[str, str]] = WeakKeyDictionary()


def _first_import_paths(tf: TFModel) -> dict[str, str]:
    paths: dict[str, str] = {}
    for binding in tf.semantic.bindings:  # in source order: the first import of a name wins
        if binding.imported is not None and not binding.imported[0].startswith(".") and binding.name not in paths:
            module, name = binding.imported
            paths[binding.name] = f"{module}.{name}" if name else module
    return paths


def keras_flavour(module: str, legacy: LegacySetting, target: Target) -> int | None:
    """2 or 3 for a model from ``module`` (see `keras_module`) on the project's ``target``; None
    when it cannot be told. The script's own TF_USE_LEGACY_KERAS beats the environment's."""
    if module == "tf_keras" or target.version < KERAS3_FROM:
        return 2  # below TensorFlow 2.16 every Keras spelling is Keras 2
    if module == "keras":
        return 2 if target.recorded_keras2 else 3  # a notebook's saved output shows `keras` 2 ran
    if legacy.value is None and not legacy.literal:
        return None  # set from something the script reads: cannot tell
    if legacy.value is None:
        return target.keras  # a Dockerfile's or job config's TF_USE_LEGACY_KERAS, else Keras 3
    return 2 if legacy.value else 3
