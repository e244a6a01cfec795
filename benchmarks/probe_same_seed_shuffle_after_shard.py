"""Probe for TFD501's wording: one global seed on every worker, with a shuffle after `.shard`.

Two worker processes (task 0 and 1, as `tf.distribute` would start them) each run
`tf.random.set_seed(42)` and read two epochs of `Dataset.range(16).shard(2, task).shuffle(8)`,
once unseeded and once with `shuffle(8, seed=1)`. The parent prints what each worker read, how
many of the 16 examples were read more (duplicated) or fewer (dropped) than twice, and whether
both workers drew the same permutation of their own shard's positions. With the same seed the
permutation is the same, but the shards are disjoint: nothing is duplicated or dropped, so a
shuffle after sharding repeats no example across workers (TFD501 does not count it).

    python benchmarks/probe_same_seed_shuffle_after_shard.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

WORKER = r"""
import json, sys
import tensorflow as tf

task = int(sys.argv[1])
results = {}
for name, seed in (("unseeded shuffle", None), ("shuffle(seed=1)", 1)):
    tf.random.set_seed(42)
    ds = tf.data.Dataset.range(16).shard(2, task).shuffle(8, seed=seed).repeat(2)
    results[name] = [int(x) for x in ds]
print("RESULT " + json.dumps(results), flush=True)
"""


def _worker(task: int) -> dict[str, list[int]]:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
    done = subprocess.run(
        [sys.executable, "-c", WORKER, str(task)], env=env, capture_output=True, text=True, timeout=600, check=True
    )
    line = next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))
    result: dict[str, list[int]] = json.loads(line[len("RESULT ") :])
    return result


def main() -> None:
    workers = [_worker(0), _worker(1)]
    for name in workers[0]:
        reads = [worker[name] for worker in workers]
        counts = Counter(x for read in reads for x in read)
        duplicated = sum(1 for x in range(16) if counts[x] > 2)
        dropped = sum(1 for x in range(16) if counts[x] < 2)
        # Worker t's shard holds 2i + t at position i: the position order it drew.
        positions = [[(x - task) // 2 for x in read] for task, read in enumerate(reads)]
        print(f"- tf.random.set_seed(42) on both, {name}: w0 {reads[0]} w1 {reads[1]}")
        print(
            f"  {duplicated} of 16 read more than 2x, {dropped} fewer; same permutation: {positions[0] == positions[1]}"
        )


if __name__ == "__main__":
    main()
