"""Generate a reproducible tree that looks like a real TensorFlow code base.

About 1,300 files and 300,000 lines by default: models, layers, data pipelines, utilities and
tests, each with an Apache licence header (which says "distributed"), and about 5 % of files
that use ``tf.distribute`` (training scripts and a few notebooks-worth of loops, some with the
mistakes distfix looks for). The same seed always gives the same tree.

    python benchmarks/gen_tree.py OUT_DIR [--files 1300] [--lines 300000] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

LICENCE = '''# Copyright 2024 The Example Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
# ==============================================================================
'''

IMPORTS = '''"""{doc}"""

from __future__ import absolute_import

import functools
import math

import numpy as np
import tensorflow as tf

'''

LAYER = '''

class {name}(tf.keras.layers.Layer):
    """A {adj} layer with {units} units."""

    def __init__(self, units={units}, rate={rate}, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.rate = rate
        self.dense = tf.keras.layers.Dense(units, activation="{act}")
        self.norm = tf.keras.layers.LayerNormalization()
        self.dropout = tf.keras.layers.Dropout(rate)

    def build(self, input_shape):
        self.scale = self.add_weight(name="scale", shape=(self.units,), initializer="ones")
        super().build(input_shape)

    def call(self, inputs, training=False):
        x = self.dense(inputs)
        x = self.norm(x)
        x = self.dropout(x, training=training)
        return x * self.scale

    def get_config(self):
        config = super().get_config()
        config.update({{"units": self.units, "rate": self.rate}})
        return config
'''

FUNCTION = '''

def {name}(features, labels=None, depth={depth}):
    """Compute the {adj} transform of a batch."""
    x = tf.convert_to_tensor(features)
    for step in range(depth):
        x = tf.nn.{act}(x) + tf.cast(step, x.dtype) * {rate}
        if labels is not None:
            x = x - tf.reduce_mean(labels)
    shape = tf.shape(x)
    total = tf.reduce_sum(x, axis=-1)
    result = {{"output": x, "total": total, "shape": shape}}
    return result
'''

PIPELINE = '''

def {name}(file_pattern, batch_size={units}, shuffle=True):
    """Read and batch the {adj} records."""
    files = tf.data.Dataset.list_files(file_pattern, shuffle=shuffle)
    dataset = files.interleave(tf.data.TFRecordDataset, cycle_length=4)
    if shuffle:
        dataset = dataset.shuffle(buffer_size=10 * batch_size, seed={depth})
    dataset = dataset.map(lambda record: tf.io.parse_single_example(record, FEATURES))
    dataset = dataset.batch(batch_size, drop_remainder=True)
    return dataset.prefetch(tf.data.AUTOTUNE)
'''

TEST = '''

class {name}Test(tf.test.TestCase):
    """Tests for the {adj} helpers."""

    def test_shape(self):
        x = tf.ones(({units}, {depth}))
        self.assertEqual(x.shape, ({units}, {depth}))

    def test_values(self):
        x = tf.range({units}, dtype=tf.float32)
        self.assertAllClose(tf.reduce_sum(x), {units} * ({units} - 1) / 2)
'''

DISTRIBUTED = '''

GLOBAL_BATCH_SIZE = {units}
strategy = tf.distribute.MirroredStrategy()

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense({depth}), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.Adam()


def {name}_step(inputs):
    features, labels = inputs
    with tf.GradientTape() as tape:
        predictions = model(features, training=True)
        per_example = tf.keras.losses.mean_squared_error(labels, predictions)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH_SIZE)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


@tf.function
def distributed_{name}(inputs):
    per_replica = strategy.{run}({name}_step, args=(inputs,))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)
'''

ADJECTIVES = ["residual", "gated", "sparse", "dense", "causal", "spectral", "local", "global", "deep"]
ACTIVATIONS = ["relu", "gelu", "tanh", "sigmoid", "elu", "selu"]


def _block(rng: random.Random, kind: str, index: int) -> str:
    template = {"layer": LAYER, "function": FUNCTION, "pipeline": PIPELINE, "test": TEST}[kind]
    return template.format(
        name=f"{rng.choice(ADJECTIVES).title()}{kind.title()}{index}" if kind in ("layer", "test") else f"{kind}_{index}",
        adj=rng.choice(ADJECTIVES),
        units=rng.choice([16, 32, 64, 128, 256]),
        depth=rng.randint(2, 8),
        rate=round(rng.random() / 2, 2),
        act=rng.choice(ACTIVATIONS),
        run=rng.choice(["run", "run", "experimental_run_v2"]),
    )


def generate(out: Path, files: int = 1300, lines: int = 300_000, seed: int = 7) -> tuple[int, int]:
    """Write the tree; returns (files, lines) written."""
    rng = random.Random(seed)
    per_file = lines // files
    total_lines = 0
    packages = ["models", "layers", "data", "utils", "tests", "training"]
    for number in range(files):
        package = packages[number % len(packages)]
        folder = out / package / f"group_{number % 17}"
        folder.mkdir(parents=True, exist_ok=True)
        kind = {"models": "layer", "layers": "layer", "data": "pipeline", "utils": "function", "tests": "test"}.get(
            package, "function"
        )
        parts = [LICENCE, IMPORTS.format(doc=f"{package.title()} module {number}.")]
        if number % 20 == 0:  # ~5 % of files train under tf.distribute
            parts.append(
                DISTRIBUTED.format(
                    name=f"train_{number}",
                    units=rng.choice([32, 64]),
                    depth=rng.randint(4, 32),
                    run=rng.choice(["run", "experimental_run_v2"]),
                )
            )
        text = "".join(parts)
        index = 0
        while text.count("\n") < per_file:
            text += _block(rng, kind, index)
            index += 1
        (folder / f"{package}_{number}.py").write_text(text, encoding="utf-8")
        total_lines += text.count("\n")
    return files, total_lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--files", type=int, default=1300)
    parser.add_argument("--lines", type=int, default=300_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    files, lines = generate(args.out, args.files, args.lines, args.seed)
    print(f"wrote {files} files, {lines} lines to {args.out}")


if __name__ == "__main__":
    main()
