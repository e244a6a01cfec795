"""Probe for TFD202: random samples each worker's process draws itself.

A multi-worker program runs the same script in every worker's process. This probe starts two
processes (standing for two workers, task index 0 and 1) that each draw samples the ways test
scripts and demos do, and says for each way whether the two processes drew the same samples.
Unseeded draws, and draws seeded by the task index, differ: each worker holds its own data.
Any constant seed (given to the draw, to a generator, or set for the whole program) makes every
worker draw the same samples. An op-level `seed=` without a global seed is included because
TensorFlow then combines it with a fixed default global seed.

    python benchmarks/probe_per_process_random_data.py

Output on TensorFlow 2.21, NumPy 2.4.6, 2026-11-27:

    np.random.randint, unseeded: differ
    np.random.default_rng(), unseeded: differ
    np.random.default_rng(task index): differ
    random.random, unseeded: differ
    tf.random.uniform, unseeded: differ
    np.random.seed(1234) then np.random.randint: same
    np.random.default_rng(0): same
    random.seed(0) then random.random: same
    tf.random.uniform(seed=3), no global seed: same
    tf.keras.utils.set_random_seed(0) then np.random.rand: same
    tf.random.set_seed(0) then tf.random.uniform: same
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

CASES = [
    "np.random.randint, unseeded",
    "np.random.default_rng(), unseeded",
    "np.random.default_rng(task index)",
    "random.random, unseeded",
    "tf.random.uniform, unseeded",
    "np.random.seed(1234) then np.random.randint",
    "np.random.default_rng(0)",
    "random.seed(0) then random.random",
    "tf.random.uniform(seed=3), no global seed",
    "tf.keras.utils.set_random_seed(0) then np.random.rand",
    "tf.random.set_seed(0) then tf.random.uniform",
]


def draw(case: str, task: int) -> list[float]:
    """Eight samples drawn the way ``case`` says, in a fresh process for ``task``."""
    import random

    import numpy as np

    if case == CASES[0]:
        return [float(v) for v in np.random.randint(0, 1 << 30, size=8)]
    if case == CASES[1]:
        return [float(v) for v in np.random.default_rng().random(8)]
    if case == CASES[2]:
        return [float(v) for v in np.random.default_rng(task).random(8)]
    if case == CASES[3]:
        return [random.random() for _ in range(8)]
    if case == CASES[5]:
        np.random.seed(1234)
        return [float(v) for v in np.random.randint(0, 1 << 30, size=8)]
    if case == CASES[6]:
        return [float(v) for v in np.random.default_rng(0).random(8)]
    if case == CASES[7]:
        random.seed(0)
        return [random.random() for _ in range(8)]
    import tensorflow as tf

    if case == CASES[4]:
        return [float(v) for v in tf.random.uniform([8]).numpy()]
    if case == CASES[8]:
        return [float(v) for v in tf.random.uniform([8], seed=3).numpy()]
    if case == CASES[9]:
        tf.keras.utils.set_random_seed(0)
        return [float(v) for v in np.random.rand(8)]
    tf.random.set_seed(0)
    return [float(v) for v in tf.random.uniform([8]).numpy()]


def main() -> None:
    """Each case in two fresh processes (tasks 0 and 1): do they draw the same samples?"""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}
    for number, case in enumerate(CASES):
        drawn = []
        for task in (0, 1):
            out = subprocess.run(
                [sys.executable, __file__, str(number), str(task)], env=env, capture_output=True, text=True, check=True
            ).stdout
            drawn.append(json.loads(out.strip().splitlines()[-1]))
        print(f"{case}: {'same' if drawn[0] == drawn[1] else 'differ'}")


if __name__ == "__main__":
    if len(sys.argv) == 3:
        print(json.dumps(draw(CASES[int(sys.argv[1])], int(sys.argv[2]))))
    else:
        main()
