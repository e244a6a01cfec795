"""Code written for several TensorFlow versions: fallbacks and version checks are not mistakes.

`getattr(s, "distribute_datasets_from_function", None) or s.experimental_distribute_datasets_from_function`,
the old name in a `try`/`except AttributeError`, or one arm of `if tf.__version__ < ...`: the
deprecated spelling is there on purpose, for the old releases the project still supports.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic import BindingKind
from fixer.tf.bindings import assigned_values
from fixer.tf.calls import calls_within
from fixer.tf.dataflow import names_in
from fixer.tf.index import ModuleIndex, subtree
from fixer.tf.names import dotted_name
from fixer.tf.parameters import positional_parameters

if TYPE_CHECKING:
    from fixer.semantic import SemanticModel
    from fixer.tf.names import NameResolver
    from fixer.tf.strategies import StrategyModel

# Exceptions a missing API raises: catching one around a name means "it may not exist here".
_MISSING_API = frozenset({"AttributeError", "ImportError", "ModuleNotFoundError", "NotImplementedError"})
# Names whose presence in an `if` test makes it a version or feature check.
_VERSION_WORDS = ("version", "VERSION", "hasattr", "LooseVersion", "parse_version")
# A string that spells a release ("2.0.0", "2.2", "1.15", the "1." of a `startswith`).
_RELEASE = re.compile(r"\d+\.(\d+)?(\.\d+)*")


def is_compat_fallback(index: ModuleIndex, node: cst.CSTNode) -> bool:
    """True when ``node`` is a deliberate fallback for another TensorFlow version."""
    previous: cst.CSTNode = node
    for ancestor in index.ancestors(node):
        if isinstance(ancestor, cst.BooleanOperation) and previous is ancestor.right and _probes(ancestor.left):
            return True
        if isinstance(ancestor, cst.Try) and (
            _catches_missing_api(ancestor) or _bare_fallback(ancestor, previous, node)
        ):
            return True
        if (
            isinstance(ancestor, cst.If | cst.IfExp)
            and previous is not ancestor.test
            and _is_version_check(ancestor.test)
        ):
            return True
        if isinstance(ancestor, cst.FunctionDef | cst.ClassDef):
            return False
        previous = ancestor
    return False


def in_version_branch(semantic: SemanticModel, index: ModuleIndex, node: cst.CSTNode) -> bool:
    """True when ``node`` runs under a version or feature test: inside or after (past an
    early ``return``) an ``if`` on ``getattr``/``hasattr``, ``tf.__version__`` or
    ``packaging.version``, or on a name whose one reaching value is such a test, or a release
    string compared with a version read once into a name or an attribute
    (``self.tf_ver = helper()`` ... ``if self.tf_ver == "2.0.0":``)."""
    if any(_is_feature_test(semantic, index, condition.test) for condition in semantic.conditions(node)):
        return True
    # A def or lambda written in an arm of the test (`if tf_ver == "2.0.0": def step(): ...`) runs
    # under it too; one merely after an early `raise` guard (`if not hasattr(...): raise`) does not.
    scope = index.enclosing_function(node)
    while scope is not None:
        if any(
            index.is_within(scope, condition.statement) and _is_feature_test(semantic, index, condition.test)
            for condition in semantic.conditions(scope)
        ):
            return True
        scope = index.enclosing_function(scope)
    return False


def _is_feature_test(semantic: SemanticModel, index: ModuleIndex, test: cst.BaseExpression, depth: int = 0) -> bool:
    if _is_version_check(test) or _probes(test):
        return True
    if any(_stored_version(semantic, index, operand) for operand in _compared_with_release(test)):
        return True
    # A flag computed once (`NEW_TF = version.parse(tf.__version__) >= ...`, `self.tf20 = ver ==
    # "2.0.0"`) and tested later.
    for node in subtree(test):
        if type(node) is cst.Name:
            value = semantic.value_of(node)
            values = [value] if value is not None else []
        elif isinstance(node, cst.Attribute):
            values = assigned_values(index, dotted_name(node))
        else:
            continue
        if depth < 3 and any(_is_feature_test(semantic, index, value, depth + 1) for value in values):
            return True
    return False


def _compared_with_release(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands ``test`` compares with a release string: ``x`` of ``x == "2.0.0"``,
    ``LooseVersion(x) < "2.2"``, ``x in ("2.0.0", "2.1.0")`` and ``x.startswith("1.")``."""
    found: list[cst.BaseExpression] = []
    for node in subtree(test):
        if isinstance(node, cst.Comparison):
            operands = [node.left, *(target.comparator for target in node.comparisons)]
            if any(_is_release(operand) for operand in operands):
                found += [_unwrapped(operand) for operand in operands if not _is_release(operand)]
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ("startswith", "endswith")
            and any(_is_release(arg.value) for arg in node.args)
        ):
            found.append(_unwrapped(node.func.value))
    return found


