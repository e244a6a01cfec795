"""Python facts about one module, with no TensorFlow: scopes, bindings, which binding reaches a use.

``SemanticModel.build(module, tree)`` records every scope and binding of a module once;
``resolve(name)`` gives the bindings that can reach a use of a name (flow-aware), and
``calls.CallResolver`` says which functions of the module a call may run. See
docs/semantic-layer.md.
"""

from fixer.semantic.bindings import Binding, BindingKind, Branch, Scope, ScopeKind
from fixer.semantic.calls import CallResolver
from fixer.semantic.conditions import Condition
from fixer.semantic.definite import PathIndex, bound_on_every_path, rebound_below
from fixer.semantic.model import SemanticModel
from fixer.semantic.targets import assignment_targets, target_names

__all__ = [
    "Binding",
    "BindingKind",
    "Branch",
    "CallResolver",
    "Condition",
    "PathIndex",
    "Scope",
    "ScopeKind",
    "SemanticModel",
    "assignment_targets",
    "bound_on_every_path",
    "rebound_below",
    "target_names",
]
