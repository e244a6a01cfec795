"""Functions a module turns into Kubeflow Pipelines components.

KFP packages a Python function as a container component: KFP v1 through
``func_to_container_op`` / ``create_component_from_func`` (called with the function or used as
its decorator), KFP v2 through ``@dsl.component``. Each component runs the function's body as the
program of its own pod, with the role the pipeline gives it. What such a body sets in its
environment (TF_CONFIG) is that pod's launch configuration, not a value that every worker running
one shared script would claim.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic import BindingKind

if TYPE_CHECKING:
    from fixer.semantic import SemanticModel
    from fixer.tf.index import ModuleIndex
    from fixer.tf.names import NameResolver

# The last part of the KFP callables that make a component of the function they are given.
_COMPONENT_MAKERS = frozenset({
    "func_to_container_op",
    "create_component_from_func",
    "create_component_from_func_v2",
    "func_to_component_text",
    "component",
})  # fmt: skip


def component_functions(index: ModuleIndex, names: NameResolver, semantic: SemanticModel) -> set[cst.FunctionDef]:
    """The functions of the module that a KFP decorator or component-making call takes."""
    found: set[cst.FunctionDef] = set()
    for function in index.functions:
        for decorator in function.decorators:
            made_by = decorator.decorator
            if isinstance(made_by, cst.Call):
                made_by = made_by.func  # `@dsl.component(base_image=...)`
            if _makes_component(names, made_by):
                found.add(function)
    for call in index.calls:
        if not _makes_component(names, call.func):
            continue
        given = _function_argument(call)
        if given is None:
            continue
        for binding in semantic.resolve(given):
            if binding.kind is BindingKind.FUNCTION and isinstance(binding.statement, cst.FunctionDef):
                found.add(binding.statement)
    return found


def in_component(index: ModuleIndex, components: set[cst.FunctionDef], node: cst.CSTNode) -> bool:
    """True when ``node`` sits in the body of one of ``components`` (at any depth)."""
    return bool(components) and any(ancestor in components for ancestor in index.ancestors(node))


def _makes_component(names: NameResolver, expression: cst.BaseExpression) -> bool:
    qualified = names.qualified(expression)
    if qualified is None:
        return False
    parts = qualified.split(".")
    return parts[0] == "kfp" and parts[-1] in _COMPONENT_MAKERS


def _function_argument(call: cst.Call) -> cst.Name | None:
    """The name the call gets as the function to package: its first positional argument or ``func=``."""
    for arg in call.args:
        if arg.keyword is None and arg.star == "":
            return arg.value if isinstance(arg.value, cst.Name) else None
        if arg.keyword is not None and arg.keyword.value == "func":
            return arg.value if isinstance(arg.value, cst.Name) else None
    return None
