"""When the language server lets Python's cyclic garbage collector run.

An open document keeps its parsed chunks, their indexes and positions for the next edit: a
3,000-line file is about 300,000 objects that the collector would traverse at every full
collection (about 150 ms each, in one edit out of fifteen) although they never become cyclic
garbage: trees and tables without back references, freed by reference counting when an edit
replaces them. Each analysis, though, leaves a few thousand objects in reference cycles
(scopes and their bindings, the analysis context), which only the collector frees.

So the collector is kept out of analyses (:func:`collection_deferred`), and once a document
is open and analysed, everything alive is collected once and moved to the permanent
generation (:func:`settle`): later collections traverse only what edits made since. Closing a
document settles again, so that what it kept is freed.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator


@contextmanager
def collection_deferred() -> Iterator[None]:
    """Keep the collector out of an analysis: a collection that starts mid-analysis adds its
    whole cost to that edit. Re-enabled afterwards, it runs once the diagnostics are out."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def settle() -> None:
    """Collect every generation, frozen objects included, then freeze what is alive (the open
    documents' trees, the server itself). Called when a document was opened and analysed (its
    state is now long-lived) and when one was closed (what it kept may now be garbage, in
    cycles only a collection finds)."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