def _is_release(node: cst.BaseExpression) -> bool:
    """A release string, or a tuple/list/set of them (``v in ("2.0.0", "2.1.0")``)."""
    node = _unwrapped(node)
    if isinstance(node, cst.Tuple | cst.List | cst.Set):
        return bool(node.elements) and all(_is_release(element.value) for element in node.elements)
    return isinstance(node, cst.SimpleString) and _RELEASE.fullmatch(str(node.evaluated_value or "")) is not None


def _unwrapped(node: cst.BaseExpression) -> cst.BaseExpression:
    """The argument of a one-argument call around ``node`` (`LooseVersion(v)`, `str(v)`)."""
    while isinstance(node, cst.Call) and len(node.args) == 1:
        node = node.args[0].value
    return node


def _stored_version(semantic: SemanticModel, index: ModuleIndex, operand: cst.BaseExpression, depth: int = 0) -> bool:
    """``operand`` is a name or attribute whose assigned values are all version reads: a value
    read from outside (``tf.__version__``, a helper's result, possibly from another module, an
    entry of a dict of settings), a parameter, or another such name; compared with a release
    string, it is a version. A literal the program writes itself is not."""
    if isinstance(operand, cst.Name):
        bindings = semantic.resolve(operand)
        if bindings and all(b.kind in (BindingKind.PARAMETER, BindingKind.IMPORT) for b in bindings):
            return True  # the version a caller passes in (`Trainer(tf_ver=...)`) or a module exports
        value = semantic.value_of(operand)
        values = [value] if value is not None else []
    elif isinstance(operand, cst.Attribute):
        values = assigned_values(index, dotted_name(operand))
        if not values:
            return True  # set by another module (a base class, a config object)
    else:
        return isinstance(operand, cst.Call)  # `helper() == "2.0.0"`: compared on the spot
    return bool(values) and all(_version_read(semantic, index, value, depth) for value in values)


def _version_read(semantic: SemanticModel, index: ModuleIndex, value: cst.BaseExpression, depth: int) -> bool:
    """``value`` is read from outside (a call, ``tf.__version__``, ``params["tf_ver"]``), not a
    literal the program writes itself (``"2.0"``); names are followed to their values."""
    if isinstance(value, cst.Name | cst.Attribute) and not _is_version_check(value):
        return depth < 4 and _stored_version(semantic, index, value, depth + 1)
    return not isinstance(value, cst.BaseString | cst.Integer | cst.Float | cst.Tuple | cst.List)


def _probes(node: cst.CSTNode) -> bool:
    """``getattr(x, "name", None)`` or ``hasattr(...)``: the other operand is the fallback."""
    for call in calls_within(node):
        if isinstance(call.func, cst.Name) and call.func.value in ("getattr", "hasattr"):
            return True
    return False


def _catches_missing_api(node: cst.Try) -> bool:
    for handler in node.handlers:
        if handler.type is None:
            continue  # a bare except: a fallback only for what the other side names (_bare_fallback)
        caught = {(dotted_name(n) or "").rsplit(".", 1)[-1] for n in _exception_names(handler.type)}
        if caught & _MISSING_API:
            return True
    return False


# Old and current spellings whose names differ beyond an `experimental_` prefix.
_COUNTERPARTS = {"experimental_run_v2": "run", "CollectiveCommunication": "CommunicationImplementation"}


def _api_key(name: str) -> str:
    """A name and its other-release spelling share this key (`experimental_distribute_datasets_from_function`
    and `distribute_datasets_from_function`, the experimental and current `TPUStrategy`)."""
    return _COUNTERPARTS.get(name, name).removeprefix("experimental_")


