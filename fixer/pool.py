"""A process pool for per-file work that survives a crashing file and stops when told to.

Three guarantees on top of :class:`concurrent.futures.ProcessPoolExecutor`:

- **One file costs one file.** When a worker dies (a native crash in a parser, the kernel's OOM
  killer), the pool breaks and every pending future fails. The files a dead worker was on are
  found (each worker marks in shared memory the file it starts and the file it finishes), each is
  run again alone in a process of its own (where a crash is its own error result), and the others
  go on in a new pool.
- **Workers die with their parent.** Each worker asks Linux for SIGTERM when its parent dies
  (``PR_SET_PDEATHSIG``), and checks that the parent is still the one that started it.
- **Stopped means stopped.** A worker that gets SIGTERM (from the parent stopping the run, or
  from its parent's death) stops the file it is on at once (an atomic write in progress removes
  its temporary file; see fixer/sources.py) and exits: nothing is written after the stop. Ctrl-C
  is left to the parent, which terminates the workers and waits for them before it reports the
  interruption; :func:`sigterm_interrupts` makes SIGTERM do the same in the parent.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

Item = TypeVar("Item")
Result = TypeVar("Result")

_PR_SET_PDEATHSIG = 1
# In a worker: one byte per item of the round, _STARTED then _FINISHED (shared with the parent).
_STATES: ctypes.Array[ctypes.c_byte] | None = None
_STARTED, _FINISHED = 1, 2
_BUSY = False  # in a worker: inside a work item


class Stopped(BaseException):
    """Raised in a busy worker by SIGTERM: the run is being stopped; the worker exits."""


def _on_sigterm(signum: int, frame: object) -> None:
    if not _BUSY:
        os._exit(128 + signum)  # between items: nothing to clean up
    raise Stopped()  # unwinds the item (removing a half-written temporary file), then exits


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """In the parent: SIGTERM raises KeyboardInterrupt, so a stopped run stops its workers and
    reports like Ctrl-C instead of dying with them still running."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread (the language server): leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def die_with_parent(parent: int) -> None:
    """Ask for SIGTERM when the parent dies; exit now if it already has (Linux only)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return
    if os.getppid() != parent:  # the parent died before the death signal was armed
        os._exit(1)


def _init_worker(parent: int, states: ctypes.Array[ctypes.c_byte] | None) -> None:
    global _STATES
    _STATES = states
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the parent decides
    signal.signal(signal.SIGTERM, _on_sigterm)
    die_with_parent(parent)


class _Chunk(Generic[Item, Result]):
    """Calls ``work`` on numbered items in a worker, saying which one it starts."""

    def __init__(self, work: Callable[[Item], Result]) -> None:
        self.work = work

    def __call__(self, chunk: list[tuple[int, Item]]) -> list[tuple[int, Result]]:
        global _BUSY
        done = []
        for number, item in chunk:
            if _STATES is not None:
                _STATES[number] = _STARTED
            _BUSY = True
            try:
                done.append((number, self.work(item)))
            except Stopped:
                os._exit(128 + signal.SIGTERM)
            finally:
                _BUSY = False
            if _STATES is not None:
                _STATES[number] = _FINISHED
        return done


def run_isolated(work: Callable[[Item], Result], item: Item) -> Result | None:
    """``work(item)`` in a process of its own; None when that process dies."""
    pool = ProcessPoolExecutor(max_workers=1, initializer=_init_worker, initargs=(os.getpid(), None))
    try:
        return pool.submit(_Chunk(work), [(0, item)]).result()[0][1]
    except BrokenProcessPool:
        return None
    except BaseException:
        _terminate(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def map_resilient(
    work: Callable[[Item], Result],
    items: Sequence[Item],
    workers: int,
    crashed: Callable[[Item], Result],
) -> list[Result]:
    """``[work(item) for item in items]`` over ``workers`` processes, in order.

    An item whose process dies gets ``crashed(item)`` instead; the other items are not lost.
    ``work`` must be picklable (a module-level function) and must not raise.
    """
    results: list[Result | None] = [None] * len(items)
    todo = list(range(len(items)))
    while todo:
        suspects = _round(work, items, todo, workers, results)
        for number in suspects:
            alone = run_isolated(work, items[number])
            results[number] = crashed(items[number]) if alone is None else alone
        left = [number for number in todo if results[number] is None]
        if len(left) == len(todo):  # no progress and no suspect named: isolate one to move on
            first = left.pop(0)
            alone = run_isolated(work, items[first])
            results[first] = crashed(items[first]) if alone is None else alone
        todo = left
    return results  # type: ignore[return-value]


def _round(
    work: Callable[[Item], Result],
    items: Sequence[Item],
    todo: list[int],
    workers: int,
    results: list[Result | None],
) -> list[int]:
    """Run ``todo`` in one pool, filling ``results``; the items in progress when it broke, if it did."""
    # Shared memory, not a queue: nothing to drain while the pool runs, however many files.
    states = multiprocessing.RawArray(ctypes.c_byte, len(items))
    size = max(1, len(todo) // (workers * 8))
    chunks = [[(n, items[n]) for n in todo[i : i + size]] for i in range(0, len(todo), size)]
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(os.getpid(), states))
    broken = False
    try:
        for future in [pool.submit(_Chunk(work), chunk) for chunk in chunks]:
            try:
                for number, result in future.result():
                    results[number] = result
            except BrokenProcessPool:
                broken = True
    except BaseException:  # Ctrl-C or SIGTERM in the parent: stop the workers before going
        _terminate(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    if not broken:
        return []
    # Started and never finished: what the workers were on when the pool broke. (A finished file
    # whose result was lost with its chunk just goes into the next round.)
    return [number for number in todo if states[number] == _STARTED and results[number] is None]


def _terminate(pool: ProcessPoolExecutor) -> None:
    """SIGTERM every worker of ``pool``: each stops its file at once and writes nothing more."""
    for process in list((pool._processes or {}).values()):  # no public way to reach the workers
        try:
            process.terminate()
        except (OSError, AttributeError):
            pass
