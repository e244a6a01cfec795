"""Run as a script in a child process: set up devices, seeds and the cluster, run the user's
script, and dump what the validator checks (see ``child/``).

Its only argument is the path of a JSON file with the run's settings (written by the parent).
Exit status: 0 when the script finished (or was stopped after ``--max-steps``), 1 when it failed.
"""

import importlib.util
import json
import os
import runpy
import sys
from typing import TYPE_CHECKING, Any


def _load_child_package() -> None:
    """Import ``child/`` as ``_distfix_child``, without ``fixer`` (and its engine) around it."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child")
    spec = importlib.util.spec_from_file_location(
        "_distfix_child", os.path.join(folder, "__init__.py"), submodule_search_locations=[folder]
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the validator's child package from {folder}")
    package = importlib.util.module_from_spec(spec)
    sys.modules["_distfix_child"] = package
    spec.loader.exec_module(package)


if TYPE_CHECKING:  # the same modules, under the name mypy finds them by
    from fixer.validate.child import (
        claim,
        cluster,
        data,
        data_pass,
        devices,
        errors,
        flavour,
        gradients,
        observe,
        state,
        steps,
        writes,
    )
else:
    _load_child_package()
    from _distfix_child import (
        claim,
        cluster,
        data,
        data_pass,
        devices,
        errors,
        flavour,
        gradients,
        observe,
        state,
        steps,
        writes,
    )


def _run_script(settings: dict[str, Any]) -> dict[str, Any] | None:
    """Run the user's script as ``python script.py ARGS`` (or ``python -m module ARGS``) would.

    Returns the error record if it failed, else None.
    """
    script, module = settings["script"], settings.get("module")
    sys.argv = [script, *settings.get("args", [])]
    # What the script's imports see: the script's folder (the run folder for -m), then the project root.
    sys.path[0] = os.getcwd() if module else os.path.dirname(script)
    for folder in settings.get("path", []):
        if folder not in sys.path:
            sys.path.insert(1, folder)
    try:
        if module:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(script, run_name="__main__")
    except state.StopRun:
        return None
    except SystemExit as exc:
        return errors.exit_error(exc)
    except BaseException as exc:  # the user's script failed: that is what we report
        return errors.describe(exc, script)
    return None


def main() -> None:
    state.load(sys.argv[1])
    settings, dump = state.SETTINGS, state.DUMP
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
    os.environ.update(settings.get("env", {}))  # the project's configured environment, before TensorFlow reads it
    if settings.get("tf_config"):
        os.environ["TF_CONFIG"] = settings["tf_config"]
    flavour.adopt_script_choice(settings["script"])
    cluster.guard_environment()
    import tensorflow as tf

    devices.seed(tf, devices.set_up_devices(tf))
    cluster.guard_cluster_specs()
    observe.track_variables()
    observe.track_strategies()
    claim.install(tf)
    gradients.install(tf)
    steps.install(tf)
    writes.install(tf)
    data_pass.install(tf)
    if settings.get("synthetic_data"):
        data.patch_datasets()
    dump["error"] = _run_script(settings)
    dump["status"] = "error" if dump["error"] else "ok"
    try:
        data_pass.run()
    except Exception as exc:  # a pipeline that cannot be read again: the examples the steps drew remain
        dump["pass_error"] = f"{type(exc).__name__}: {exc}"
    try:
        observe.finish()
    except Exception as exc:  # observation must not hide the script's own outcome
        dump["observe_error"] = f"{type(exc).__name__}: {exc}"
    with open(settings["dump"], "w", encoding="utf-8") as handle:
        json.dump(dump, handle)
    if dump["error"]:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)  # a failed worker's peers are stopped by the parent: skip TensorFlow's shutdown


main()
