"""The data-only pass: which examples each worker's input pipeline yields, over enough batches to decide.

The steps the model runs (``--max-steps``, 3 by default) draw too few examples to see unsharded
input: two workers that each shuffle 60,000 examples with their own seed share about one example
in 100 after 3 batches of 32. So every distributed dataset the run creates (by the script, or by
Keras ``fit`` from the script's ``tf.data`` dataset) is kept, and after the script ends each
worker reads its own part of it again, without the model: the pipeline as the strategy built it
for this worker (auto-sharded and rebatched), from its start, up to ``MAX_EXAMPLES`` examples,
``MAX_BATCHES`` batches or ``MAX_SECONDS`` of reading. A digest of each example goes in the
dump (``pass_examples``, one list per distributed dataset, in the order the run created them); the
parent compares the workers' lists of each dataset (checks.py, inputs-distinct).

Only with several workers (one worker has nobody to overlap with).
"""

from __future__ import annotations

import time
from typing import Any

from . import observe
from .state import DUMP, SETTINGS

MAX_EXAMPLES = 2048
MAX_BATCHES = 256
MAX_SECONDS = 30.0
MAX_DATASETS = 4
_DATASETS: list[Any] = []  # the distributed datasets the run created, in order


def install(tf: Any) -> None:
    """Keep every distributed dataset the strategies create (when there are several workers)."""
    if not SETTINGS.get("tf_config"):
        return
    from tensorflow.python.distribute import distribute_lib

    for name in ("experimental_distribute_dataset", "distribute_datasets_from_function"):
        original = getattr(distribute_lib.StrategyBase, name)

        def distribute(self: Any, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            distributed = _original(self, *args, **kwargs)
            if len(_DATASETS) < MAX_DATASETS:
                _DATASETS.append(distributed)
            return distributed

        setattr(distribute_lib.StrategyBase, name, distribute)


def _local_datasets(distributed: Any) -> list[Any]:
    """This worker's pipelines of a distributed dataset, as the strategy built them."""
    if not getattr(distributed, "_built", True):
        distributed.build()
    return list(getattr(distributed, "_cloned_datasets", None) or getattr(distributed, "_datasets", None) or [])


def _read(dataset: Any, deadline: float) -> list[str]:
    import tensorflow as tf

    examples: list[str] = []
    for batches, element in enumerate(dataset):
        flat = [t.numpy() for t in tf.nest.flatten(element, expand_composites=True)]
        rows = observe.row_digests([flat]) if flat else None
        if rows is None:  # no common batch dimension: nothing to call an example
            return examples
        examples.extend(r[:16] for r in rows)
        if len(examples) >= MAX_EXAMPLES or batches + 1 >= MAX_BATCHES or time.monotonic() > deadline:
            break
    return examples[:MAX_EXAMPLES]


def run() -> None:
    """Read this worker's pipelines of each kept dataset; record each dataset's examples."""
    deadline = time.monotonic() + MAX_SECONDS
    for distributed in _DATASETS:
        examples: list[str] = []
        for local in _local_datasets(distributed):
            examples.extend(_read(local, deadline))
        DUMP["pass_examples"].append(examples[:MAX_EXAMPLES])
        if time.monotonic() > deadline:
            return
