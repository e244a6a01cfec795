"""The semantic model of one module: its scopes and bindings, and the questions rules ask of them."""

from __future__ import annotations

from functools import cached_property

import libcst as cst

from fixer.semantic.attributes import attribute_bindings, attribute_text, entry
from fixer.semantic.bindings import Binding, BindingKind, Scope, ScopeKind
from fixer.semantic.builder import Tree, build
from fixer.semantic.conditions import Condition, conditions, never_runs
from fixer.semantic.constant_calls import not_run, parameter_values
from fixer.semantic.flow import Flow


class SemanticModel:
    """Scopes, bindings and name resolution of one module (notebook cells joined in order).

    Built from the tables of the index walk (``tree``: each node's parent and pre-order number),
    without walking the syntax tree again.
    """

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self._table, self.bindings = build(tree)
        self._by_node: dict[cst.CSTNode, Binding] = {}
        for binding in self.bindings:
            self._by_node[binding.node] = binding
            # The name node inside a parameter or an import alias is the binding too, not a read.
            for part in _name_nodes(binding.node):
                self._by_node[part] = binding
        self._lexical: dict[Binding, Scope] = {}
        for binding in self.bindings:
            self._lexical[binding] = self._lexical_scope(binding)
        self._flow = Flow(tree, self._lexical)

    def _lexical_scope(self, binding: Binding) -> Scope:
        if binding.kind is BindingKind.PARAMETER:
            return self._table.open(binding.statement)
        if binding.kind in (BindingKind.FUNCTION, BindingKind.CLASS):
            return self._table.containing(binding.statement)
        scope = self._table.containing(binding.node)
        while binding.kind is BindingKind.WALRUS and scope.kind is ScopeKind.COMPREHENSION and scope.parent is not None:
            scope = scope.parent
        return scope

    # Scopes ---------------------------------------------------------------------------------

    @cached_property
    def module_scope(self) -> Scope:
        """The module's scope (the root of every other)."""
        root = next(iter(self.tree.order))
        return self._table.open(root)

    def scope_of(self, node: cst.CSTNode) -> Scope:
        """The scope whose code evaluates ``node``."""
        return self._table.containing(node)

    def scope_opened_by(self, node: cst.CSTNode) -> Scope:
        """The scope a def, lambda, class, comprehension or the module opens."""
        return self._table.open(node)

    @property
    def scopes(self) -> list[Scope]:
        """Every scope, in source order of the nodes that open them."""
        return sorted(self._table.scopes.values(), key=lambda s: self.tree.order[s.node])

    # Bindings -------------------------------------------------------------------------------

    def binding_at(self, node: cst.CSTNode) -> Binding | None:
        """The binding ``node`` makes (an assignment's target name, a ``Param``, a def), or None."""
        return self._by_node.get(node)

    def bindings_of(self, name: str, scope: Scope | None = None) -> list[Binding]:
        """The bindings of ``name`` in ``scope`` (default: the module), in source order."""
        return list((scope or self.module_scope).of(name))

    def plain_assignments(self, name: str) -> list[cst.Assign]:
        """Every ``name = value`` statement that assigns ``name`` itself (not in a tuple target),
        in any scope, in source order, each once.

        Flow-free: for questions about the text (is an assignment written before this point,
        which one is the file's last), not about what reaches a use (that is :meth:`resolve`).
        """
        return self._plain_assignments.get(name, [])

    @cached_property
    def _plain_assignments(self) -> dict[str, list[cst.Assign]]:
        table: dict[str, list[cst.Assign]] = {}
        for binding in self.bindings:
            statement = binding.statement
            if type(statement) is cst.Assign and any(t.target is binding.node for t in statement.targets):
                statements = table.setdefault(binding.name, [])
                if not statements or statements[-1] is not statement:  # `a = b = a = 1`: once
                    statements.append(statement)
        return table

    def resolve(self, use: cst.Name) -> list[Binding]:
        """The bindings that can give ``use`` its object, in source order; [] for a builtin or an
        unbound name.

        In the use's own scope only the bindings some path carries to it count (if/else arms,
        try/except, loops, early return/raise, ``del``). A name read from an enclosing function or
        the module gets every binding there that can still hold the name once the code around the
        use is defined: the code runs when called, which is after its ``def`` (or ``class``,
        ``lambda``) has run, so a binding replaced on every path before that point is never seen.
        """
        own = self._by_node.get(use)
        if own is not None:
            return [own]
        return self.reaching(use.value, use)

    def reaching(self, name: str, at: cst.CSTNode) -> list[Binding]:
        """The bindings of ``name`` that can reach ``at`` (any node of the module), as :meth:`resolve`."""
        scope = self._table.containing(at)
        if name in scope.declared_global or name in scope.declared_nonlocal:
            declared = next((b.scope for b in self.bindings if b.name == name and self._lexical[b] is scope), None)
            return self._every(declared or self._enclosing(scope, name), name)
        current: Scope | None = scope
        while current is not None:
            if current is not scope and current.kind is ScopeKind.CLASS:
                current = current.parent  # a class body is not an enclosing scope of its methods
                continue
            if current.of(name):
                if current is scope and any(self._lexical[b] is current for b in current.of(name)):
                    # A nested function's `global`/`nonlocal` binding may have run before `at`.
                    nested = [b for b in self._every(current, name) if self._lexical[b] is not current]
                    flowed = self._flow.reaching(current, name, at)
                    return sorted([*flowed, *nested], key=lambda b: self.tree.order[b.node])
                return self._live_after_definition(current, name, at)
            current = current.parent
        return []

    def resolve_at_calls(self, use: cst.Name) -> list[Binding]:
        """As :meth:`resolve`, but a read of an enclosing function's local from a def nested in
        it that the function only calls by name (never hands out, returns or stores) gets only
        the bindings that reach those calls: the closure runs there, so a rebinding that comes
        after every call (in a later ``if`` arm of another mode) is never what it reads."""
        found = self.resolve(use)
        if use in self._by_node or len(found) < 2:
            return found
        scope = self._table.containing(use)
        if use.value in scope.declared_global or use.value in scope.declared_nonlocal:
            return found
        owner: Scope | None = scope
        while owner is not None and not (owner.of(use.value) and owner.kind is not ScopeKind.CLASS):
            owner = owner.parent
        if owner is None or owner.kind is not ScopeKind.FUNCTION:
            return found  # a module's functions may be called by importers at any later time
        definition = self._definition_in(owner, use)
        calls = self._only_calls(owner, definition) if isinstance(definition, cst.FunctionDef) else None
        if calls is None:
            return found
        carried = {id(b) for call in calls for b in self._flow.reaching(owner, use.value, call)}
        return [b for b in found if id(b) in carried or self._lexical[b] is not owner]

    def _only_calls(self, owner: Scope, definition: cst.FunctionDef) -> list[cst.Call] | None:
        """The calls of ``definition`` (a def of ``owner``) when its name, bound once, is read
        only as the callee of calls in ``owner`` itself, and nothing defined in it escapes: its
        nested defs only called or passed to a call, no lambda, no ``yield`` (a generator's body
        runs when iterated). None otherwise."""
        name = definition.name.value
        if len(owner.of(name)) != 1 or not all(_runs_when_called(d.decorator) for d in definition.decorators):
            return None
        inside = self._nodes_within(definition)
        if any(isinstance(node, cst.Lambda | cst.Yield) for node in inside):
            return None
        nested = {node.name.value for node in inside if isinstance(node, cst.FunctionDef)}
        for node in inside:
            if isinstance(node, cst.Name) and node.value in nested and node not in self._by_node:
                parent = self.tree.parent.get(node)
                if not (isinstance(parent, cst.Call) and parent.func is node) and not isinstance(parent, cst.Arg):
                    return None
        calls: list[cst.Call] = []
        for node in self._reads.get(name, []):
            parent = self.tree.parent.get(node)
            if self._table.containing(node) is not owner or not (isinstance(parent, cst.Call) and parent.func is node):
                return None
            calls.append(parent)
        return calls

    def _nodes_within(self, node: cst.CSTNode) -> list[cst.CSTNode]:
        """The nodes under ``node``: the run of pre-order numbers after it."""
        nodes = self._in_order
        start = self.tree.order[node]
        end = start + 1
        while end < len(nodes) and self._under(nodes[end], node):
            end += 1
        return nodes[start + 1 : end]

    def _under(self, node: cst.CSTNode, ancestor: cst.CSTNode) -> bool:
        current = self.tree.parent.get(node)
        while current is not None and current is not ancestor:
            current = self.tree.parent.get(current)
        return current is ancestor

    @cached_property
    def _in_order(self) -> list[cst.CSTNode]:
        return list(self.tree.order)

    @cached_property
    def _reads(self) -> dict[str, list[cst.Name]]:
        """Every name node that reads a name (not a binding), by name."""
        found: dict[str, list[cst.Name]] = {}
        for node in self.tree.order:
            if isinstance(node, cst.Name) and node not in self._by_node:
                found.setdefault(node.value, []).append(node)
        return found

    def _live_after_definition(self, scope: Scope, name: str, at: cst.CSTNode) -> list[Binding]:
        """The bindings of ``name`` in ``scope`` that code nested in it can read at ``at``.

        ``at`` runs in a function, class or lambda defined in ``scope``: not before that
        definition has run. A binding of ``scope`` itself that no path carries to the definition,
        written before it and not in a loop around it, was replaced before ``at`` could run.
        Bindings made elsewhere (a ``global`` in a function) may run at any time and are kept.
        """
        definition = self._definition_in(scope, at)
        every = self._every(scope, name)
        if definition is None:
            return every
        carried = {id(b) for b in self._flow.reaching(scope, name, definition)}
        loops = self._loops_around(scope, definition)
        order = self.tree.order
        return [
            b
            for b in every
            if id(b) in carried
            or self._lexical[b] is not scope
            or order[b.node] >= order[definition]
            or self._flow.within(definition, b.statement)
            or any(self._flow.within(b.node, loop) for loop in loops)
        ]

    def _definition_in(self, scope: Scope, at: cst.CSTNode) -> cst.CSTNode | None:
        """The nearest node around ``at`` that runs in ``scope``: the def, class, lambda or
        comprehension of ``scope`` whose code holds ``at`` (None when ``at`` is not inside one)."""
        current = self.tree.parent.get(at)
        while current is not None:
            if self._table.containing(current) is scope:
                return current
            current = self.tree.parent.get(current)
        return None

    def _loops_around(self, scope: Scope, node: cst.CSTNode) -> list[cst.CSTNode]:
        """The `for`/`while` statements of ``scope`` that hold ``node`` (it may run again)."""
        loops: list[cst.CSTNode] = []
        current = self.tree.parent.get(node)
        while current is not None and current is not scope.node:
            if isinstance(current, cst.For | cst.While):
                loops.append(current)
            current = self.tree.parent.get(current)
        return loops

    def _enclosing(self, scope: Scope, name: str) -> Scope | None:
        current = scope.parent
        while current is not None:
            if current.of(name):
                return current
            current = current.parent
        return None

    @staticmethod
    def _every(scope: Scope | None, name: str) -> list[Binding]:
        return [b for b in scope.of(name) if b.kind is not BindingKind.DELETION] if scope is not None else []

    def only_binding(self, use: cst.Name) -> Binding | None:
        """The one binding that reaches ``use``, or None when none or several can."""
        found = self.resolve(use)
        return found[0] if len(found) == 1 else None

    def attribute_assignment_at(self, use: cst.Attribute) -> cst.Assign | cst.AnnAssign | None:
        """The one assignment ``a.b = v`` of the attribute ``use`` reads that reaches it, written
        in the same function (or module) on every path from its start to ``use``; None when none
        or several may reach, or when some path leaves the attribute as it was set elsewhere.

        Attributes are not scoped: a call between the assignment and ``use`` may rebind it; only
        the statements of the use's own scope are followed, as for a name."""
        text = attribute_text(use)
        if text is None:
            return None
        scope = self._table.containing(use)
        written = [b for b in self._attribute_bindings.get((id(scope), text), []) if b.node is not use]
        if not written:
            return None
        found = self._flow.reaching_among(scope, [entry(scope, text), *written], use)
        statement = found[0].statement if len(found) == 1 else None
        return statement if isinstance(statement, cst.Assign | cst.AnnAssign) else None

    @cached_property
    def _attribute_bindings(self) -> dict[tuple[int, str], list[Binding]]:
        return attribute_bindings(self.tree.order, self._table.containing)

    def value_of(self, use: cst.Name) -> cst.BaseExpression | None:
        """The expression ``use`` holds when one binding reaches it and the source says its value."""
        binding = self.only_binding(use)
        return binding.value if binding is not None else None

    # Branches -------------------------------------------------------------------------------

    def conditions(self, node: cst.CSTNode) -> list[Condition]:
        """The `if`/`while` tests known true or false where ``node`` runs, within its scope."""
        return conditions(self.tree, node, self._table.containing(node).node)

    def not_run_in_call(self, func: cst.FunctionDef, call: cst.Call) -> list[cst.CSTNode] | None:
        """The statements and blocks of ``func`` that cannot run for ``call``: its literal arguments
        (and literal defaults) decide the `if` tests on its parameters, and a decided arm that
        returns ends the function (fixer/semantic/constant_calls.py). None when the call unpacks
        its arguments. ``call`` must call ``func`` by name (no bound ``self``)."""
        values = parameter_values(func, call, self._table.open(func))
        if values is None:
            return None
        body = func.body
        return not_run(list(body.body) if isinstance(body, cst.IndentedBlock) else [], values)

    def never_runs(self, node: cst.CSTNode) -> bool:
        """``node`` is dead code in its scope: after a `return`/`raise`/`continue`/`break` of its
        block, or under `if False:` (a fix must not edit it, nor read a pipeline from it)."""
        return never_runs(self.tree, node, self._table.containing(node).node)


def _runs_when_called(decorator: cst.BaseExpression) -> bool:
    """A decorator that keeps the body running when the name is called (``@tf.function``, which
    traces it at the call); any other may register it to be called elsewhere, later."""
    return (
        isinstance(decorator, cst.Attribute | cst.Name)
        and (decorator.attr.value if isinstance(decorator, cst.Attribute) else decorator.value) == "function"
    )


def _name_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    if isinstance(node, cst.Param):
        return [node.name]
    if isinstance(node, cst.ImportAlias):
        parts: list[cst.CSTNode] = [node.asname.name] if node.asname is not None else []
        current: cst.BaseExpression = node.name
        while isinstance(current, cst.Attribute):
            parts.append(current.attr)
            current = current.value
        return [*parts, current]
    return []
