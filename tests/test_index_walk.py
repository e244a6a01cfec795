"""The index's own walk sees exactly what libcst's visit sees, in the same order."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from fixer.registry import default_registry
from fixer.rule import dedent_example
from fixer.tf.index import _GROUPED_TABLES, _LIST_TABLES, ModuleIndex

CORPUS = Path(__file__).resolve().parent.parent / "corpus"

EVERY_CONSTRUCT = '''
"""Docstring."""
from __future__ import annotations
import os, sys as system
from . import sibling
from ..pkg import (a as b, c)
from m import *

@decorator(arg)
@other
async def f(x: int, /, y=1, *args, z: "T" = 2, **kw) -> list[int]:
    global g
    nonlocal_value = [i * 2 for i in range(3) if i if not i]
    d = {k: v for k, v in kw.items()}
    s = {*args, 1}
    t = (yield)
    u = yield from gen()
    await something()
    async with a as b, c:
        async for q in r:
            pass
    return x if y else z

class C(Base, metaclass=Meta, **extra):
    attr: int = 1
    def method(self, strategy):
        with strategy.scope(), open(p) as handle:
            v = lambda a, *b, c=1, **d: a + b
        while (n := len(v)) > 0:
            n -= 1
        else:
            del v[0], v[1:2:3]
        try:
            raise ValueError("x") from None
        except* (TypeError, KeyError) as e:
            pass
        finally:
            assert x, "msg"
        match command.split():
            case [action, obj] if obj:
                pass
            case {"k": v, **rest}:
                pass
            case Point(x=0, y=0) | None:
                pass
            case _:
                pass
        print(f"{x!r:>{width}} {y=}", rf"\\d{z}", "implicit" "concatenation", b"bytes")
        return not a and b or c is not d < e <= -f ** ~g @ h

type Alias = list[int]
def generic[T](x: T) -> T: return x
x = ...; y = 1j; z = 0x1F
'''


def _sources():
    yield pytest.param(EVERY_CONSTRUCT, id="every-construct")
    for script in sorted(CORPUS.rglob("*.py")):
        yield pytest.param(script.read_text(encoding="utf-8"), id=str(script.relative_to(CORPUS)))
    for rule in default_registry().rules:
        for number, example in enumerate(rule.examples, start=1):
            yield pytest.param(dedent_example(example.code), id=f"{rule.code}-{number}")


def _by_visit(module: cst.Module) -> ModuleIndex:
    index = ModuleIndex()
    module.visit(index)
    return index


@pytest.mark.parametrize("source", list(_sources()))
def test_walk_equals_libcst_visit(source):
    module = cst.parse_module(source)
    walked, visited = ModuleIndex.build(module), _by_visit(module)
    assert list(walked.order) == list(visited.order)
    assert list(walked.order.values()) == list(visited.order.values())
    assert walked.parent == visited.parent
    for table in _LIST_TABLES:
        assert [id(n) for n in getattr(walked, table)] == [id(n) for n in getattr(visited, table)], table
    for table in _GROUPED_TABLES:
        assert {k: [id(n) for n in v] for k, v in getattr(walked, table).items()} == {
            k: [id(n) for n in v] for k, v in getattr(visited, table).items()
        }, table
