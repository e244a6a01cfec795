"""Fixes of several rules on one script compose into correct code."""

from __future__ import annotations


from fixer.engine import check_source, fix_source

SCRIPT = """\
import tensorflow as tf
from tensorflow.keras import layers, models, optimizers

mirrored = tf.distribute.MirroredStrategy()
net = models.Sequential([layers.Input((8,)), layers.Dense(64, activation="relu"), layers.Dense(1)])
opt = optimizers.Adam(1e-3)
ds = tf.data.Dataset.from_tensor_slices((features, targets)).shuffle(1000).batch(256)


def step_fn(x, y):
    with tf.GradientTape() as tape:
        loss = tf.nn.compute_average_loss(tf.square(net(x, training=True) - y))
    grads = tape.gradient(loss, net.trainable_variables)
    opt.apply_gradients(zip(grads, net.trainable_variables))
    return loss


def train_step(x, y):
    losses = mirrored.run(step_fn, args=(x, y))
    return mirrored.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)


for x, y in ds:
    print(train_step(x, y))
"""

EXPECTED = """\
import tensorflow as tf
from tensorflow.keras import layers, models, optimizers

mirrored = tf.distribute.MirroredStrategy()
with mirrored.scope():
    net = models.Sequential([layers.Input((8,)), layers.Dense(64, activation="relu"), layers.Dense(1)])
    opt = optimizers.Adam(1e-3)
    opt.build(net.trainable_variables)
ds = tf.data.Dataset.from_tensor_slices((features, targets)).shuffle(1000).batch(256)


def step_fn(x, y):
    with tf.GradientTape() as tape:
        loss = tf.nn.compute_average_loss(tf.square(net(x, training=True) - y))
    grads = tape.gradient(loss, net.trainable_variables)
    opt.apply_gradients(zip(grads, net.trainable_variables))
    return loss


@tf.function
def train_step(x, y):
    losses = mirrored.run(step_fn, args=(x, y))
    return mirrored.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)


for x, y in mirrored.experimental_distribute_dataset(ds):
    print(train_step(x, y))
"""


def test_scope_tf_function_optimizer_build_and_dataset_fixes_compose():
    assert sorted(f.code for f in check_source("t.py", SCRIPT).findings) == ["TFD101", "TFD101", "TFD201", "TFD402"]
    fixed = fix_source("t.py", SCRIPT, unsafe=True)
    assert fixed.fixed_text == EXPECTED
    assert check_source("t.py", EXPECTED).findings == []


MEAN_LOSS_MANUAL_UPDATE = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    w = tf.Variable(tf.ones([2]))


def replica_fn(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.linalg.matvec(x, w) - y))
    grad = tape.gradient(loss, w)
    w.assign_sub(0.01 * grad)
    return loss


@tf.function
def train_step(x, y):
    return strategy.run(replica_fn, args=(x, y))


for x, y in strategy.experimental_distribute_dataset(dataset):
    train_step(x, y)
