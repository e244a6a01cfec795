"""Which functions of a module Ray runs in its worker processes.

A `@ray.remote` function (or one wrapped by `ray.remote(f)`), a method of a `@ray.remote` class,
and the `train_loop_per_worker` handed to a Ray Train trainer (`TensorflowTrainer(train_func,
...)`) run in Ray worker processes, and so do the module's functions they call by name. A worker
of a cluster the script connects to (a Ray Client `ray.init("ray://...")`, a running cluster) has
the cluster's environment, not the driver's (benchmarks/probe_ray_worker_environment.py): what the
script sets in `os.environ` does not reach code there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from fixer.tf.index import ModuleIndex
    from fixer.tf.names import NameResolver

_REMOTE = "ray.remote"
# Ray Train's trainers take the per-worker loop as their first argument or this keyword.
_LOOP_KEYWORD = "train_loop_per_worker"


def _is_remote(expression: cst.BaseExpression, names: NameResolver) -> bool:
    """`ray.remote` or `ray.remote(num_gpus=1)` as a decorator."""
    target = expression.func if isinstance(expression, cst.Call) else expression
    return names.qualified(target) == _REMOTE


def ray_run_functions(index: ModuleIndex, names: NameResolver) -> frozenset[cst.FunctionDef]:
    """The module's functions that run in Ray worker processes (see the module docstring)."""
    run: set[cst.FunctionDef] = {
        f for f in index.functions if any(_is_remote(d.decorator, names) for d in f.decorators)
    }
    for cls in index.classes:
        if any(_is_remote(d.decorator, names) for d in cls.decorators):
            run |= {f for f in index.functions if index.method_class(f) is cls}
    handed: set[str] = set()
    for call in index.calls:
        callee = names.callee(call) or ""
        if callee == _REMOTE or callee.startswith("ray.train."):
            first = call.args[0] if call.args and call.args[0].keyword is None else None
            if first is not None and isinstance(first.value, cst.Name):
                handed.add(first.value.value)
        for argument in call.args:
            if argument.keyword is not None and argument.keyword.value == _LOOP_KEYWORD:
                if isinstance(argument.value, cst.Name):
                    handed.add(argument.value.value)
    run |= {f for name in handed for f in index.functions_by_name.get(name, [])}
    # What a worker function calls by name runs in the worker too (its helpers, a model builder).
    pending = list(run)
    while pending:
        function = pending.pop()
        for call in index.calls:
            if isinstance(call.func, cst.Name) and index.enclosing_function(call) is function:
                for callee_def in index.functions_by_name.get(call.func.value, []):
                    if callee_def not in run:
                        run.add(callee_def)
                        pending.append(callee_def)
    return frozenset(run)


def runs_in_ray_worker(node: cst.CSTNode, index: ModuleIndex, run: frozenset[cst.FunctionDef]) -> bool:
    """``node`` sits in (or in a function nested in) one of the functions Ray runs in its workers."""
    return bool(run) and any(isinstance(a, cst.FunctionDef) and a in run for a in index.ancestors(node))
