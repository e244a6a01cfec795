"""Run as a script in a child process: set up devices and the cluster, run the user's script,
and dump what the validator checks (variables per replica, input batches, the error if any).

Its only argument is the path of a JSON file with the run's settings (written by the parent).
"""

import hashlib
import json
import os
import runpy
import sys
import traceback

SETTINGS = json.loads(open(sys.argv[1], encoding="utf-8").read())
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

DUMP = {"status": "ok", "variables": {}, "inputs": [], "error": None, "replicas": None}
ADDRESS_MAP = SETTINGS.get("address_map", {})
SPARE_PORTS = list(SETTINGS.get("spare_ports", []))


def _map_address(address):
    """Every address the script names goes to a 127.0.0.1 port the validator picked."""
    if address not in ADDRESS_MAP:
        ADDRESS_MAP[address] = f"127.0.0.1:{SPARE_PORTS.pop(0)}" if SPARE_PORTS else "127.0.0.1:1"
    return ADDRESS_MAP[address]


def _rewrite_cluster(cluster):
    return {job: [_map_address(a) for a in addrs] if isinstance(addrs, list) else addrs for job, addrs in cluster.items()}


def _rewrite_tf_config(value):
    try:
        config = json.loads(value)
    except (TypeError, ValueError):
        return value
    if isinstance(config, dict) and isinstance(config.get("cluster"), dict):
        config["cluster"] = _rewrite_cluster(config["cluster"])  # task indices stay as written
        return json.dumps(config)
    return value


def _guard_environment():
    """Rewrite any TF_CONFIG the script sets, so it never reaches an address it names."""
    environ_class = type(os.environ)
    original = environ_class.__setitem__

    def setitem(self, key, value):
        if key == "TF_CONFIG":
            value = _rewrite_tf_config(value)
        original(self, key, value)

    environ_class.__setitem__ = setitem
    original_putenv = os.putenv

    def putenv(key, value):
        # os.environ calls putenv too, with bytes: only the script's own str calls are rewritten.
        if key == "TF_CONFIG" and isinstance(value, str):
            value = _rewrite_tf_config(value)
        original_putenv(key, value)

    os.putenv = putenv


def _set_up_devices(tf):
    replicas = SETTINGS["replicas"]
    workers = SETTINGS["workers"]
    gpus = tf.config.list_physical_devices("GPU")
    use_gpu = SETTINGS["device"] == "gpu" or (SETTINGS["device"] == "auto" and gpus)
    if use_gpu:
        if not gpus:
            raise RuntimeError("--device gpu was asked for, but TensorFlow sees no GPU")
        if len(gpus) >= replicas:
            tf.config.set_visible_devices(gpus[:replicas], "GPU")
        else:  # split one GPU into logical GPUs
            memory = SETTINGS.get("gpu_memory_mb", 1024)
            tf.config.set_logical_device_configuration(
                gpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit=memory)] * replicas
            )
        return "gpu"
    if workers == 1:
        # Before any op; on CPU a multi-worker worker has one replica whatever the split.
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * replicas)
    return "cpu"


def _hash_batch(strategy, element):
    import numpy as np
    import tensorflow as tf

    parts = []
    for local in strategy.experimental_local_results(element):
        for tensor in tf.nest.flatten(local):
            parts.append(np.asarray(tensor).tobytes())
    return hashlib.sha1(b"|".join(parts)).hexdigest()


def _limit_distributed_iteration(tf):
    """Stop after max_steps batches of any distributed dataset, recording what each batch holds."""
    limit = SETTINGS["max_steps"]
    strategy_class = tf.distribute.Strategy

    script = os.path.realpath(SETTINGS["script"])

    def wrap(make):
        def distribute(self, *args, **kwargs):
            dataset = make(self, *args, **kwargs)
            if os.path.realpath(sys._getframe(1).f_code.co_filename) != script:
                return dataset  # Keras and TensorFlow internals get the real object
            strategy = self

            class Limited:
                def __iter__(inner):
                    for count, element in enumerate(iter(dataset)):
                        if count >= limit:
                            return
                        DUMP["inputs"].append(_hash_batch(strategy, element))
                        yield element

                def __getattr__(inner, name):
                    return getattr(dataset, name)

            return Limited()

        return distribute

    for name in ("experimental_distribute_dataset", "distribute_datasets_from_function"):
        setattr(strategy_class, name, wrap(getattr(strategy_class, name)))


def _limit_keras_fit():
    """Keras `fit` trains at most max_steps batches (one epoch of that many steps)."""
    limit = SETTINGS["max_steps"]
    classes = []
    for name in ("keras", "tf_keras"):
        try:
            classes.append(__import__(name).Model)
        except Exception:  # that flavour of Keras is not installed
            continue
    # Never touch `tf.keras` here: it resolves once, and the script may still ask for tf-keras
    # (TF_USE_LEGACY_KERAS) after this point. `keras` and `tf_keras` cover both flavours.
    for model_class in {id(c): c for c in classes}.values():
        original = model_class.fit
        if getattr(original, "_distfix_limited", False):
            continue

        def fit(self, *args, _original=original, **kwargs):
            kwargs["epochs"] = 1
            kwargs["steps_per_epoch"] = min(kwargs.get("steps_per_epoch") or limit, limit)
            return _original(self, *args, **kwargs)

        fit._distfix_limited = True
        model_class.fit = fit


