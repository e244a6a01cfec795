"""Examples of TFD502 (checkpoint-path-shared-by-workers).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.example_programs import MULTI_WORKER_MODEL as _HEADER
from fixer.example_programs import WORKER_PATH_HELPERS as _HELPERS
from fixer.example_programs import with_worker_path_helpers as _fixed
from fixer.rule import Invalid, Valid

_TRAINER = """
import os

import tensorflow as tf


class Trainer:
    def __init__(self, strategy, root):
        with strategy.scope():
            self.model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        r = strategy.cluster_resolver
        self.ckpt_dir = {directory}
        self.manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=self.model), {manager_dir}, max_to_keep=2)

    def save(self):
        self.manager.save()


strategy = tf.distribute.MultiWorkerMirroredStrategy()
Trainer(strategy, "/out").save()
"""


EXAMPLES = (
    Invalid(
        _HEADER + 'model.save("/models/final.keras")\n',
        after=_fixed(
            'model.save(_worker_path("/models/final.keras", strategy))\n'
            '_remove_worker_copy("/models/final.keras", strategy)\n'
        ),
        note="model.save",
    ),
    Invalid(
        _HEADER + 'model.save_weights(os.path.join(out_dir, "weights.h5"))\n',
        after=_fixed(
            'model.save_weights(_worker_path(os.path.join(out_dir, "weights.h5"), strategy))\n'
            '_remove_worker_copy(os.path.join(out_dir, "weights.h5"), strategy)\n'
        ),
        note="save_weights with a joined path",
    ),
    Invalid(
        _HEADER + 'checkpoint = tf.train.Checkpoint(model=model)\ncheckpoint.save("/ckpt/model")\n',
        after=_fixed(
            "checkpoint = tf.train.Checkpoint(model=model)\n"
            'checkpoint.save(_worker_path("/ckpt/model", strategy))\n'
            '_remove_worker_copy("/ckpt/model", strategy)\n'
        ),
        note="Checkpoint.save",
    ),
    Invalid(
        _HEADER
        + 'checkpoint = tf.train.Checkpoint(model=model)\nmanager = tf.train.CheckpointManager(checkpoint, directory="/ckpt", max_to_keep=3)\n',
        after=_fixed(
            "checkpoint = tf.train.Checkpoint(model=model)\n"
            'manager = tf.train.CheckpointManager(checkpoint, directory=_worker_path("/ckpt", strategy), max_to_keep=3)\n'
        ),
        note="CheckpointManager directory",
    ),
    Invalid(
        _HEADER + "checkpoint = tf.train.Checkpoint(model=model)\ncheckpoint.write(prefix)\n",
        after=_fixed(
            "checkpoint = tf.train.Checkpoint(model=model)\n"
            "checkpoint.write(_worker_path(prefix, strategy))\n"
            "_remove_worker_copy(prefix, strategy)\n"
        ),
        note="Checkpoint.write",
    ),
    Invalid(
        _HEADER + 'for epoch in range(3):\n    model.save(f"/models/epoch_{epoch}.keras")\n',
        after=_fixed(
            "for epoch in range(3):\n"
            '    model.save(_worker_path(f"/models/epoch_{epoch}.keras", strategy))\n'
            '    _remove_worker_copy(f"/models/epoch_{epoch}.keras", strategy)\n'
        ),
        note="in a loop",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.save("/m.keras"); print("saved")
        """,
        after=None,
        note="two statements on a line: advice",
    ),
    Invalid(
        _HEADER + 'model.save(filepath="/models/final.keras")\n',
        after=_fixed(
            'model.save(filepath=_worker_path("/models/final.keras", strategy))\n'
            '_remove_worker_copy("/models/final.keras", strategy)\n'
        ),
        note="keyword path",
    ),
    Valid(_HEADER + 'model.save(_worker_path("/models/final.keras", strategy))\n', note="already per worker"),
    Valid(
        _HEADER + 'task_id = strategy.cluster_resolver.task_id\nmodel.save(f"/models/worker_{task_id}.keras")\n',
        note="path by task id",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.save("/models/final.keras")
        """,
        note="single machine",
    ),
    Valid(
        _HEADER + 'callbacks = [tf.keras.callbacks.ModelCheckpoint("/ckpt/{epoch}.keras")]\n',
        note="ModelCheckpoint handles workers",
    ),
    Valid(
        _HEADER + 'callbacks = [tf.keras.callbacks.BackupAndRestore(backup_dir="/backup")]\n',
        note="BackupAndRestore handles workers",
    ),
    Valid(
        _HEADER + 'if strategy.cluster_resolver.task_id == 0:\n    model.save("/m.keras")\n',
        note="chief only is TFD503",
    ),
    Valid(_HEADER + 'model.save("/models/final.keras")  # distfix: ignore[TFD502]\n', note="suppressed"),
    Valid(_HEADER + 'results = {"model": model}\nresults.save = None\n', note="not a save call"),
    Invalid(
        """
        import tensorflow as tf

        def build_model():
            net = tf.keras.Sequential([tf.keras.layers.Dense(4), tf.keras.layers.Dense(1)])
            net.compile(optimizer="sgd", loss="mse")
            return net

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            trained = build_model()
        trained.save_weights("/out/final.weights.h5")
        """,
        after="import tensorflow as tf\nimport os\n"
        + _HELPERS
        + (
            "\ndef build_model():\n"
            "    net = tf.keras.Sequential([tf.keras.layers.Dense(4), tf.keras.layers.Dense(1)])\n"
            '    net.compile(optimizer="sgd", loss="mse")\n'
            "    return net\n\n"
            "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n"
            "with strategy.scope():\n"
            "    trained = build_model()\n"
            'trained.save_weights(_worker_path("/out/final.weights.h5", strategy))\n'
            '_remove_worker_copy("/out/final.weights.h5", strategy)\n'
        ),
        note="model from a factory; `os` is imported for the helpers",
    ),
    Invalid(
        _HEADER + 'tf.train.Checkpoint(net=model).write("/ckpt/last")\n',
        after=_fixed(
            'tf.train.Checkpoint(net=model).write(_worker_path("/ckpt/last", strategy))\n_remove_worker_copy("/ckpt/last", strategy)\n'
        ),
        note="an inline checkpoint",
    ),
    Invalid(
        _HEADER
        + 'class Regressor(tf.keras.Model):\n    pass\n\n\nwith strategy.scope():\n    reg = Regressor()\nreg.save("/models/reg.keras")\n',
        after=_fixed(
            "class Regressor(tf.keras.Model):\n    pass\n\n\nwith strategy.scope():\n    reg = Regressor()\n"
            'reg.save(_worker_path("/models/reg.keras", strategy))\n_remove_worker_copy("/models/reg.keras", strategy)\n'
        ),
        note="a subclassed model",
    ),
    Valid(
        _HEADER
        + 'def per_task_file(base, task_id):\n    return base if task_id == 0 else f"{base}.{task_id}"\n\n\n'
        + 'target = per_task_file("/models/m.keras", strategy.cluster_resolver.task_id)\nmodel.save(target)\n',
        note="path held in a variable built from the task",
    ),
    Valid(
        _HEADER
        + 'rank = strategy.cluster_resolver.task_id\nout = "/ckpt" if rank == 0 else os.path.join("/tmp", f"w{rank}")\n'
        + "manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=model), out, max_to_keep=1)\nmanager.save()\n",
        note="directory chosen by a conditional on the task",
    ),
    Valid(
        _HEADER
        + 'def save_to(dest):\n    model.save(dest)\n\n\nsave_to(f"/models/{strategy.cluster_resolver.task_type}-{strategy.cluster_resolver.task_id}.keras")\n',
        note="a parameter whose caller passes a per-task path",
    ),
    Valid(
        _HEADER
        + 'import json\n\ncfg = json.loads(os.environ["TF_CONFIG"])\nif 0 == cfg["task"]["index"]:\n    model.save("/m.keras")\n',
        note="chief-only (TFD503), reversed comparison",
    ),
    Valid(
        _HEADER + 'manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=model), "/ckpt", max_to_keep=2)\n'
        'if strategy.cluster_resolver.task_type == "chief":\n    manager.save()\n',
        note="only the chief saves through the manager: TFD503",
    ),
    Invalid(
        _TRAINER.format(directory='os.path.join(root, "checkpoints")', manager_dir="self.ckpt_dir"),
        after=_TRAINER.format(
            directory='os.path.join(root, "checkpoints")', manager_dir="_worker_path(self.ckpt_dir, strategy)"
        ).replace("import tensorflow as tf\n", "import tensorflow as tf\n" + _HELPERS, 1),
        note="a directory kept on `self` is followed like a variable: the same on every worker",
    ),
    Valid(
        _TRAINER.format(directory="worker_dir(root, r.task_type, r.task_id)", manager_dir="self.ckpt_dir")
        + '\n\ndef worker_dir(root, task_type, task_id):\n    return root if task_id == 0 else os.path.join(root, f"tmp_{task_id}")\n',
        note="a per-task directory kept on `self` and used in another statement",
    ),
    Invalid(
        _HEADER.replace("tf.keras.Sequential([tf.keras.layers.Dense(1)])", "zoo.build(args.arch)")
        + 'model.compile(optimizer="adam", loss="mse")\nmodel.save(args.output_dir)\n',
        after=_fixed(
            'model.compile(optimizer="adam", loss="mse")\n'
            "model.save(_worker_path(args.output_dir, strategy))\n"
            "_remove_worker_copy(args.output_dir, strategy)\n"
        ).replace("tf.keras.Sequential([tf.keras.layers.Dense(1)])", "zoo.build(args.arch)"),
        note="a model from an unknown factory, known by its compile",
    ),
    Valid(
        _HEADER + 'tf.saved_model.save(model, "/export/1")\n',
        note="tf.saved_model.save to one directory: measured harmless (see the probe)",
    ),
)
