"""Probe for TFD104, TFD106, TFD107 and TFD108 on two logical CPU devices.

Run it twice, once per Keras (the results are recorded in ``README.md`` beside this file):

    python tests/data/probes/replica_rules_probe.py            # Keras 3 (tf.keras is Keras 3)
    TF_USE_LEGACY_KERAS=1 python tests/data/probes/replica_rules_probe.py   # tf-keras (Keras 2)

Each variant prints ``[label] OK -> result`` or ``[label] RAISES Type: message``.
"""

import os
import traceback

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

cpus = tf.config.list_physical_devices("CPU")
tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration()] * 2)
DEVICES = ["/cpu:0", "/cpu:1"]
X = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], dtype="float32")
Y = np.array([[1.0], [2.0], [3.0], [4.0]], dtype="float32")


def attempt(label, fn):
    """Run ``fn`` and print its result, or the exception type and the start of its message."""
    try:
        print(f"[{label}] OK -> {fn()}", flush=True)
    except Exception as error:  # the point of the probe is to record any error
        message = " ".join(str(error).split())
        message = message if len(message) < 700 else message[:300] + " ... " + message[-400:]
        frame = traceback.extract_tb(error.__traceback__)[-1]
        print(f"[{label}] RAISES {type(error).__name__}: {message} (at {frame.filename.split('site-packages/')[-1]}:{frame.lineno})", flush=True)


def model_in(strategy, optimizer="sgd"):
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1, kernel_initializer="ones")])
        model.compile(optimizer=optimizer, loss="mse")
    return model


def dist_batch(strategy):
    dataset = tf.data.Dataset.from_tensor_slices((X, Y)).batch(4)
    return next(iter(strategy.experimental_distribute_dataset(dataset)))


# TFD104: several strategies in one program --------------------------------------------------------
def two_mirrored_each_own_model():
    first, second = tf.distribute.MirroredStrategy(DEVICES), tf.distribute.MirroredStrategy(DEVICES)
    a, b = model_in(first), model_in(second)
    a.fit(X, Y, batch_size=4, epochs=1, verbose=0)
    b.fit(X, Y, batch_size=4, epochs=1, verbose=0)
    return "both fit"


def model_of_first_fit_under_second():
    first, second = tf.distribute.MirroredStrategy(DEVICES), tf.distribute.MirroredStrategy(DEVICES)
    model = model_in(first)
    with second.scope():
        model.fit(X, Y, batch_size=4, epochs=1, verbose=0)
    return "fit"


def model_of_first_compiled_in_second():
    first, second = tf.distribute.MirroredStrategy(DEVICES), tf.distribute.MirroredStrategy(DEVICES)
    with first.scope():
        model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
    with second.scope():
        model.compile(optimizer="adam", loss="mse")
    model.fit(X, Y, batch_size=4, epochs=1, verbose=0)
    return "fit"


def variable_of_first_run_by_second():
    first, second = tf.distribute.MirroredStrategy(DEVICES), tf.distribute.MirroredStrategy(DEVICES)
    with first.scope():
        w = tf.Variable(1.0)

    @tf.function
    def step():
        return second.run(lambda: w.assign_add(1.0))

    return second.experimental_local_results(step())


def strategy_in_loop_keeps_model():
    model = None
    for _ in range(2):
        strategy = tf.distribute.MirroredStrategy(DEVICES)
        if model is None:
            model = model_in(strategy)
        with strategy.scope():
            model.fit(X, Y, batch_size=4, epochs=1, verbose=0)
    return "fit twice"


def strategy_in_loop_new_model_each_time():
    for _ in range(2):
        strategy = tf.distribute.MirroredStrategy(DEVICES)
        model_in(strategy).fit(X, Y, batch_size=4, epochs=1, verbose=0)
    return "fit twice"


def mwms_twice():
    tf.distribute.MultiWorkerMirroredStrategy()
    tf.distribute.MultiWorkerMirroredStrategy()
    return "two MultiWorkerMirroredStrategy"


# TFD106: Keras training API inside a replica function ---------------------------------------------
def keras_api_in_run(method, compiled):
    strategy = tf.distribute.MirroredStrategy(DEVICES)
    model = model_in(strategy)
    x, y = dist_batch(strategy)

    def replica_fn(xb, yb):
        if method == "fit":
            model.fit(xb, yb, epochs=1, verbose=0)
        elif method == "train_on_batch":
            model.train_on_batch(xb, yb)
        elif method == "evaluate":
            model.evaluate(xb, yb, verbose=0)
        elif method == "predict":
            return model.predict(xb, verbose=0)
        elif method == "predict_on_batch":
            return model.predict_on_batch(xb)
        return tf.constant(0.0)

    def step(xb, yb):
        return strategy.run(replica_fn, args=(xb, yb))

    if compiled:
        step = tf.function(step)
    return type(step(x, y)).__name__


# TFD107: nested tf.function --------------------------------------------------------------------
def nested_replica_fn(update, outer_compiled, optimizer_name="sgd"):
    strategy = tf.distribute.MirroredStrategy(DEVICES)
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1, kernel_initializer="ones")])
        optimizer = tf.keras.optimizers.get(optimizer_name)
        optimizer.build(model.trainable_variables)  # an unbuilt Adam fails in a compiled step (issue 16 item 1)
        w = tf.Variable([1.0, 1.0])
    x, y = dist_batch(strategy)

    @tf.function
    def replica_fn(xb, yb):
        with tf.GradientTape() as tape:
            loss = tf.nn.compute_average_loss(tf.square(model(xb) - yb), global_batch_size=4)
        if update == "apply_gradients":
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        elif update == "all_reduce":
            grads = tape.gradient(loss, model.trainable_variables)
            grads = tf.distribute.get_replica_context().all_reduce("sum", grads)
            for var, grad in zip(model.trainable_variables, grads):
                var.assign_sub(0.01 * grad)
        elif update == "mirrored_assign":
            w.assign_add([1.0, 1.0])
        return loss

    def step(xb, yb):
        return strategy.run(replica_fn, args=(xb, yb))

    if outer_compiled:
        step = tf.function(step)
    losses = [float(v) for v in strategy.experimental_local_results(step(x, y))]
    kernels = [v.numpy().ravel().tolist() for v in strategy.experimental_local_results(model.trainable_variables[0])]
    return f"losses {losses} kernels {kernels} w {[v.numpy().tolist() for v in strategy.experimental_local_results(w)]}"