def _synthetic_datasets():
    import numpy as np

    shapes = {
        "mnist": ((60000, 28, 28), (60000,), (10000, 28, 28), (10000,), 10),
        "fashion_mnist": ((60000, 28, 28), (60000,), (10000, 28, 28), (10000,), 10),
        "cifar10": ((50000, 32, 32, 3), (50000, 1), (10000, 32, 32, 3), (10000, 1), 10),
        "cifar100": ((50000, 32, 32, 3), (50000, 1), (10000, 32, 32, 3), (10000, 1), 100),
    }
    rng = np.random.default_rng(0)
    loaders = {}
    for name, (xs, ys, xt, yt, classes) in shapes.items():
        def load_data(*args, _s=(xs, ys, xt, yt, classes), **kwargs):
            return (
                (rng.integers(0, 256, _s[0], dtype=np.uint8), rng.integers(0, _s[4], _s[1], dtype=np.uint8)),
                (rng.integers(0, 256, _s[2], dtype=np.uint8), rng.integers(0, _s[4], _s[3], dtype=np.uint8)),
            )
        loaders[name] = load_data
    return loaders


def _patch_datasets(tf):
    import importlib

    loaders = _synthetic_datasets()
    for root in ("keras.datasets", "tensorflow.keras.datasets"):
        for name, load in loaders.items():
            try:
                module = importlib.import_module(f"{root}.{name}")
            except ImportError:
                continue
            module.load_data = load


def _variables(namespace, tf):
    """Distributed variables reachable from the script's globals (and one level into objects)."""
    found = {}
    seen = set()

    def visit(name, value, depth):
        if id(value) in seen or depth > 2:
            return
        seen.add(id(value))
        inner = getattr(value, "value", None) if hasattr(value, "path") and not isinstance(value, tf.Variable) else None
        variable = inner if isinstance(inner, tf.Variable) else value
        if isinstance(variable, tf.Variable):
            found[name] = variable
            return
        for attribute in ("variables",):
            if hasattr(value, attribute) and hasattr(value, "trainable_variables"):
                try:
                    for index, v in enumerate(getattr(value, attribute)):
                        visit(f"{name}.{getattr(v, 'path', index)}", v, depth + 1)
                except Exception:
                    pass
                return
        if isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                visit(f"{name}[{index}]", item, depth + 1)
        elif isinstance(value, dict):
            for key, item in value.items():
                visit(f"{name}[{key!r}]", item, depth + 1)
        elif type(value).__module__ == "__main__" or type(value).__module__ == SETTINGS.get("module_name"):
            for key, item in vars(value).items():
                visit(f"{name}.{key}", item, depth + 1)

    for key, value in namespace.items():
        if not key.startswith("__"):
            visit(key, value, 0)
    values = {}
    for name, variable in found.items():
        components = getattr(variable, "values", None)
        copies = list(components) if components is not None else [variable]
        try:
            values[name] = [c.numpy().astype("float64").ravel().tolist() for c in copies]
        except Exception:
            continue
    return values


def _error_line(exc):
    script = os.path.realpath(SETTINGS["script"])
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if os.path.realpath(frame.filename) == script:
            line = frame.lineno
    return line


def main():
    if SETTINGS.get("tf_config"):
        os.environ["TF_CONFIG"] = SETTINGS["tf_config"]
    _guard_environment()
    import tensorflow as tf

    _set_up_devices(tf)
    _limit_distributed_iteration(tf)
    _limit_keras_fit()
    if SETTINGS.get("synthetic_data"):
        _patch_datasets(tf)
    namespace = {}
    sys.argv = [SETTINGS["script"]]
    try:
        namespace = runpy.run_path(SETTINGS["script"], run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (None, 0):
            DUMP["status"] = "error"
            DUMP["error"] = {"type": "SystemExit", "message": f"exit code {exc.code}", "line": _error_line(exc), "network": False}
    except BaseException as exc:  # the user's script failed: that is what we report
        DUMP["status"] = "error"
        message = str(exc).strip().splitlines()
        DUMP["error"] = {
            "type": type(exc).__name__,
            "message": message[0][:500] if message else "",
            "line": _error_line(exc),
            "network": any(word in str(exc) for word in ("URL", "urlopen", "Connection", "resolve host", "Name or service not known")),
        }
    try:
        DUMP["variables"] = _variables(namespace, tf)
    except Exception as exc:  # observation must not hide the script's own outcome
        DUMP["observe_error"] = f"{type(exc).__name__}: {exc}"
    with open(SETTINGS["dump"], "w", encoding="utf-8") as handle:
        json.dump(DUMP, handle)


main()