def _bare_fallback(node: cst.Try, through: cst.CSTNode, api: cst.CSTNode) -> bool:
    """A bare `except:` makes ``api`` a fallback only when the other side of the `try` spells the
    same API for another release (`try: tf.distribute.TPUStrategy(r)` / `except:
    tf.distribute.experimental.TPUStrategy(r)`) or tests `hasattr` / `getattr` / a version. Around
    hardware detection (`TPUClusterResolver()` failing off a TPU, then `MirroredStrategy()`) it is
    no version fallback: the experimental alias there is as deprecated as anywhere."""
    bare = [handler for handler in node.handlers if handler.type is None]
    if not bare:
        return False
    if through is node.body:
        others: list[cst.CSTNode] = [handler.body for handler in bare]
    elif through in bare:
        others = [node.body]
    else:
        return False
    wanted = _api_key(_final_name(api))
    for other in others:
        if any(_api_key(name) == wanted for name in _attribute_names(other) | names_in(other)):
            return True
        if _probes(other) or _is_version_check(other):
            return True
    return False


def _final_name(node: cst.CSTNode) -> str:
    """The last name of an API reference: `TPUStrategy` of `tf.distribute.experimental.TPUStrategy(r)`."""
    if isinstance(node, cst.Call):
        node = node.func
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return node.value if isinstance(node, cst.Name) else ""


def _exception_names(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.Tuple):
        return [e.value for e in node.elements]
    return [node]


def _is_version_check(test: cst.CSTNode) -> bool:
    mentioned = names_in(test)
    attributes = {a for a in _attribute_names(test)}
    return any(word in name for name in mentioned | attributes for word in _VERSION_WORDS)


def _attribute_names(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class _Collect(cst.CSTVisitor):
        def visit_Attribute(self, attribute: cst.Attribute) -> None:
            found.add(attribute.attr.value)

    node.visit(_Collect())
    return found


def is_type_check_argument(index: ModuleIndex, node: cst.CSTNode) -> bool:
    """True when ``node`` is a class tested by ``isinstance``/``issubclass`` (alone or in a tuple).

    Renaming a class there changes which objects match: `tf.distribute.experimental.TPUStrategy`
    and `tf.distribute.TPUStrategy` are different classes in TensorFlow 2.21.
    """
    parent = index.parent.get(node)
    if isinstance(parent, cst.Element):
        parent = index.parent.get(index.parent.get(parent) or parent)
    if not isinstance(parent, cst.Arg):
        return False
    call = index.parent.get(parent)
    return (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Name)
        and call.func.value in ("isinstance", "issubclass")
        and len(call.args) == 2
        and call.args[1] is parent
    )


# Calls that make a program run TensorFlow 1 graphs: nothing runs eagerly after them.
_GRAPH_MODE_CALLS = frozenset(
    {
        f"tensorflow.{prefix}{name}"
        for prefix in ("", "compat.v1.")
        for name in (
            "disable_eager_execution",
            "disable_v2_behavior",
            "Session",
            "InteractiveSession",
            "train.MonitoredTrainingSession",
            "train.MonitoredSession",
        )
    }
    | {"tensorflow.train.MonitoredTrainingSession", "tensorflow.train.MonitoredSession"}
)


def runs_tf1_graphs(index: ModuleIndex, names: NameResolver) -> bool:
    """True when the module runs TensorFlow 1 graphs (eager execution disabled, or a `Session`).

    There, `strategy.run` builds graph ops that a session runs: TF2 eager-mode advice
    (compile the step with `tf.function`) does not apply.
    """
    return any(names.callee(call) in _GRAPH_MODE_CALLS for call in index.calls)


_GRAPH_OBJECTS = frozenset(
    f"tensorflow.{prefix}{name}" for prefix in ("", "compat.v1.") for name in ("Graph", "Session", "InteractiveSession")
)


def inside_graph_block(index: ModuleIndex, names: NameResolver, node: cst.CSTNode) -> bool:
    """True when ``node`` runs under ``with tf.Graph().as_default():`` (or a Session's) in its own
    function: there TensorFlow builds graph ops that the code evaluates later, nothing runs
    eagerly (tf-keras's graph-mode tests)."""
    func = index.enclosing_function(node)
    for ancestor in index.ancestors(node):
        if ancestor is func:
            return False
        if isinstance(ancestor, cst.With) and any(_graph_default(names, item.item) for item in ancestor.items):
            return True
    return False


def _graph_default(names: NameResolver, expression: cst.BaseExpression) -> bool:
    """``tf.Graph().as_default()`` or ``tf.compat.v1.Session().as_default()``."""
    return (
        isinstance(expression, cst.Call)
        and isinstance(expression.func, cst.Attribute)
        and expression.func.attr.value == "as_default"
        and isinstance(expression.func.value, cst.Call)
        and names.callee(expression.func.value) in _GRAPH_OBJECTS
    )


