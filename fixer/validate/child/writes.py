"""Where the script writes checkpoints and models: every worker writing one path is a race.

Recorded: ``tf.train.Checkpoint.save``/``write``, ``tf.train.CheckpointManager.save`` (its
directory), ``tf.saved_model.save``, and Keras ``Model.save``/``save_weights`` in Keras 3 and
tf-keras. Only the outermost call counts (a manager's save calls the checkpoint's). A path in the
run's copy of the project is recorded relative to it, so workers on different Ray nodes compare.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import sys
from typing import TYPE_CHECKING, Any

from .state import DUMP, SETTINGS

if TYPE_CHECKING:
    from types import FrameType

MAX_WRITES = 200


class _Writing:
    depth = 0  # a recorded save is running: the saves it makes are part of it


def _where(path: str | os.PathLike[str]) -> str:
    text = os.path.realpath(os.fspath(path))
    copy: str = os.path.realpath((SETTINGS.get("path") or [os.getcwd()])[0])
    return os.path.relpath(text, copy) if text.startswith(copy + os.sep) else text


def _script_line() -> int | None:
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename != SETTINGS.get("script"):
        frame = frame.f_back
    return frame.f_lineno if frame is not None else None


def _recording(function: Any, what: str, path_of: Any) -> Any:
    """``function`` that records the path ``path_of(bound arguments)`` it writes to."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _Writing.depth == 0 and len(DUMP["writes"]) < MAX_WRITES:
            try:
                path = path_of(signature.bind(*args, **kwargs).arguments)
            except (TypeError, AttributeError):  # a call we cannot read: the call itself decides
                path = None
            if isinstance(path, (str, os.PathLike)):
                DUMP["writes"].append({"path": _where(path), "what": what, "line": _script_line()})
        _Writing.depth += 1
        try:
            return function(*args, **kwargs)
        finally:
            _Writing.depth -= 1

    return wrapper


def _patch(owner: Any, name: str, what: str, path_of: Any) -> None:
    original = getattr(owner, name, None)
    if original is not None and not getattr(original, "_distfix_writes", False):
        wrapped = _recording(original, what, path_of)
        wrapped._distfix_writes = True
        setattr(owner, name, wrapped)


def install(tf: Any) -> None:
    """Record the paths of the saves listed in the module's docstring."""
    from tensorflow.python.checkpoint import checkpoint, checkpoint_management
    from tensorflow.python.saved_model import save

    for name in ("save", "write"):
        _patch(checkpoint.Checkpoint, name, f"Checkpoint.{name}", lambda a: a.get("file_prefix"))
    _patch(checkpoint_management.CheckpointManager, "save", "CheckpointManager.save", lambda a: a["self"].directory)
    original = save.save
    _patch(save, "save", "tf.saved_model.save", lambda a: a.get("export_dir"))
    modules: list[Any] = list(sys.modules.values())  # any module, whatever it defines
    for module in modules:  # `tf.saved_model.save` is the same function under another name
        if getattr(module, "__dict__", {}).get("save") is original:
            module.save = save.save
    for flavour in ("keras", "tf_keras"):
        try:
            keras = importlib.import_module(flavour)
        except ImportError:
            continue
        for name in ("save", "save_weights"):
            _patch(keras.Model, name, f"Model.{name}", lambda a: a.get("filepath"))
