"""Shared analysis for the cluster rules: where code sets TF_CONFIG and literal values.

Not a rule: TFD601, TFD602 and TFD603 all need it, and so does ``fix --emit-launcher``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast
from weakref import WeakKeyDictionary

import libcst as cst

from fixer.syntax import evaluate_literal
from fixer.test_files import is_test_file
from fixer.tf.names import dotted_name

if TYPE_CHECKING:
    from fixer.clusterspec import ClusterProblem
    from fixer.semantic.bindings import Binding
    from fixer.tf.model import TFModel

NOT_LITERAL = object()
_ENVIRON = "os.environ"


@dataclass(frozen=True)
class TfConfigSetter:
    """One statement that sets TF_CONFIG, and the expression it sets it to."""

    statement: cst.BaseStatement
    node: cst.CSTNode  # where to report
    value: cst.BaseExpression
    # For `os.environ.update(...)`: the dict element or keyword argument that holds this key.
    element: cst.DictElement | cst.Arg | None = None


def literal_value(tf: TFModel, expr: cst.BaseExpression, depth: int = 0) -> object:
    """The Python value of a literal-built expression, or NOT_LITERAL.

    Literals, containers of literals, f-strings whose parts are literals, `json.dumps(...)` of a
    literal, and names bound once in the module to any of these.
    """
    if depth > 16:  # names bound to names bound to ...: stop on cycles
        return NOT_LITERAL
    if isinstance(expr, cst.ConcatenatedString):
        # Implicit concatenation ('{"cluster": ...}, ' '"task": ...}'), possibly over several lines
        # and mixing plain strings with f-strings of literals.
        left, right = literal_value(tf, expr.left, depth + 1), literal_value(tf, expr.right, depth + 1)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
        if isinstance(left, bytes) and isinstance(right, bytes):
            return left + right
        return NOT_LITERAL
    if isinstance(expr, (cst.SimpleString, cst.Integer, cst.Float)):
        try:
            return evaluate_literal(tf.source(expr))
        except (ValueError, SyntaxError):
            return NOT_LITERAL
    if isinstance(expr, cst.Name):
        if expr.value in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[expr.value]
        return _name_value(tf, expr, depth)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = literal_value(tf, expr.expression, depth + 1)
        return -inner if isinstance(inner, (int, float)) else NOT_LITERAL
    if isinstance(expr, (cst.List, cst.Tuple)):
        items = [literal_value(tf, e.value, depth + 1) for e in expr.elements]
        return NOT_LITERAL if any(i is NOT_LITERAL for i in items) else items
    if isinstance(expr, cst.Dict):
        result = {}
        for element in expr.elements:
            if not isinstance(element, cst.DictElement):
                return NOT_LITERAL
            key, value = literal_value(tf, element.key, depth + 1), literal_value(tf, element.value, depth + 1)
            if key is NOT_LITERAL or value is NOT_LITERAL:
                return NOT_LITERAL
            result[key] = value
        return result
    if isinstance(expr, cst.FormattedString):
        parts = []
        for part in expr.parts:
            if isinstance(part, cst.FormattedStringText):
                parts.append(part.value)
                continue
            part = cast("cst.FormattedStringExpression", part)  # the only other kind of part
            value = literal_value(tf, part.expression, depth + 1)
            if value is NOT_LITERAL or part.format_spec or part.conversion:
                return NOT_LITERAL
            parts.append(str(value))
        return "".join(parts).replace("{{", "{").replace("}}", "}")
    if isinstance(expr, cst.Call) and qualified(tf, expr.func) == "json.dumps" and expr.args:
        value = literal_value(tf, expr.args[0].value, depth + 1)
        return NOT_LITERAL if value is NOT_LITERAL else json.dumps(value)
    if (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Name)
        and expr.func.value == "dict"
        and not tf.semantic.resolve(expr.func)  # the builtin: nothing of the file's reaches it
    ):
        return _dict_call(tf, expr, depth)
    return NOT_LITERAL


def _dict_call(tf: TFModel, call: cst.Call, depth: int) -> object:
    """``dict(cluster=..., task=...)`` (and ``dict({...}, key=...)``) of literals."""
    result: dict[object, object] = {}
    for arg in call.args:
        if arg.star:
            return NOT_LITERAL
        value = literal_value(tf, arg.value, depth + 1)
        if value is NOT_LITERAL:
            return NOT_LITERAL
        if arg.keyword is None:
            if not isinstance(value, dict) or result:
                return NOT_LITERAL
            result.update(value)
        else:
            result[arg.keyword.value] = value
    return result


# Calls that read a value without changing it: passing a name to anything else may mutate it.
_READ_ONLY_CALLS = frozenset({"print", "len", "str", "repr", "dict", "list", "sorted", "isinstance", "bool", "type"})


def _name_value(tf: TFModel, name_node: cst.Name, depth: int) -> object:
    """The literal value a name has where ``name_node`` reads it: the one ``=`` binding that
    reaches the read (``tf.semantic``), after the literal item assignments of the reads that
    binding reaches (``cfg["task"]["index"] = 1``); NOT_LITERAL when several bindings may reach it
    (bound in a branch), the name is augmented, or the value is changed from anything else
    (``cfg["task"]["index"] = flags.task_index``, ``cfg.update(...)``, passed to a function that
    may change it). A later re-binding (the tutorial's ``cfg = json.loads(os.environ[...])``) does
    not matter to a read that comes before it."""
    name = name_node.value
    if any(
        isinstance(a, (cst.AugAssign, cst.AnnAssign)) and isinstance(a.target, cst.Name) and a.target.value == name
        for a in tf.index.assigns
    ):
        return NOT_LITERAL
    semantic = tf.semantic
    reaching = semantic.resolve(name_node)
    anywhere = not reaching
    if anywhere:
        # Nothing reaches the read (a snippet or notebook whose cells run out of order): the
        # module's one plain assignment of the name, if it has exactly one, is what it reads.
        reaching = [b for b in semantic.bindings if b.name == name and _plain_assignment(b)]
    binding = reaching[0] if len(reaching) == 1 else None
    if binding is None or binding.value is None or not _plain_assignment(binding):
        return NOT_LITERAL
    value = literal_value(tf, binding.value, depth + 1)
    if value is NOT_LITERAL:
        return NOT_LITERAL
    for use in tf.index.names.get(name, []):
        if semantic.binding_at(use) is not None or not (anywhere or binding in semantic.resolve(use)):
            continue  # a binding itself, or a read of another binding's value
        parent = tf.index.parent.get(use)
        if isinstance(parent, cst.Subscript) and parent.value is use:
            if not _apply_item_assignment(tf, parent, value, depth):
                return NOT_LITERAL
        elif isinstance(parent, cst.Attribute) and parent.value is use:
            if parent.attr.value not in ("get", "keys", "values", "items", "copy"):
                return NOT_LITERAL  # cfg.update(...), cfg.setdefault(...), cfg.pop(...)
        elif isinstance(parent, cst.Arg):
            call = tf.index.parent.get(parent)
            callee = qualified(tf, call.func) if isinstance(call, cst.Call) else None
            read_only = isinstance(call, cst.Call) and (
                (callee or "").split(".")[0] in ("json", "tensorflow", "keras", "logging")
                or (isinstance(call.func, cst.Name) and call.func.value in _READ_ONLY_CALLS)
            )
            if not read_only:
                return NOT_LITERAL
    return value


def _plain_assignment(binding: Binding) -> bool:
    """``name = value`` (the name itself a target of a plain ``=``, not unpacked or annotated)."""
    statement = binding.statement
    return isinstance(statement, cst.Assign) and any(t.target is binding.node for t in statement.targets)


def _apply_item_assignment(tf: TFModel, subscript: cst.Subscript, value: object, depth: int) -> bool:
    """Follow ``name[k1][k2]...``: a read is fine; an assignment of a literal is applied to
    ``value``; anything else (a non-literal value or key, a method call on an item) is not."""
    keys: list[Any] = []  # literal keys: whether they index the value is found by trying
    node: cst.CSTNode = subscript
    while isinstance(node, cst.Subscript):
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return False
        key = literal_value(tf, node.slice[0].slice.value, depth + 1)
        if key is NOT_LITERAL:
            return False
        keys.append(key)
        parent = tf.index.parent.get(node)
        if isinstance(parent, cst.Subscript) and parent.value is node:
            node = parent
            continue
        break
    parent = tf.index.parent.get(node)
    if isinstance(parent, cst.AssignTarget) or isinstance(parent, (cst.AugAssign, cst.Del)):
        assign = tf.index.parent.get(parent) if isinstance(parent, cst.AssignTarget) else parent
        if not isinstance(assign, cst.Assign):
            return False
        new = literal_value(tf, assign.value, depth + 1)
        if new is NOT_LITERAL:
            return False
        container = value
        for key in keys[:-1]:
            if not isinstance(container, (dict, list)):
                return False
            try:
                container = container[key]
            except (KeyError, IndexError, TypeError):
                return False
        try:
            container[keys[-1]] = new  # type: ignore[index]  # a wrong key raises TypeError, caught
        except (IndexError, TypeError):
            return False
        return True
    if isinstance(parent, cst.Attribute) and parent.value is node:
        return parent.attr.value in ("get", "keys", "values", "items", "copy")
    return True


# Modules a fragment (a notebook cell, a snippet) uses without importing them: when nothing in
# the file reaches the name, ``os.environ`` can only be the standard one.
_STANDARD_MODULES = frozenset({"os", "json"})


def qualified(tf: TFModel, expr: cst.BaseExpression) -> str | None:
    """``tf.names.qualified``, plus ``os``/``json`` used without an import."""
    found = tf.names.qualified(expr)
    if found is not None:
        return found
    dotted = dotted_name(expr)
    head = (dotted or "").split(".")[0]
    root = expr
    while isinstance(root, cst.Attribute):
        root = root.value
    # Nothing of the file's (an assignment, a parameter, an import) reaches the name: the module.
    if head in _STANDARD_MODULES and isinstance(root, cst.Name) and not tf.semantic.resolve(root):
        return dotted
    return None


def is_environ(tf: TFModel, expr: cst.BaseExpression) -> bool:
    """True for ``os.environ`` however ``os`` was imported (or with ``os`` not imported at all)."""
    return qualified(tf, expr) == _ENVIRON


def is_key(tf: TFModel, expr: cst.BaseExpression, key: str) -> bool:
    """True when ``expr`` is a literal (or a name bound to one) equal to ``key``."""
    return literal_value(tf, expr) == key


def environ_item(tf: TFModel, node: cst.BaseExpression, key: str) -> bool:
    """True for ``os.environ[key]`` (any spelling of ``os.environ`` and of the key's literal)."""
    return (
        isinstance(node, cst.Subscript)
        and is_environ(tf, node.value)
        and len(node.slice) == 1
        and isinstance(node.slice[0].slice, cst.Index)
        and is_key(tf, node.slice[0].slice.value, key)
    )


_SETTER_METHODS = frozenset({"putenv", "setdefault", "update"})


# Per module, what env_setters found: several rules ask the same question of one module (five
# times per check of a long file), and each answer is a scan of all its assignments and calls.
_SETTERS_FOUND: WeakKeyDictionary[TFModel, dict[tuple[str, bool], tuple[TfConfigSetter, ...]]] = WeakKeyDictionary()


def env_setters(tf: TFModel, key: str, putenv: bool = True) -> list[TfConfigSetter]:
    """Every place the module sets the environment variable ``key``, in source order.

    ``os.environ[key] = v``, ``os.environ.setdefault(key, v)``, ``os.environ.update({key: v})``,
    ``os.environ.update(key=v)`` and (with ``putenv``) ``os.putenv(key, v)``, which changes the
    process environment but not ``os.environ``.
    """
    found = _SETTERS_FOUND.setdefault(tf, {})
    if (key, putenv) not in found:
        found[key, putenv] = tuple(_find_env_setters(tf, key, putenv))
    return list(found[key, putenv])


def _find_env_setters(tf: TFModel, key: str, putenv: bool) -> list[TfConfigSetter]:
    found: list[TfConfigSetter] = []
    for assign in tf.index.assigns:
        if not isinstance(assign, cst.Assign):
            continue
        for target in assign.targets:
            if environ_item(tf, target.target, key):
                found.append(TfConfigSetter(tf.index.statement_of(assign), assign, assign.value))
    for call in tf.index.calls:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value not in _SETTER_METHODS:
            continue  # a method's qualified name ends with its own name: not one of the setters
        callee = qualified(tf, call.func)
        if callee == "os.putenv" and len(call.args) == 2 and is_key(tf, call.args[0].value, key):
            if putenv:
                found.append(TfConfigSetter(tf.index.statement_of(call), call, call.args[1].value))
            continue
        if not isinstance(func, cst.Attribute) or not is_environ(tf, func.value):
            continue
        if func.attr.value == "setdefault" and len(call.args) == 2 and is_key(tf, call.args[0].value, key):
            found.append(TfConfigSetter(tf.index.statement_of(call), call, call.args[1].value))
        elif func.attr.value == "update":
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value == key:
                    found.append(TfConfigSetter(tf.index.statement_of(call), call, arg.value, arg))
                elif arg.keyword is None and isinstance(arg.value, cst.Dict):
                    for element in arg.value.elements:
                        if isinstance(element, cst.DictElement) and is_key(tf, element.key, key):
                            found.append(TfConfigSetter(tf.index.statement_of(call), call, element.value, element))
    found.sort(key=lambda setter: tf.index.order[setter.node])
    return found


def tf_config_setters(tf: TFModel) -> list[TfConfigSetter]:
    """Every place the module sets the TF_CONFIG environment variable."""
    return env_setters(tf, "TF_CONFIG")


def tf_config_pops(tf: TFModel) -> list[cst.CSTNode]:
    """``os.environ.pop("TF_CONFIG", ...)`` and ``os.unsetenv("TF_CONFIG")`` calls."""
    found: list[cst.CSTNode] = []
    for call in tf.index.calls:
        if not call.args or not is_key(tf, call.args[0].value, "TF_CONFIG"):
            continue
        func = call.func
        if qualified(tf, func) == "os.unsetenv" or (
            isinstance(func, cst.Attribute) and func.attr.value == "pop" and is_environ(tf, func.value)
        ):
            found.append(call)
    return found


def tf_config_deletions(tf: TFModel) -> list[cst.CSTNode]:
    """``del os.environ["TF_CONFIG"]`` statements (the Del node)."""
    # The index holds every node in the order a visit meets them; a visit of the module would
    # rebuild every node on the way (most of this rule's time on a large file).
    return [
        node
        for node in tf.index.order
        if type(node) is cst.Del and environ_item(tf, node.target, "TF_CONFIG")  # exact type: isinstance is slow
    ]


def tf_config_of(tf: TFModel, setter: TfConfigSetter) -> object:
    """The TF_CONFIG text a setter writes if it is literal-built, else NOT_LITERAL."""
    value = literal_value(tf, setter.value)
    if isinstance(value, dict):
        return json.dumps(value)
    return value if isinstance(value, str) else NOT_LITERAL


def cluster_problems(tf: TFModel, code: str) -> list[tuple[cst.CSTNode, ClusterProblem]]:
    """The defects with this rule ``code`` of every literal TF_CONFIG and `tf.train.ClusterSpec({...})`
    in the module (TFD602 and TFD603 share one analysis; each rule reports its own)."""
    from fixer.clusterspec import check_cluster, parse_tf_config

    if is_test_file(tf.path, tf.module):
        return []  # a test's literal cluster is a fixture (fake hosts, placeholders), not a deployment
    found: list[tuple[cst.CSTNode, ClusterProblem]] = []
    for setter in tf_config_setters(tf):
        config = tf_config_of(tf, setter)
        if isinstance(config, str):
            found.extend((setter.value, problem) for problem in parse_tf_config(config)[1])
    for call in tf.index.calls:
        if tf.names.callee(call) != "tensorflow.train.ClusterSpec":
            continue
        # Its one parameter is `cluster`; any other keyword is TFD604's (a TypeError, not a spec).
        argument = next((a for a in call.args if a.keyword is None and not a.star), None)
        argument = argument or next(
            (a for a in call.args if a.keyword is not None and a.keyword.value == "cluster"), None
        )
        if argument is None:
            continue
        cluster = literal_value(tf, argument.value)
        if cluster == {}:
            # `ClusterSpec({})` is valid and describes no cluster (an evaluator outside the training
            # cluster is given one on purpose): nothing to check (benchmarks/probe_empty_tf_config.py).
            continue
        if cluster is not NOT_LITERAL:
            found.extend((argument.value, problem) for problem in check_cluster(cluster))
    return [(node, problem) for node, problem in found if problem.code == code]
