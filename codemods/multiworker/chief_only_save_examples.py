"""Examples of TFD503 (chief-only-save).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.example_programs import MULTI_WORKER_MODEL as _HEADER
from fixer.example_programs import with_worker_path_helpers as _fixed
from fixer.rule import Invalid, Valid

_FIT = """
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile("adam", "mse")
"""


EXAMPLES = (
    Invalid(
        _HEADER + 'if strategy.cluster_resolver.task_id == 0:\n    model.save("/models/final.keras")\n',
        after=_fixed(
            'model.save(_worker_path("/models/final.keras", strategy))\n_remove_worker_copy("/models/final.keras", strategy)\n'
        ),
        note="task id guard",
    ),
    Invalid(
        _HEADER + 'is_chief = strategy.cluster_resolver.task_id == 0\nif is_chief:\n    model.save_weights("/w.h5")\n',
        after=_fixed(
            'is_chief = strategy.cluster_resolver.task_id == 0\nmodel.save_weights(_worker_path("/w.h5", strategy))\n_remove_worker_copy("/w.h5", strategy)\n'
        ),
        note="is_chief flag",
    ),
    Invalid(
        _HEADER
        + 'checkpoint = tf.train.Checkpoint(model=model)\nif strategy.cluster_resolver.task_type == "chief":\n    checkpoint.write("/ckpt/model")\n',
        after=_fixed(
            'checkpoint = tf.train.Checkpoint(model=model)\ncheckpoint.write(_worker_path("/ckpt/model", strategy))\n_remove_worker_copy("/ckpt/model", strategy)\n'
        ),
        note="chief task type",
    ),
    Invalid(
        _HEADER
        + 'if strategy.cluster_resolver.task_id == 0:\n    model.save("/m.keras")\nelse:\n    print("not saving")\n',
        after=None,
        note="guard with else: advice",
    ),
    Invalid(
        _HEADER + 'if strategy.cluster_resolver.task_id == 0:\n    model.save("/m.keras")\n    print("saved")\n',
        after=_fixed(
            'model.save(_worker_path("/m.keras", strategy))\n_remove_worker_copy("/m.keras", strategy)\n'
            'if strategy.cluster_resolver.task_id == 0:\n    print("saved")\n'
        ),
        note="save first under the guard: moved before it",
    ),
    Invalid(
        _HEADER
        + 'for epoch in range(2):\n    if strategy.cluster_resolver.task_id == 0:\n        model.save(f"/m{epoch}.keras")\n',
        after=_fixed(
            'for epoch in range(2):\n    model.save(_worker_path(f"/m{epoch}.keras", strategy))\n    _remove_worker_copy(f"/m{epoch}.keras", strategy)\n'
        ),
        note="in a loop",
    ),
    Invalid(
        _HEADER + 'task_index = strategy.cluster_resolver.task_id\nif task_index == 0:\n    model.save("/m.keras")\n',
        after=_fixed(
            'task_index = strategy.cluster_resolver.task_id\nmodel.save(_worker_path("/m.keras", strategy))\n_remove_worker_copy("/m.keras", strategy)\n'
        ),
        note="task index variable",
    ),
    Invalid(
        _HEADER
        + 'checkpoint = tf.train.Checkpoint(model=model)\nif strategy.cluster_resolver.task_id == 0:\n    checkpoint.save("/ckpt/c")\n',
        after=_fixed(
            'checkpoint = tf.train.Checkpoint(model=model)\ncheckpoint.save(_worker_path("/ckpt/c", strategy))\n_remove_worker_copy("/ckpt/c", strategy)\n'
        ),
        note="Checkpoint.save",
    ),
    Valid(_HEADER + 'model.save(_worker_path("/m.keras", strategy))\n', note="every worker saves"),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        if is_chief:
            model.save("/m.keras")
        """,
        note="single machine",
    ),
    Valid(_HEADER + 'if strategy.cluster_resolver.task_id == 0:\n    print("chief logs")\n', note="logging only"),
    Valid(
        _HEADER + 'if epoch % 10 == 0:\n    model.save(_worker_path("/m.keras", strategy))\n',
        note="periodic, not chief",
    ),
    Valid(
        _HEADER + 'if strategy.cluster_resolver.task_id == 0:  # distfix: ignore[TFD503]\n    model.save("/m.keras")\n',
        note="suppressed",
    ),
    Valid(_HEADER + 'if strategy.cluster_resolver.task_id == 0:\n    upload("/m.keras")\n', note="upload after saving"),
    Valid(
        _HEADER + 'def export(is_chief):\n    if is_chief:\n        tf.saved_model.save(serving_model, "/export")\n',
        note="a serving export of another model",
    ),
    Valid(_HEADER + 'if is_chief:\n    writer.save("/report.txt")\n', note="another object's save"),
    Invalid(
        _HEADER
        + 'for epoch in range(10):\n    if strategy.cluster_resolver.task_id == 0 and epoch % 5 == 0:\n        model.save(f"/m{epoch}.keras")\n',
        after=_fixed(
            "for epoch in range(10):\n    if epoch % 5 == 0:\n"
            '        model.save(_worker_path(f"/m{epoch}.keras", strategy))\n        _remove_worker_copy(f"/m{epoch}.keras", strategy)\n'
        ),
        note="compound guard keeps the other condition",
    ),
    Invalid(
        _HEADER
        + 'cfg = json.loads(os.environ["TF_CONFIG"])\nif 0 == cfg["task"]["index"]:\n    print("writing")\n    model.save_weights("/w.weights.h5")\n',
        after=_fixed(
            'cfg = json.loads(os.environ["TF_CONFIG"])\nif 0 == cfg["task"]["index"]:\n    print("writing")\n'
            'model.save_weights(_worker_path("/w.weights.h5", strategy))\n_remove_worker_copy("/w.weights.h5", strategy)\n'
        ),
        note="index read from TF_CONFIG, reversed, save last: moved after",
    ),
    Invalid(
        _HEADER
        + 'manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=model), "/ckpt", max_to_keep=2)\nif strategy.cluster_resolver.task_type == "chief":\n    manager.save()\n',
        after=_fixed(
            'manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=model), _worker_path("/ckpt", strategy), max_to_keep=2)\nmanager.save()\n'
        ),
        note="a manager's save: its directory becomes per worker",
    ),
    Invalid(
        _HEADER
        + 'def export():\n    if not strategy.cluster_resolver.task_id == 0:\n        return\n    model.save("/m.keras")\n',
        after=None,
        note="an early return on the other workers: advice",
    ),
    Invalid(
        _HEADER
        + 'def export():\n    model.save("/m.keras")\n\n\nif strategy.cluster_resolver.task_type == "chief":\n    export()\n',
        after=None,
        note="a function only the chief calls: advice",
    ),
    Invalid(
        _HEADER
        + 'if debug:\n    print("debug")\nelif strategy.cluster_resolver.task_id == 0:\n    model.save("/m.keras")\n',
        after=None,
        note="an elif: advice",
    ),
    Valid(
        _HEADER
        + 'task_id = strategy.cluster_resolver.task_id\nmodel.save(_worker_path("/m.keras", strategy))\nif not task_id == 0:\n    tf.io.gfile.rmtree("/tmp/workertemp")\n',
        note="only the cleanup is guarded",
    ),
    Valid(
        _HEADER
        + 'for index, batch in enumerate(batches):\n    if index == 0:\n        model.save(_worker_path("/first.keras", strategy))\n',
        note="a loop index, not the task index",
    ),
    Valid(
        _HEADER
        + 'if strategy.cluster_resolver.task_type != "chief":\n    print("not the chief")\nmodel.save(_worker_path("/m.keras", strategy))\n',
        note="a non-chief branch without a save",
    ),
    Invalid(
        _FIT + "is_chief = strategy.cluster_resolver.task_id == 0\n"
        'saving = [tf.keras.callbacks.ModelCheckpoint("/ckpt/weights-{epoch}.keras")] if is_chief else []\n'
        "model.fit(x, y, epochs=3, callbacks=saving)\n",
        after=_FIT + "is_chief = strategy.cluster_resolver.task_id == 0\n"
        'saving = [tf.keras.callbacks.ModelCheckpoint("/ckpt/weights-{epoch}.keras")]\n'
        "model.fit(x, y, epochs=3, callbacks=saving)\n",
        note="a ModelCheckpoint callback only on the chief (conditional list): every worker gets it",
    ),
    Invalid(
        _FIT + 'import json\n\nworker = json.loads(os.environ["TF_CONFIG"])["task"]["index"]\ncallbacks = []\n'
        'if worker == 0:\n    callbacks.append(tf.keras.callbacks.BackupAndRestore("/backup"))\n'
        "model.fit(x, y, epochs=3, callbacks=callbacks)\n",
        after=_FIT + 'import json\n\nworker = json.loads(os.environ["TF_CONFIG"])["task"]["index"]\ncallbacks = []\n'
        'callbacks.append(tf.keras.callbacks.BackupAndRestore("/backup"))\n'
        "model.fit(x, y, epochs=3, callbacks=callbacks)\n",
        note="a saving callback appended under a rank-0 test (Horovod habit)",
    ),
    Invalid(
        _FIT + "class Saver(tf.keras.callbacks.ModelCheckpoint):\n    pass\n\n\n"
        'chief = strategy.cluster_resolver.task_type == "chief"\n'
        'model.fit(x, y, callbacks=[] if not chief else [Saver("/ckpt/m.keras")])\n',
        after=_FIT + "class Saver(tf.keras.callbacks.ModelCheckpoint):\n    pass\n\n\n"
        'chief = strategy.cluster_resolver.task_type == "chief"\n'
        'model.fit(x, y, callbacks=[Saver("/ckpt/m.keras")])\n',
        note="a ModelCheckpoint subclass, negated test, inline in fit",
    ),
    Invalid(
        _FIT + "rank = strategy.cluster_resolver.task_id\n"
        'callbacks = [tf.keras.callbacks.ModelCheckpoint("/ckpt/m.keras")] if rank == 0 else [tf.keras.callbacks.History()]\n'
        "model.fit(x, y, callbacks=callbacks)\n",
        after=None,
        note="the other workers get other callbacks: advice",
    ),
    Valid(
        _FIT
        + 'callbacks = [tf.keras.callbacks.ModelCheckpoint("/ckpt/{epoch}.h5"), tf.keras.callbacks.BackupAndRestore("/backup")]\n'
        'if strategy.cluster_resolver.task_id == 0:\n    callbacks.append(tf.keras.callbacks.CSVLogger("/logs/train.csv"))\n'
        "model.fit(x, y, callbacks=callbacks)\n",
        note="saving callbacks on every worker; only a logger is chief-only",
    ),
)