def runs_repeatedly(index: ModuleIndex, strategies: StrategyModel, node: cst.CSTNode, _depth: int = 0) -> bool:
    """True when ``node`` may run many times: in a loop, or in a function called from one.

    A function with no call site in the module is taken to run repeatedly (a step called by
    code elsewhere); a module-level statement outside loops runs once.
    """
    func = index.enclosing_function(node)
    for ancestor in index.ancestors(node):
        if ancestor is func:
            break
        if isinstance(ancestor, cst.For | cst.While) and not leaves_after_first_pass(ancestor):
            return True
    if func is None:
        return False
    sites = strategies.call_sites(func)
    if not sites or _depth > 8:
        return True
    return any(runs_repeatedly(index, strategies, site, _depth + 1) for site in sites)


def leaves_after_first_pass(loop: cst.For | cst.While) -> bool:
    """True when ``loop``'s body ends with an unconditional `break`/`return`/`raise` and holds no
    `continue` that could skip it: the body runs at most once (a demo on the first batch)."""
    body = loop.body.body
    last = body[-1] if body else None
    if not isinstance(last, cst.SimpleStatementLine) or not isinstance(
        last.body[-1], cst.Break | cst.Return | cst.Raise
    ):
        return False
    found: list[cst.Continue] = []

    class _Continues(cst.CSTVisitor):
        # A `continue` of a nested loop belongs to that loop; nested defs are other code.
        def visit_Continue(self, node: cst.Continue) -> None:
            found.append(node)

        def visit_For(self, node: cst.For) -> bool:
            return False

        def visit_While(self, node: cst.While) -> bool:
            return False

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

    loop.body.visit(_Continues())
    return not found


def imported_modules(index: ModuleIndex) -> list[str]:
    """Every module the file imports, dotted (``from a import b`` gives ``a`` and ``a.b``)."""
    modules: list[str] = []
    for node in index.imports:
        if isinstance(node, cst.Import):
            modules += [dotted_name(alias.name) or "" for alias in node.names]
        elif node.module is not None:
            base = dotted_name(node.module) or ""
            modules.append(base)
            if not isinstance(node.names, cst.ImportStar):
                modules += [f"{base}.{alias.name.value}" for alias in node.names if isinstance(alias.name, cst.Name)]
    return modules


def is_declaration_only(index: ModuleIndex, node: cst.CSTNode) -> bool:
    """True when ``node`` names a class without using it: in a type annotation, or as a class being
    monkey-patched (``tf.distribute.experimental.TPUStrategy.x = ...``, or given to a local function
    that assigns its attributes). Both follow whatever class the program constructs."""
    previous: cst.CSTNode = node
    for ancestor in index.ancestors(node):
        if isinstance(ancestor, cst.Annotation):
            return True
        if isinstance(ancestor, cst.AssignTarget):
            return previous is not node and isinstance(previous, cst.Attribute)
        if isinstance(ancestor, cst.Arg) and previous is node:
            return _patched_parameter(index, ancestor)
        if isinstance(ancestor, cst.BaseStatement | cst.BaseSmallStatement):
            return False
        previous = ancestor
    return False


def _patched_parameter(index: ModuleIndex, arg: cst.Arg) -> bool:
    """``arg`` is given positionally to a module function that assigns attributes of that parameter."""
    call = index.parent.get(arg)
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name) or arg.keyword is not None:
        return False
    position = [a for a in call.args if a.keyword is None].index(arg)
    for func in index.functions_by_name.get(call.func.value, []):
        params = positional_parameters(func)
        if position >= len(params):
            continue
        name = params[position].name.value
        for assign in index.in_function("assigns", func):
            targets = assign.targets if isinstance(assign, cst.Assign) else [assign]
            for target in targets:
                expr = getattr(target, "target", None)
                if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == name:
                    return True
    return False


# Libraries that refuse to import unless tf.keras is Keras 2: tensorflow_recommenders raises
# ImportError at import time when `tf.keras.version()` starts with "3." (its __init__ checks).
_KERAS2_ONLY = ("tensorflow_recommenders",)


def imports_keras2_only_library(index: ModuleIndex) -> bool:
    """True when the file imports a library that only runs with tf-keras: if it runs at all,
    TF_USE_LEGACY_KERAS=1 is in effect and `tf.keras` is Keras 2."""
    return any(module.split(".")[0] in _KERAS2_ONLY for module in imported_modules(index))
