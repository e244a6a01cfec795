"""A helper function a fix adds (TFD205's `_shard_by_data`, TFD202's `_input_shard`, TFD501's
`_worker_seed`) is defined before its first use, also when the file imports again further down
(several programs pasted into one file): placed after the last import of the file, it was
unbound where the first program calls it (a NameError the original did not have)."""

from __future__ import annotations

import textwrap

from fixer.config import Config
from fixer.engine import fix_source

TFD205_ONLY = Config(select=("TFD205",))

PASTED = textwrap.dedent(
    """\
    '''Two programs in one file.'''
    import json
    import os

    import tensorflow as tf

    os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": 0}})
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    dataset = tf.data.TFRecordDataset("train.tfrecord").batch(4)
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile("sgd", "mse")
    model.fit(dataset, epochs=1)

    # the second program
    import numpy as np
    print(np.zeros(2))
    """
)


def test_the_helper_is_defined_before_the_line_that_calls_it():
    fixed = fix_source("pasted.py", PASTED, TFD205_ONLY, unsafe=True).fixed_text
    assert fixed is not None
    lines = fixed.splitlines()
    definition = lines.index("def _shard_by_data():")
    first_use = next(i for i, line in enumerate(lines) if "_shard_by_data()" in line and not line.startswith("def "))
    assert definition < first_use
    assert lines.index("import tensorflow as tf") < definition < lines.index("import numpy as np")
    assert lines[0] == "'''Two programs in one file.'''", "the module docstring stays first"
    compile(fixed, "pasted.py", "exec")
