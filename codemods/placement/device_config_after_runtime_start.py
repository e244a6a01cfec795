"""TFD111: device configuration (`set_memory_growth`, logical or visible devices) after the runtime started."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.rule import Rule
from fixer.tf.restart_cells import restart_above
from fixer.tf.runtime_start import after_last_reset, earlier_op, runs_tf_on_the_way
from fixer.tf.tf1_program import runs_tensorflow_1
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext

# What each call raises once the runtime is initialised (TensorFlow 2.21 context.py; the
# logical-device one measured, see the docstring).
_DEVICE_CONFIGURATION = {
    "tensorflow.config.experimental.set_memory_growth": "Physical devices cannot be modified after being initialized",
    "tensorflow.config.set_logical_device_configuration": "Virtual devices cannot be modified after being initialized",
    "tensorflow.config.experimental.set_virtual_device_configuration": (
        "Virtual devices cannot be modified after being initialized"
    ),
    "tensorflow.config.set_visible_devices": "Visible devices cannot be modified after being initialized",
    "tensorflow.config.experimental.set_visible_devices": "Visible devices cannot be modified after being initialized",
}
_MEMORY_GROWTH = "tensorflow.config.experimental.set_memory_growth"
# TFD105 already knows, call by call (measured), what starts the runtime; this rule asks it.


class DeviceConfigAfterRuntimeStart(Rule):
    """
    ## What it does
    Finds device configuration, `tf.config.experimental.set_memory_growth`,
    `tf.config.set_logical_device_configuration` (or `experimental.set_virtual_device_configuration`)
    and `tf.config.set_visible_devices`, that runs after something that starts the TensorFlow
    runtime: earlier in the same block, in an enclosing block, or before the only call of the
    function that holds it.

    ## Why is this bad in distributed training?
    Devices can only be configured before the runtime is initialised. Measured on TensorFlow
    2.21 (`benchmarks/probe_device_config_after_runtime.py`): after `MirroredStrategy()`, a
    `tf.constant`, `list_logical_devices()` or a built `Sequential`, splitting the CPU into two
    logical devices raises `RuntimeError: Virtual devices cannot be modified after being
    initialized`, and the strategy has 1 replica instead of 2. Inside the TensorFlow GPU guide's
    `try: ... except RuntimeError as e: print(e)` nothing is raised: the setting is silently
    ignored and training runs on one device. `set_memory_growth` is guarded the same way
    (`Physical devices cannot be modified after being initialized`, read in TensorFlow 2.21's
    `context.py`; not measured, no GPU here).

    ## Fix safety
    Display-only: move the device-configuration block to the top of the program, before the
    strategy and before any op; `tf.config.list_physical_devices` is safe to call there.

    ## Known limits
    - What starts the runtime is what TFD105 measured: any strategy constructor
      (`MirroredStrategy()` too), tensors and ops, variables, datasets, a built Keras model,
      `list_logical_devices`, ... `list_physical_devices` does not, nor does constructing a
      `tf.compat.v1.Session(config=...)`: it leaves the eager context uninitialised and devices
      configured after it take effect (measured on CPU, `benchmarks/probe_ledger12b_premises.py`;
      the check that raises reads the same context on GPU).
    - The private `context._reset_context()` (test suites call it in `setUp`) ends the started
      state: a configuration after it is legal (measured,
      `benchmarks/probe_virtual_devices_after_context_reset.py`); only what follows it counts.
      So does its older spelling, `context._context = None` then
      `ops.enable_eager_execution_internal()` in the same function (measured,
      `benchmarks/probe_ledger17a_premises.py`); the second call alone is no reset. So does a
      kernel restart (`get_ipython().kernel.do_shutdown(True)`, `os._exit(0)`, a module-level
      `exit()`): the cells below it run in a new process. So do a notebook cell that asks for a
      kernel restart and one whose saved execution count starts over at 1 below cells that
      counted higher, every later count above 1 (fixer/tf/restart_cells.py).
    - A `set_memory_growth` after an earlier `set_memory_growth` that ran first is not reported:
      TensorFlow returns early when the value does not change.
    - Only programs that use a strategy are checked; in a notebook, only a configuration below a
      strategy's construction is reported, since notebook cells (the TensorFlow GPU guide's, for
      one) are often meant to be run on their own after a restart.

    ## Runtime evidence
    `benchmarks/probe_device_config_after_runtime.py` runs each case in its own process.

    ## References
    - https://www.tensorflow.org/guide/gpu#limiting_gpu_memory_growth
    - https://www.tensorflow.org/api_docs/python/tf/config/set_logical_device_configuration
    """

    code = "TFD111"
    name = "device-config-after-runtime-start"
    message = "device configuration after the TensorFlow runtime started"
    applicability = Applicability.DISPLAY_ONLY
    triggers = ("set_memory_growth", "device_configuration", "set_visible_devices")

    def check(self, ctx: RuleContext) -> None:
        if runs_tensorflow_1(ctx.tf.target) or not ctx.tf.strategies.module_has_strategy:
            return
        notebook = ctx.path.endswith(".ipynb")
        growth_first: list[cst.Call] = []
        for call in ctx.index.calls:
            callee = ctx.tf.names.callee(call)
            if callee not in _DEVICE_CONFIGURATION:
                continue
            if notebook and not any(ctx.index.before(made, call) for made, _ in ctx.tf.strategies.all_constructions):
                # Notebook cells are often run one at a time after a restart (the GPU guide's
                # snippets are): only a configuration below the strategy is the pasted mistake.
                continue
            statement = ctx.index.statement_of(call)
            started = _runtime_started_before(ctx, statement)
            if started is None:
                if callee == _MEMORY_GROWTH:
                    growth_first.append(call)
                continue
            if callee == _MEMORY_GROWTH and growth_first:
                continue  # the same setting again: TensorFlow returns early (context.py)
            name = callee.rsplit(".", 1)[1]
            # A notebook's lines are those of its cells joined: name no line there.
            where = "earlier code" if notebook else f"line {ctx.range(started).start.line}"
            error = _DEVICE_CONFIGURATION[callee]
            if _catches_runtime_error(ctx, call):
                outcome = f": ignored behind the `except` (`{error}`)"
            else:
                outcome = f" raises `RuntimeError: {error}`"
            ctx.report(call, f"`{name}` after {where} started TensorFlow{outcome}; configure devices first")


def _runtime_started_before(ctx: RuleContext, statement: cst.CSTNode) -> cst.CSTNode | None:
    """A statement that starts the runtime before ``statement`` runs: earlier in its block or in
    an enclosing block of the same function (the strategy's statement when it is one of them:
    it certainly starts the runtime, and it is what the configuration was meant to precede), or
    else before its function's only call; None when none does. A `context._reset_context()` on
    the way ends the started state like the start of the program: only what follows it counts."""
    earlier: list[cst.CSTNode] = []
    node: cst.CSTNode = statement
    reset = False
    restart = restart_above(ctx.tf, statement) if ctx.path.endswith(".ipynb") else None
    while not reset:
        parent = ctx.index.parent.get(node)
        if parent is None or isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            break
        body = list(getattr(parent, "body", ())) if isinstance(parent, (cst.IndentedBlock, cst.Module)) else []
        if node in body:
            before = body[: body.index(node)]
            start_at = after_last_reset(ctx.tf, before)
            if restart is not None and parent is ctx.module and restart in before:
                start_at = max(start_at, before.index(restart))  # the cells above ran in another kernel
            reset = start_at > 0
            earlier[:0] = [s for s in before[start_at:] if runs_tf_on_the_way(ctx.tf, s)]
        node = parent
    strategies = [
        s for s in earlier if any(ctx.index.is_within(made, s) for made, _ in ctx.tf.strategies.all_constructions)
    ]
    if strategies or earlier:
        return (strategies or earlier)[0]
    if reset:
        return None
    found = earlier_op(ctx.tf, statement)
    if restart is not None and found is not None and ctx.index.before(found, restart):
        return None  # what ran before the restart ran in another process
    return found


def _catches_runtime_error(ctx: RuleContext, call: cst.Call) -> bool:
    """``call`` sits in a `try` whose handler catches RuntimeError (or everything)."""
    for ancestor in ctx.index.ancestors(call):
        if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef)):
            return False
        if isinstance(ancestor, cst.Try):
            for handler in ancestor.handlers:
                caught = ctx.source(handler.type) if handler.type is not None else "Exception"
                if any(name in caught for name in ("RuntimeError", "Exception", "BaseException")):
                    return True
    return False