class Decorated(tf.keras.Model):
    """A model whose overridden train_step is wrapped in tf.function."""

    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1, kernel_initializer="ones")

    def call(self, inputs):
        return self.dense(inputs)

    @tf.function
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self(x, training=True) - y))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}


class DecoratedTestStep(tf.keras.Model):
    """A model whose overridden test_step is wrapped in tf.function (metrics only, no optimizer)."""

    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1, kernel_initializer="ones")

    def call(self, inputs):
        return self.dense(inputs)

    @tf.function
    def test_step(self, data):
        x, y = data
        return {"loss": tf.reduce_mean(tf.square(self(x, training=False) - y))}


def decorated_test_step():
    strategy = tf.distribute.MirroredStrategy(DEVICES)
    with strategy.scope():
        model = DecoratedTestStep()
        model.compile(optimizer="sgd", loss="mse")
    return model.evaluate(X, Y, batch_size=4, verbose=0)


class Plain(Decorated):
    """The same train_step without the decorator."""

    def train_step(self, data):
        return Decorated.train_step.python_function(self, data)


def decorated_train_step(cls, optimizer, replicas=2):
    strategy = tf.distribute.MirroredStrategy(DEVICES[:replicas]) if replicas else tf.distribute.get_strategy()
    with strategy.scope():
        model = cls()
        model.compile(optimizer=optimizer, loss="mse")
    history = model.fit(X, Y, batch_size=4, epochs=2, verbose=0)
    return f"loss {history.history['loss']} kernel {model.dense.kernel.numpy().ravel().tolist()}"


# TFD108: a strategy.run result used as a tensor -------------------------------------------------
def per_replica_use(use, replicas=2):
    strategy = tf.distribute.MirroredStrategy(DEVICES[:replicas])
    x, _ = dist_batch(strategy)

    @tf.function
    def step(xb):
        return strategy.run(lambda v: tf.reduce_sum(v), args=(xb,))

    result = step(x)
    if use == "numpy":
        return result.numpy()
    if use == "float":
        return float(result)
    if use == "np.mean":
        return np.mean(result)
    if use == "np.array":
        return np.array(result)
    if use == "format":
        return f"{result:.3f}"
    if use == "str":
        return str(result)[:80]
    if use == "tf.reduce_sum":
        return tf.reduce_sum(result).numpy()
    if use == "reduce":
        return strategy.reduce("SUM", result, axis=None).numpy()
    if use == "local_results":
        return [float(v) for v in strategy.experimental_local_results(result)]
    raise ValueError(use)


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["train_step"]:
        for replicas in (2, 1, 0):
            attempt(f"107 fit, @tf.function train_step (sgd), {replicas or 'no strategy'} replicas", lambda: decorated_train_step(Decorated, "sgd", replicas))
        attempt("107 evaluate, @tf.function test_step, 2 replicas", decorated_test_step)
        sys.exit(0)
    print("keras", tf.keras.__name__, getattr(tf.keras, "__version__", "?"), flush=True)
    attempt("104 two Mirrored, each its own model", two_mirrored_each_own_model)
    attempt("104 model of first fit in second's scope", model_of_first_fit_under_second)
    attempt("104 model of first compiled in second", model_of_first_compiled_in_second)
    attempt("104 variable of first updated by second.run", variable_of_first_run_by_second)
    attempt("104 strategy per loop iteration, model kept", strategy_in_loop_keeps_model)
    attempt("104 strategy per loop iteration, new model", strategy_in_loop_new_model_each_time)
    for method in ("fit", "train_on_batch", "evaluate", "predict", "predict_on_batch"):
        for compiled in (False, True):
            attempt(f"106 {method} in replica fn, step {'tf.function' if compiled else 'eager'}", lambda: keras_api_in_run(method, compiled))
    for update in ("forward", "apply_gradients", "all_reduce", "mirrored_assign"):
        for outer in (True, False):
            attempt(f"107 @tf.function replica fn {update}, outer {'tf.function' if outer else 'eager'}", lambda: nested_replica_fn(update, outer))
    attempt("107 @tf.function replica fn apply_gradients adam, outer tf.function", lambda: nested_replica_fn("apply_gradients", True, "adam"))
    for optimizer in ("sgd", "adam"):
        attempt(f"107 fit, @tf.function train_step ({optimizer})", lambda: decorated_train_step(Decorated, optimizer))
        attempt(f"107 fit, plain train_step ({optimizer})", lambda: decorated_train_step(Plain, optimizer))
    for use in ("numpy", "float", "np.mean", "np.array", "format", "str", "tf.reduce_sum", "reduce", "local_results"):
        attempt(f"108 {use} of run result, 2 replicas", lambda: per_replica_use(use))
        attempt(f"108 {use} of run result, 1 replica", lambda: per_replica_use(use, replicas=1))
    attempt("104 MultiWorkerMirroredStrategy twice", mwms_twice)
