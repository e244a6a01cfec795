"""The step limit: the run stops cleanly (``StopRun``) at the step after ``--max-steps``.

A step is a call of a ``tf.function`` that runs ``strategy.run``, an eager ``strategy.run``, or
a batch the script draws in Python from a distributed dataset (``for x in dist_ds``,
``next(it)``, ``it.get_next()``, ``it.get_next_as_optional()``). The real iterators are kept, so
they still work inside a ``tf.function``, where the batches they yield are recorded as the
function runs. What Keras and TensorFlow call themselves is not a step of the script, except
that every batch Keras ``fit`` trains is a step.
"""

from __future__ import annotations

from typing import Any

from . import observe
from .state import DUMP, SETTINGS, StopRun, called_by_library, keras_on_stack


class _Progress:
    running = False  # a counted step is running: what it calls is part of it
    traced_runs = 0  # strategy.run calls made while a tf.function was being traced
    drawn = 0  # batches the script drew in Python


def _begin_step() -> None:
    if DUMP["steps"] >= SETTINGS["max_steps"]:
        DUMP["stopped"] = True
        raise StopRun
    DUMP["steps"] += 1


def _run_step(call: Any, *args: Any, **kwargs: Any) -> Any:
    _Progress.running = True
    try:
        return call(*args, **kwargs)
    finally:
        _Progress.running = False


def _limit_functions(tf: Any) -> None:
    from tensorflow.python.eager.polymorphic_function import polymorphic_function

    original = polymorphic_function.Function.__call__

    def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
        if _Progress.running or tf.inside_function() or called_by_library(1):
            return original(self, *args, **kwargs)
        known = getattr(self, "_distfix_step", False)
        if known:
            _begin_step()
        traced = _Progress.traced_runs
        result = _run_step(original, self, *args, **kwargs)
        if not known and _Progress.traced_runs != traced:
            self._distfix_step = True  # its first call traced a strategy.run: a step, counted now
            DUMP["steps"] += 1
        if getattr(self, "_distfix_step", False):
            observe.after_step(result)
        return result

    polymorphic_function.Function.__call__ = __call__


def _limit_runs(tf: Any) -> None:
    from tensorflow.python.distribute import distribute_lib

    original = distribute_lib.StrategyBase.run

    def run(self: Any, fn: Any, args: Any = (), kwargs: Any = None, options: Any = None) -> Any:
        if tf.inside_function():
            _Progress.traced_runs += 1
            return original(self, fn, args, kwargs, options)
        if _Progress.running or called_by_library(1, keras_only=True):
            return original(self, fn, args, kwargs, options)
        _begin_step()
        result = _run_step(original, self, fn, args, kwargs, options)
        observe.after_step(result)
        return result

    distribute_lib.StrategyBase.run = run


def _check_draw() -> None:
    if _Progress.drawn >= SETTINGS["max_steps"]:
        DUMP["stopped"] = True
        raise StopRun


def _limit_iterators(tf: Any) -> None:
    from tensorflow.python.distribute import input_lib

    iterator_class = input_lib.DistributedIteratorBase
    get_next, get_next_as_optional = iterator_class.get_next, iterator_class.get_next_as_optional

    def patched_get_next(self: Any, name: Any = None) -> Any:
        if keras_on_stack() and not tf.inside_function():
            return get_next(self, name)
        if tf.inside_function():  # the script's compiled step, or Keras' train function
            element = get_next(self, name)
            observe.record_batch_in_graph(self._strategy, element)
            return element
        _check_draw()
        element = get_next(self, name)
        _Progress.drawn += 1
        observe.record_batch(self._strategy, element)
        return element

    def patched_get_next_as_optional(self: Any) -> Any:
        if tf.inside_function() and not keras_on_stack():
            # The script's loop over a distributed dataset inside one tf.function (``for x in
            # dist_ds`` becomes ``reduce``, which draws with get_next_as_optional): each batch
            # drawn is recorded as the loop runs.
            optional = get_next_as_optional(self)
            tf.cond(
                optional.has_value(),
                lambda: observe.record_batch_in_graph(self._strategy, optional.get_value()),
                lambda: None,
            )
            return optional
        if keras_on_stack() or tf.inside_function():
            return get_next_as_optional(self)
        _check_draw()
        optional = get_next_as_optional(self)
        if bool(optional.has_value()):
            _Progress.drawn += 1
            observe.record_batch(self._strategy, optional.get_value())
        return optional

    iterator_class.get_next = patched_get_next
    iterator_class.get_next_as_optional = patched_get_next_as_optional


def _fit_observer(callbacks: Any) -> Any:
    """A callback of this Keras flavour: each batch is a step, observed; ``fit`` ends at the step limit."""

    class Observer(callbacks.Callback):  # type: ignore[misc]  # Keras has no types: Callback is Any here
        def on_train_batch_end(self, batch: Any, logs: Any = None) -> None:
            DUMP["steps"] += 1
            observe.after_step(logs)
            if DUMP["steps"] >= SETTINGS["max_steps"]:
                self.model.stop_training = True
                # `batch` is the last batch trained in the one epoch fit runs; `steps` is None when unknown
                DUMP["stopped"] = self.params.get("steps") is None or batch + 1 < self.params["steps"]

    return Observer()


def _limit_keras_fit(tf: Any) -> None:
    """Keras ``fit`` trains one epoch; its batches are steps, observed after each; it ends at the step limit.

    ``fit`` is stopped by a callback, never by raising ``steps_per_epoch`` to the limit: past the
    end of a short dataset, tf-keras runs one more step that raises ``OutOfRange`` after some
    replicas have incremented the optimizer's ``iteration`` and not others.
    """
    for name in ("keras", "tf_keras"):
        try:
            module = __import__(name)
        except Exception:  # that flavour of Keras is not installed
            continue
        # Never touch `tf.keras` here: it resolves once, and the script may still ask for tf-keras
        # (TF_USE_LEGACY_KERAS) after this point. `keras` and `tf_keras` cover both flavours.
        original = module.Model.fit
        if getattr(original, "_distfix_limited", False):
            continue

        def fit(
            self: Any, *args: Any, _original: Any = original, _callbacks: Any = module.callbacks, **kwargs: Any
        ) -> Any:
            if DUMP["steps"] >= SETTINGS["max_steps"]:  # the limit was reached before this fit
                DUMP["stopped"] = True
                raise StopRun
            kwargs["epochs"] = 1
            given = args[0] if args else kwargs.get("x")
            if not isinstance(given, (tf.data.Dataset, tf.distribute.DistributedDataset)):
                DUMP["fit_arrays"] = True  # Keras makes the dataset: not the script's input pipeline
            kwargs["callbacks"] = [*(kwargs.get("callbacks") or []), _fit_observer(_callbacks)]
            return _original(self, *args, **kwargs)

        fit._distfix_limited = True  # type: ignore[attr-defined]  # a marker on the function object
        module.Model.fit = fit


def install(tf: Any) -> None:
    """Count the script's steps and stop it after ``--max-steps``."""
    _limit_functions(tf)
    _limit_runs(tf)
    _limit_iterators(tf)
    _limit_keras_fit(tf)
