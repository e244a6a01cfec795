"""The language server's collector policy (fixer/lsp/collector.py): long-lived state is frozen
out of the collector's way, and garbage in reference cycles is still freed."""

from __future__ import annotations

import gc
import weakref

import pytest

from fixer.lsp.collector import collection_deferred, settle


class _Node:
    """An object that can sit in a reference cycle, and be watched through a weak reference."""

    def __init__(self) -> None:
        self.other: _Node | None = None


def _cycle() -> weakref.ref[_Node]:
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    return weakref.ref(a)


@pytest.fixture(autouse=True)
def _unfrozen():
    yield
    gc.unfreeze()


def test_settle_freezes_what_is_alive_and_frees_cycles_that_are_not():
    kept = _Node()
    dead = _cycle()
    settle()
    assert dead() is None
    assert gc.get_freeze_count() > 0
    assert not any(kept is o for o in gc.get_objects())  # frozen: no generation holds it


def test_a_frozen_cycle_that_becomes_garbage_is_freed_by_the_next_settle():
    holder = [_Node()]
    holder[0].other = holder[0]
    watched = weakref.ref(holder[0])
    settle()
    holder.clear()  # the cycle is garbage now, but frozen: only a collection of it frees it
    gc.collect()
    assert watched() is not None
    settle()  # as when a document is closed
    assert watched() is None


def test_no_collection_runs_inside_an_analysis():
    collections = []

    def count(phase: str, info: dict) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(count)
    try:
        with collection_deferred():
            garbage = [_cycle() for _ in range(20_000)]  # far past the youngest generation's threshold
            assert collections == []
        assert gc.isenabled()
        gc.collect()
        assert all(ref() is None for ref in garbage)
    finally:
        gc.callbacks.remove(count)
