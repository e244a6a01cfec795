"""TFD401: a deprecated ``tf.distribute`` spelling that has a current name."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.facts import RENAMED_DISTRIBUTE_API
from fixer.rule import Rule
from fixer.target.apis import FROM_IMPORT_FAILS_FROM, REAL_SUBMODULES, exists_in
from fixer.tf.class_type_tests import project_type_test, type_test_of
from fixer.tf.compat import (
    in_version_branch,
    is_compat_fallback,
    is_declaration_only,
    is_type_check_argument,
)
from fixer.tf.compat_v1 import may_be_compat_v1
from fixer.tf.names import dotted_name
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext
    from fixer.target.model import Target

# Deprecated method names on a strategy object -> current names.
_METHODS = {
    "experimental_run_v2": "run",
    "experimental_distribute_datasets_from_function": "distribute_datasets_from_function",
}
# TensorFlow 1 style strategy methods that TF 2 keeps (measured on 2.21: both run) -> what to write
# instead, and the method the replacement needs in the target. Not a rename: reported without an edit.
_REPLACED_METHODS: dict[str, tuple[str, str]] = {
    "make_dataset_iterator": ("iter(strategy.experimental_distribute_dataset(dataset))", "run"),
    "experimental_run": ("strategy.run(fn, args=(next(iterator),))", "run"),
}
# Deprecated qualified names -> (current name, keyword arguments the current one does not take,
# how many positional arguments mean the same in both). The experimental MultiWorkerMirroredStrategy
# takes `communication` first, the current one `cluster_resolver`; TPUStrategy's second
# positional argument is `device_assignment` in one and `experimental_device_assignment` in the other.
_CLASSES: dict[str, tuple[str, frozenset[str], int]] = {
    "tensorflow.distribute.experimental.MultiWorkerMirroredStrategy": (
        "tensorflow.distribute.MultiWorkerMirroredStrategy",
        frozenset({"communication"}),
        0,
    ),
    "tensorflow.distribute.experimental.TPUStrategy": (
        "tensorflow.distribute.TPUStrategy",
        frozenset({"steps_per_run", "device_assignment"}),
        1,
    ),
    "tensorflow.distribute.experimental.CollectiveCommunication": (
        "tensorflow.distribute.experimental.CommunicationImplementation",
        frozenset(),
        99,
    ),
}
# The names above that are classes other than their current name (not aliases): an object of the
# current class fails `isinstance` against them (benchmarks/probe_ledger14a_premises.py).
_STRATEGY_CLASSES = frozenset(
    {
        "tensorflow.distribute.experimental.MultiWorkerMirroredStrategy",
        "tensorflow.distribute.experimental.TPUStrategy",
    }
)
# The names above whose `tf.compat.v1` spelling is the same object as the TF2 one (measured on 2.21
# by benchmarks/probe_compat_v1_strategy_classes.py). The compat.v1 MultiWorkerMirroredStrategy and
# TPUStrategy are other classes (TF1 `StrategyV1` subclasses), not deprecated aliases.
_SAME_UNDER_COMPAT_V1 = frozenset({"tensorflow.distribute.experimental.CollectiveCommunication"})
_EXPERIMENTAL_MODULE = "tensorflow.distribute.experimental"


class RenamedDistributeApi(Rule):
    """
    ## What it does
    Finds `tf.distribute` APIs used under a deprecated name: `strategy.experimental_run_v2`,
    `strategy.experimental_distribute_datasets_from_function`,
    `tf.distribute.experimental.MultiWorkerMirroredStrategy`, `tf.distribute.experimental.TPUStrategy`
    and `tf.distribute.experimental.CollectiveCommunication`, and the TensorFlow 1 methods
    `strategy.make_dataset_iterator(dataset)` and `strategy.experimental_run(fn, iterator)`.

    ## Why is this bad in distributed training?
    The old names print deprecation warnings on every worker, some are gone from recent
    TensorFlow releases, and the experimental strategy classes take different keyword arguments
    than the current ones, so copied snippets break in confusing ways.

    ## Which TensorFlow
    The project's target decides (`distfix target` prints it; `--target-version` changes it):
    a name is rewritten only to one that exists in the target (no `run` for a project pinned to
    TensorFlow 2.1, no `tf.distribute.MultiWorkerMirroredStrategy` before 2.4), "removed" is said
    only when the target lacks the old name, and with `--target-version` newer than the pin the
    message starts "on upgrade to TF X.Y". On TensorFlow 2.21, `from tensorflow.distribute import
    MirroredStrategy` (or `from tensorflow.distribute.experimental import ...`) raises
    `ImportError` although `tf.distribute.MirroredStrategy` exists: such imports are reported too,
    without an edit.

    ## Fix safety
    Safe: the new name is the same function or class. When a call passes a keyword that only
    the experimental class takes (`communication=`, `steps_per_run=`, `device_assignment=`), or
    positional arguments the current class reads as something else (the experimental
    `MultiWorkerMirroredStrategy` takes `communication` first, the current one
    `cluster_resolver`), the rename would change the call, so the finding is reported without an
    edit. Unsafe where no release is stated but a notebook's saved output (the checked notebook's,
    or for a script one in its folder) shows a run on a release without the new name: a printed
    2.x, a `tensorflow.python.keras` repr (TF 2.5 or older), an `XLA_CPU`/`XLA_GPU` device (TF 2.3
    or older). That past run does not move the target, so the finding stays (true on the
    TensorFlow a rerun gets today), but the rename would break the notebook on the release it last
    ran on; the message says which output shows it (docs/target.md, "A notebook's saved output").
    No finding where the repository's CI installs several releases (`pip install tensorflow==2.3.0`
    in one job, `==2.9.0` in others) and the oldest lacks the new name: there the old name is the
    only one, so the project keeps it on purpose, as under a container matrix (fix22b; docs/target.md,
    "Releases a CI installs").
    The experimental `TPUStrategy` and `MultiWorkerMirroredStrategy` are other classes than the
    current ones (siblings; a subclass): when this file, or a project script that calls this
    module, tests `isinstance`/`issubclass` against the experimental class, renaming its reference
    alone would flip that test, so the finding names the test and has no edit
    (`benchmarks/probe_ledger14a_premises.py`). So does a test of the experimental class in any
    other `.py` file of the project root, one no import links to this module (a package reached
    through `sys.path`, a copied folder): the message names the nearest such file.

    ## Known limits
    - `make_dataset_iterator` and `experimental_run` still run on TensorFlow 2.21 (measured;
      `experimental_run` warns "is deprecated and will be removed in a future version ... use run()
      instead"): they are not renames, so the finding says what to write and has no edit. Given an
      element (`next(it)`, `it.get_next()` or a name bound to one) instead of an iterator,
      `experimental_run` calls `get_next()` on it and fails on every TF 2 (measured by
      `benchmarks/probe_ledger10a_premises.py`); the advice is then `run(fn, args=next(it))` for a
      `fn` of two or more parameters, `args=(next(it),)` for one, both forms when `fn` is not a
      `def` of the file.
    - Only calls are reported (not a method kept or replaced by assignment).
    - Not reported: the old name in a branch of a version test, also when the version was read
      once into a name or an attribute and is compared with a release string later
      (`self.tf_ver = helper()` ... `if self.tf_ver == "2.0.0":`, `v.startswith("2.0")`): the
      value is taken for a version unless every value written to it is a literal of the program.
    - Not reported: `tf.compat.v1.distribute.experimental.MultiWorkerMirroredStrategy` and
      `.TPUStrategy`, TF1 classes (`StrategyV1`) that no TF2 name aliases (measured on 2.21 by
      `benchmarks/probe_compat_v1_strategy_classes.py`; the compat.v1 `CollectiveCommunication` is
      the TF2 enum and is renamed), also spelled through an alias that may hold
      `tensorflow.compat.v1` where it is used (`tf = tf.compat.v1` after a version test, or a
      tried `import tensorflow.compat.v1 as tf`); the TF 1 methods in a file that names `compat.v1.distribute` (a
      `tf.compat.v1` strategy, whose own methods they are) or on a strategy of unknown class in a
      file that reads TF 1 iterators (`tf.compat.v1.data.*`: a library's graph-mode path, given
      `tf.compat.v1` strategies), and a target without `run` (before 2.2).
    - A TensorFlow 1.x program (`tf.contrib`, `tf.Session`, `tf.placeholder`,
      `tf.keras.backend.get_session()`, `import tensorflow.compat.v1 as tf`,
      `disable_v2_behavior()`, TPUEstimator; docs/target.md) gets
      nothing: its experimental names are the only ones it has. So does a module its package's
      `__init__.py` imports only in the TF 1 arm of its own test (`if in_tensorflow2(): from .
      import v2 else: from . import v1`; the test is read from its words: `tf2`, `tensorflow2`,
      `executing_eagerly`, `startswith("1")`).
    - A package that declares a floor (`tensorflow>=1.15,<3` in setup.py, a module it imports,
      setup.cfg or pyproject.toml) is renamed only to names its floor has too, in its modules
      (folders with `__init__.py`). An open requirement (`tensorflow>=2.4.0` of a vendored package)
      under an older release its repository states farther up (the root README's `==2.3.1`) is
      the same: renamed only to names both have, advice naming both where the old name is gone
      from one and the new one missing from the other (docs/target.md). A notebook whose saved
      output prints TensorFlow 1.x is judged on that version (docs/target.md). A notebook pinned
      to a platform image of its first publication (`docker_image_pinning_type` "original") is
      not reported for a new name some release lacks: that image's oldest possible release cannot
      be told, and the image never moves, so the old name keeps working where the notebook runs.
    - A README that lists several supported release lines (`TensorFlow: 1.15.x & 2.4.x`,
      docs/target.md): a rename to a name the oldest line lacks gets no edit (the message names
      the line), and a file that tests which TensorFlow runs is judged on that line (not reported).

    ## Runtime evidence
    The renamed APIs are aliases in TensorFlow 2.x; which names exist, and the failing imports,
    are measured on 2.21 by `benchmarks/probe_target_apis.py` (see docs/target.md), which
    `tf.compat.v1.distribute` names are the TF2 objects by `benchmarks/probe_compat_v1_strategy_classes.py`;
    what TF 2.21 prints where an old saved output shows its release, by
    `benchmarks/probe_saved_run_signs.py`; that `tf.keras.backend.get_session` is v1-only and
    TensorFlow 1.15's namespace has only the experimental MWMS, by
    `benchmarks/probe_fix22a_premises.py`.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/distribute/Strategy#run
    - https://www.tensorflow.org/api_docs/python/tf/distribute/MultiWorkerMirroredStrategy
    """

    code = "TFD401"
    name = "renamed-distribute-api"
    message = "deprecated tf.distribute API name"
    fix_title = "Use the current name"
    applicability = Applicability.SAFE
    triggers = (
        "experimental_run_v2",
        "experimental_distribute_datasets_from_function",
        "distribute.experimental",
        "MultiWorkerMirroredStrategy",
        "TPUStrategy",
        "CollectiveCommunication",
        "from tensorflow.distribute",
        "make_dataset_iterator",
        "experimental_run",
    )
    facts = (RENAMED_DISTRIBUTE_API,)

    def check(self, ctx: RuleContext) -> None:
        if ctx.tf.target.tf1_program or ctx.tf.project.imported_only_for_tf1():
            # TF 1.x APIs (also a module its package imports only for TF 1): the current names
            # do not exist there (tf.compat.v1.distribute, contrib)
            return
        self._check_methods(ctx)
        self._check_replaced_methods(ctx)
        self._check_qualified_attributes(ctx)
        self._check_imports(ctx)

    def _check_methods(self, ctx: RuleContext) -> None:
        for attribute in ctx.index.attributes:
            new = _METHODS.get(attribute.attr.value)
            if new is None or not ctx.tf.strategies.is_strategy(attribute.value):
                continue
            if is_compat_fallback(ctx.index, attribute) or in_version_branch(ctx.tf.semantic, ctx.index, attribute):
                continue  # kept on purpose for older TensorFlow releases
            target = ctx.tf.target
            state = _method_state(attribute.attr.value, new, target.version)
            old = attribute.attr.value
            if state == "removed" and not target.has(new) and (disagreement := target.disagreement(new)):
                # Gone from the release that decided, missing from an older one the repository
                # states: no one name runs on both, so advice naming both, never an edit.
                ctx.report(attribute.attr, f"`{old}` is removed in {target.label()}; `{new}` {disagreement}")
                continue
            if state is None or not target.has(new):
                continue  # the target (or the package's declared floor) has only the old name
            if state == "removed":
                message = (
                    f"`{old}` is removed in {target.label()} (`AttributeError`{target.assumed_note()}); use `{new}`"
                )
            else:
                message = f"`{old}` is deprecated; use `{new}`"
            same_at_pin = state == _method_state(old, new, target.at_pin().version)
            if (older_line := _older_line_without(target, [new])) is not None:
                ctx.report(attribute.attr, target.upgrade_prefix(same_at_pin) + message + older_line)
                continue
            caveat, applicability = _saved_run_caveat(target, new)
            ctx.report(
                attribute.attr,
                target.upgrade_prefix(same_at_pin) + message + caveat,
                edits=[ctx.replace(attribute.attr, new)],
                applicability=applicability,
            )

    def _check_replaced_methods(self, ctx: RuleContext) -> None:
        """`strategy.make_dataset_iterator(ds)` / `strategy.experimental_run(fn, it)`: TF 1 input and
        step methods with a different TF 2 shape, so the finding says what to write instead."""
        if "compat.v1.distribute" in ctx.text:
            return  # a tf.compat.v1 strategy (names normalise it to tf.distribute): its own methods
        tf1_input = "compat.v1.data." in ctx.text  # TF 1 iterators: a graph-mode input path
        target = ctx.tf.target
        for attribute in ctx.index.attributes:
            replaced = _REPLACED_METHODS.get(attribute.attr.value)
            if replaced is None or not ctx.tf.strategies.is_strategy(attribute.value):
                continue
            call = ctx.index.parent.get(attribute)
            if not (isinstance(call, cst.Call) and call.func is attribute):
                continue  # kept or replaced (`strategy.make_dataset_iterator = patched`), not called
            if is_compat_fallback(ctx.index, attribute):
                continue
            if tf1_input and not ctx.tf.strategies.kinds(attribute.value) - {"tensorflow.distribute.Strategy"}:
                # A strategy handed in (its class unknown) to code that reads TF 1 iterators
                # (`tf.compat.v1.data.get_output_shapes`): the graph-mode path of a library,
                # where callers pass `tf.compat.v1` strategies whose own methods these are.
                continue
            instead, needs = replaced
            if not target.has(needs):
                continue  # the target (or the package's floor) has no `run` yet: the old method is the one to use
            prefix = target.upgrade_prefix(same_at_pin=exists_in(needs, target.at_pin().version))
            element = _element_run_advice(ctx, call) if attribute.attr.value == "experimental_run" else None
            if element is not None:
                ctx.report(attribute.attr, prefix + element)
                continue
            ctx.report(
                attribute.attr, f"{prefix}`{attribute.attr.value}` is a TensorFlow 1 strategy method; use `{instead}`"
            )

    def _check_qualified_attributes(self, ctx: RuleContext) -> None:
        for attribute in ctx.index.attributes:
            qualified = ctx.tf.names.qualified(attribute)
            if qualified not in _CLASSES:
                continue
            if qualified not in _SAME_UNDER_COMPAT_V1 and may_be_compat_v1(ctx.tf, attribute):
                # A TF1 strategy class under tf.compat.v1 (spelled so, or `tf` may hold it: `import
                # tensorflow.compat.v1 as tf`, `tf = tf.compat.v1`): no TF2 name is that class.
                continue
            if is_declaration_only(ctx.index, attribute):
                continue  # an annotation or a monkey-patch follows the class the program constructs
            if (
                is_compat_fallback(ctx.index, attribute)
                or in_version_branch(ctx.tf.semantic, ctx.index, attribute)
                or is_type_check_argument(ctx.index, attribute)
            ):
                # Older releases on purpose, or a type test that must match the old class too
                # (the experimental and current TPUStrategy are different classes).
                continue
            new, blocked, positional = _CLASSES[qualified]
            if not ctx.tf.target.has(new):
                continue  # the target, or the oldest TensorFlow the package declares, has only the experimental name
            old_text = dotted_name(attribute) or qualified
            local = ctx.tf.names.local_name_for(new)
            parent = ctx.index.parent.get(attribute)
            call = parent if isinstance(parent, cst.Call) and parent.func is attribute else None
            blocker = _blocking_argument(call, blocked, positional) if call is not None else None
            prefix = ctx.tf.target.upgrade_prefix(same_at_pin=exists_in(new, ctx.tf.target.at_pin().version))
            message = f"{prefix}`{old_text}` is deprecated; use `{local or new}`"
            if local is None or blocker is not None:
                if blocker is not None:
                    message += f" (rewrite {blocker} by hand)"
                ctx.report(attribute, message)
                continue
            tested = None
            if qualified in _STRATEGY_CLASSES:
                # A test no import links to this module may be this object's test too (ledger16b).
                tested = type_test_of(ctx.tf, qualified) or project_type_test(ctx.tf, qualified)
            if tested is not None:
                # Renamed alone, the object is no longer an instance of the tested class.
                ctx.report(attribute, f"{message} together with the `isinstance` test at {tested} (different classes)")
                continue
            if (older_line := _older_line_without(ctx.tf.target, [new])) is not None:
                ctx.report(attribute, message + older_line)
                continue
            caveat, applicability = _saved_run_caveat(ctx.tf.target, new)
            ctx.report(attribute, message + caveat, edits=[ctx.replace(attribute, local)], applicability=applicability)

    def _check_imports(self, ctx: RuleContext) -> None:
        for node in ctx.index.imports:
            if not isinstance(node, cst.ImportFrom) or node.module is None:
                continue
            if self._stale_import(ctx, node):
                continue
            if dotted_name(node.module) not in {_EXPERIMENTAL_MODULE, "tensorflow.compat.v2.distribute.experimental"}:
                continue
            if isinstance(node.names, cst.ImportStar):
                continue
            renamed = [
                a
                for a in node.names
                if isinstance(a.name, cst.Name)
                and f"{_EXPERIMENTAL_MODULE}.{a.name.value}" in _CLASSES
                and ctx.tf.target.has(_CLASSES[f"{_EXPERIMENTAL_MODULE}.{a.name.value}"][0])
            ]
            if not renamed:
                continue
            movable = len(renamed) == len(node.names) and all(
                _CLASSES[f"{_EXPERIMENTAL_MODULE}.{a.name.value}"][0].rsplit(".", 1)[0] == "tensorflow.distribute"
                and not _name_used_with_blocking_arguments(
                    ctx, a, *_CLASSES[f"{_EXPERIMENTAL_MODULE}.{a.name.value}"][1:]
                )
                for a in renamed
            )
            names = ", ".join(cst.ensure_type(a.name, cst.Name).value for a in renamed)
            pinned = ctx.tf.target.at_pin().version
            same_at_pin = all(exists_in(_CLASSES[f"{_EXPERIMENTAL_MODULE}.{a.name.value}"][0], pinned) for a in renamed)
            message = (
                f"{ctx.tf.target.upgrade_prefix(same_at_pin)}`{names}` "
                "from `tensorflow.distribute.experimental` is deprecated; import it from `tensorflow.distribute`"
            )
            lacking = [_CLASSES[f"{_EXPERIMENTAL_MODULE}.{a.name.value}"][0] for a in renamed]
            if movable and (older_line := _older_line_without(ctx.tf.target, lacking)) is not None:
                ctx.report(node.module, message + older_line)
            elif movable:
                caveat, applicability = next(
                    (c for c in (_saved_run_caveat(ctx.tf.target, n) for n in lacking) if c[1] is not None),
                    ("", None),
                )
                ctx.report(
                    node.module,
                    message + caveat,
                    edits=[ctx.replace(node.module, "tensorflow.distribute")],
                    applicability=applicability,
                )
            else:
                ctx.report(node.module, message)

    def _stale_import(self, ctx: RuleContext, node: cst.ImportFrom) -> bool:
        """Report `from tensorflow.distribute[...] import Name` where the target raises ImportError
        for it (TensorFlow 2.21 on); True when reported."""
        if node.module is None:
            return False
        module = dotted_name(node.module)
        if (
            module is None
            or node.relative
            or not module.startswith("tensorflow.distribute")
            or isinstance(node.names, cst.ImportStar)
        ):
            return False
        target = ctx.tf.target
        if target.version < FROM_IMPORT_FAILS_FROM:
            return False  # measured on 2.21 only: older releases are not judged
        real = REAL_SUBMODULES.get(module, frozenset())
        stale = [a.name.value for a in node.names if isinstance(a.name, cst.Name) and a.name.value not in real]
        if not stale:
            return False
        first = stale[0]
        current = _CLASSES.get(f"{module}.{first}", (f"{module}.{first}",))[0].replace("tensorflow.", "tf.", 1)
        ctx.report(
            node.module,
            f"{target.upgrade_prefix()}`from {module} import {first}` raises `ImportError` "
            f"on {target.label()}{target.assumed_note()}; "
            f"use `{current}` after `import tensorflow as tf`",
        )
        return True


def _older_line_without(target: Target, names: list[str]) -> str | None:
    """The message's clause for a rename to ``names`` that the oldest release line the README
    supports lacks (docs/target.md): no edit is offered; None otherwise."""
    lacks = next((reason for name in names if (reason := target.lines_lack(name)) is not None), None)
    return None if lacks is None else f" (no edit: {lacks})"


def _saved_run_caveat(target: Target, new: str) -> tuple[str, Applicability | None]:
    """The message's clause and the lowered applicability of a rename to ``new`` that the release a
    notebook's saved output shows lacks (docs/target.md, "A notebook's saved output");
    ("", None) when the rename is safe."""
    lacks = target.saved_run_lacks(new)
    return ("", None) if lacks is None else (f" (unsafe: {lacks})", Applicability.UNSAFE)


def _method_state(old: str, new: str, version: tuple[int, int]) -> str | None:
    """ "removed" or "deprecated" for strategy method ``old`` in TensorFlow ``version``; None when
    ``new`` does not exist there (then ``old`` is the right name)."""
    if not exists_in(new, version):
        return None
    return "deprecated" if exists_in(old, version) else "removed"


def _blocking_argument(call: cst.Call, blocked: frozenset[str], positional: int) -> str | None:
    """What in ``call`` the current class would read differently: a keyword it lacks, or a
    positional argument it takes in another place; None when the rename keeps the call's meaning."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in blocked:
            return f"`{arg.keyword.value}=`"
    if sum(1 for arg in call.args if arg.keyword is None) > positional:
        return "the positional arguments"
    return None


def _name_used_with_blocking_arguments(
    ctx: RuleContext, alias: cst.ImportAlias, blocked: frozenset[str], positional: int
) -> bool:
    local = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else alias.name.value
    return any(
        isinstance(call.func, cst.Name) and call.func.value == local and _blocking_argument(call, blocked, positional)
        for call in ctx.index.calls
    )


def _element_run_advice(ctx: RuleContext, call: cst.Call) -> str | None:
    """The message for `strategy.experimental_run(fn, next(it))`, whose second argument is already
    an element (a `next(...)` or `.get_next()` call, or a name bound only to one); None otherwise.

    `experimental_run` calls `get_next()` on that argument, so the line fails on every TF 2
    (`AttributeError`, measured by benchmarks/probe_ledger10a_premises.py); which `run` call works
    depends on how `fn` takes the element: its parts (`fn(x, y)`: `args=next(it)`) or whole
    (`fn(batch)`: `args=(next(it),)`, the advice for an iterator argument).
    """
    if len(call.args) < 2 or call.args[0].keyword is not None:
        return None
    second = next((a for a in call.args[1:] if a.keyword is None or a.keyword.value == "input_iterator"), None)
    if second is None or second.star:
        return None
    element = second.value
    if isinstance(element, cst.Name):
        element = ctx.tf.semantic.value_of(element) or element
    if not _is_element(element):
        return None
    given = ctx.source(second.value)
    fn = ctx.source(call.args[0].value)
    arity = _positional_parameters(ctx, call.args[0].value)
    if arity == 1:
        use = f"`strategy.run({fn}, args=({given},))`"
    elif arity is not None:
        use = f"`strategy.run({fn}, args={given})`"
    else:
        use = f"`strategy.run(fn, args={given})` for a `fn(x, y)`, `args=({given},)` for a `fn(batch)`"
    return f"`experimental_run` calls `get_next()` on this element: it fails on every TF 2; use {use}"


def _is_element(node: cst.BaseExpression) -> bool:
    """`next(it)` / `it.get_next()`: one element of an iterator, not the iterator."""
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    if isinstance(func, cst.Name):
        return func.value == "next" and len(node.args) == 1
    return isinstance(func, cst.Attribute) and func.attr.value == "get_next"


def _positional_parameters(ctx: RuleContext, fn: cst.BaseExpression) -> int | None:
    """How many positional parameters the function named ``fn`` takes; None when unknown (not one
    `def` of the file, or one with `*args`)."""
    if not isinstance(fn, cst.Name):
        return None
    binding = ctx.tf.semantic.only_binding(fn)
    if binding is None or not isinstance(binding.statement, cst.FunctionDef):
        return None
    params = binding.statement.params
    if isinstance(params.star_arg, cst.Param):
        return None
    return len(params.posonly_params) + len(params.params)
