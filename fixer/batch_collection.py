"""When a batch run (check, fix) lets Python's cyclic garbage collector run.

A cold check of a distribution-heavy tree spent about a third of its CPU in the collector
(tf-keras in one process: 9.8 s, of which collections 2.9 s by ``gc.callbacks``; 5.6 s with the
collector off). Two causes. Parsing a file builds 100,000 and more nodes (libcst's tree, CPython's,
the index) that all stay alive while the file is analysed; with Python's default threshold (a
young collection every 700 allocations) each is traversed by a young collection, again by a
middle-aged one, and again by every full collection until the file is done. And every full
collection also traverses what the imports left alive (about 58,000 objects: modules, classes,
the rules' tables), none of which ever becomes garbage.

So, for the duration of a run, what is alive when it starts is frozen (``gc.freeze``: moved to a
permanent generation no collection traverses) and the young generation is collected every
20,000 allocations. Cyclic garbage is still collected, a little later: the peak memory of a
cold tf-keras check moves by a few MB (about 175 MB). The findings cannot change: nothing in an
analysis depends on when unreachable objects are freed.

The previous settings come back after the run (tests run many in one process). Workers forked
by the run's pool inherit the settings; under another start method they keep Python's defaults,
which is only slower. The language server has its own policy (fixer/lsp/collector.py).
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

# Allocations between two young collections during a run (Python's default: 700).
YOUNG_THRESHOLD = 20_000


@contextmanager
def batch_collection() -> Iterator[None]:
    """Freeze what is alive and collect the young generation less often, until the run ends.

    Objects another owner froze (the language server's) are left frozen: only a freeze this run
    made is undone."""
    thresholds = gc.get_threshold()
    froze = gc.get_freeze_count() == 0
    if froze:
        gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if froze:
            gc.unfreeze()