"""


def test_unaggregated_update_and_loss_scaling_compose_to_the_single_device_step():
    """A per-replica mean loss with a manual update: TFD301 all-reduces with MEAN and TFD303 does not
    also divide the loss by N (mean loss + MEAN all-reduce is the single-device gradient; the two
    fixes together would make it N times too small, ground truth (c) fix (i'))."""
    codes = sorted(f.code for f in check_source("t.py", MEAN_LOSS_MANUAL_UPDATE).findings)
    assert codes == ["TFD301"]
    fixed = fix_source("t.py", MEAN_LOSS_MANUAL_UPDATE, unsafe=True).fixed_text
    assert fixed == MEAN_LOSS_MANUAL_UPDATE.replace(
        "    grad = tape.gradient(loss, w)\n",
        "    grad = tape.gradient(loss, w)\n"
        "    grad = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.MEAN, grad)\n",
    )
    assert "num_replicas_in_sync" not in fixed
    assert check_source("t.py", fixed).findings == []


GLOBAL_LOSS_MANUAL_UPDATE = MEAN_LOSS_MANUAL_UPDATE.replace(
    "tf.reduce_mean(tf.square(tf.linalg.matvec(x, w) - y))",
    "tf.nn.compute_average_loss(tf.square(tf.linalg.matvec(x, w) - y), global_batch_size=4)",
)


def test_global_batch_loss_gets_a_sum_all_reduce_and_no_rescaling():
    fixed = fix_source("t.py", GLOBAL_LOSS_MANUAL_UPDATE, unsafe=True).fixed_text
    assert "all_reduce(tf.distribute.ReduceOp.SUM, grad)" in fixed
    assert "num_replicas_in_sync" not in fixed
    assert check_source("t.py", fixed).findings == []


DIRECT_STEP = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.01)
dataset = tf.data.Dataset.from_tensor_slices((features, targets)).batch(4)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for x, y in dataset:
    print(float(train_step(x, y)))
"""

DIRECT_STEP_FIXED = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.01)
dataset = tf.data.Dataset.from_tensor_slices((features, targets)).batch(4)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y)) / tf.distribute.get_replica_context().num_replicas_in_sync
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for x, y in strategy.experimental_distribute_dataset(dataset):
    print(float(strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(train_step, args=(x, y)), axis=None)))
"""


def test_direct_step_is_run_on_distributed_batches_with_a_consistent_reduce_and_loss_scale():
    """TFD103 distributes the plain dataset it feeds from (no full batch on every replica, ground
    truth F0) and reduces the loss with SUM; TFD303 then divides the mean loss by N, which is what
    makes that SUM the global mean and the summed gradients the single-device ones."""
    assert [f.code for f in check_source("t.py", DIRECT_STEP).findings] == ["TFD103"]
    fixed = fix_source("t.py", DIRECT_STEP, unsafe=True).fixed_text
    assert fixed == DIRECT_STEP_FIXED
    assert check_source("t.py", fixed).findings == []


EAGER_LOOP_STEP = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    regressor = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    adam = tf.keras.optimizers.Adam(1e-2)


def fit_batch(inputs, targets):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(regressor(inputs) - targets))
    grads = tape.gradient(loss, regressor.trainable_variables)
    adam.apply_gradients(zip(grads, regressor.trainable_variables))
    return loss


rows = tf.data.Dataset.from_tensor_slices((inputs_np, targets_np)).batch(64)
for epoch in range(3):
    for inputs, targets in rows:
        loss = fit_batch(inputs, targets)
    print(epoch, float(loss))
"""

EAGER_LOOP_STEP_FIXED = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    regressor = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    adam = tf.keras.optimizers.Adam(1e-2)
    adam.build(regressor.trainable_variables)


def fit_batch(inputs, targets):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(regressor(inputs) - targets)) / tf.distribute.get_replica_context().num_replicas_in_sync
    grads = tape.gradient(loss, regressor.trainable_variables)
    adam.apply_gradients(zip(grads, regressor.trainable_variables))
    return loss


@tf.function
def distributed_fit_batch(inputs, targets):
    return strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(fit_batch, args=(inputs, targets)), axis=None)


rows = tf.data.Dataset.from_tensor_slices((inputs_np, targets_np)).batch(64)
for epoch in range(3):
    for inputs, targets in strategy.experimental_distribute_dataset(rows):
        loss = distributed_fit_batch(inputs, targets)
    print(epoch, float(loss))
"""


def test_direct_step_in_an_eager_loop_becomes_a_compiled_distributed_step():
    """TFD103's `strategy.run` in a Python loop would be eager (TFD402, which cannot compile a loop):
    the fix defines a `tf.function` step around it, builds the Adam optimizer first (its variables
    cannot be created inside the compiled step), and TFD303 then scales the mean loss. Measured on
    TensorFlow 2.21 (a runnable, seeded copy, SGD and Adam): the fixed script prints the same
    losses with 1, 2 and 4 replicas."""
    assert [f.code for f in check_source("t.py", EAGER_LOOP_STEP).findings] == ["TFD103"]
    fixed = fix_source("t.py", EAGER_LOOP_STEP, unsafe=True).fixed_text
    assert fixed == EAGER_LOOP_STEP_FIXED
    assert check_source("t.py", fixed).findings == []
