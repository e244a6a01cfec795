"""libcst's parse without the node checks CPython's parse made: the same tree or the same error,
and libcst's validation back in place once the parse is over, however it ended."""

from __future__ import annotations

import inspect
from pathlib import Path

import libcst as cst
import pytest
from libcst._nodes.base import CSTNode

from fixer.checked_parse import SPACING_CHECKED, VALIDATING_HOOK, parse_checked
from fixer.engine import parse_source
from fixer.types import Finding

CORPUS = Path(__file__).resolve().parent.parent / "corpus"

# CPython accepts these; libcst's spacing validator raises TypeError on each (its issue #1061).
LAMBDA_AFTER_KEYWORD = ("x = not(lambda: 1)\n", "y = a or(lambda: 1)\n", "assert(lambda: 0)\n")

MANY_CONSTRUCTS = '''
"""Doc."""
import os.path as p, sys
from . import (a as b, c,)
x: int = 0x1F + 1_000 + 1.5e3 + 2j
s = b"x" rb'y', "a" 'b' f"{x!r:>{w}}" F'{y=}'
def f(a, /, b=1, *c, d, e=2, **g) -> None:
    global z
    try:
        yield from(c)
    except(ValueError, TypeError)as err:
        raise RuntimeError() from(err)
    finally:
        del a, b
    return [i for(i)in(c)if(i)] if not(d) else{k: v for k, v in g.items()}
async def h():
    async with(a)as b, c:
        await(b)
    async for(q)in(r):
        assert(q), "m"
with open(p) as fh:  # comment
    lam = lambda a, *b, c=1, **d: (a, b)
match x:
    case [1, *rest] if(rest):
        pass
    case {"k": v, **others}:
        pass
    case None | (True):
        pass
while(x):
    x -= 1
'''


def _hook_restored() -> None:
    assert CSTNode.__post_init__ is VALIDATING_HOOK
    with pytest.raises(cst.CSTValidationError):
        cst.Name("1x")  # built after the parse: validated as libcst always does


def test_hook_restored_after_a_parse() -> None:
    parse_checked("x = 1\n")
    _hook_restored()


def test_hook_restored_after_a_syntax_error() -> None:
    with pytest.raises(cst.ParserSyntaxError):
        parse_checked("def (:\n")
    _hook_restored()


@pytest.mark.parametrize("text", LAMBDA_AFTER_KEYWORD)
def test_spacing_validators_still_refuse_what_libcst_refuses(text: str) -> None:
    compile(text, "<test>", "exec")  # CPython accepts it
    with pytest.raises(TypeError):
        cst.parse_module(text)
    with pytest.raises(TypeError):
        parse_checked(text)
    _hook_restored()


def test_a_file_libcst_refuses_through_validation_stays_refused() -> None:
    found = parse_source("m.py", LAMBDA_AFTER_KEYWORD[0])
    assert isinstance(found, Finding) and found.code == "TFD000"
    _hook_restored()


def test_the_skipped_validators_do_not_run_during_the_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: cst.Name) -> None:
        raise AssertionError("validated during the parse")

    monkeypatch.setattr(cst.Name, "_validate", refuse)
    with pytest.raises(AssertionError):
        cst.parse_module("x = 1\n")
    assert parse_checked("x = 1\n").code == "x = 1\n"


def test_same_tree_as_libcsts_parse() -> None:
    texts = [MANY_CONSTRUCTS, *(path.read_text() for path in sorted(CORPUS.rglob("*.py")))]
    compile(MANY_CONSTRUCTS, "<test>", "exec")
    for text in texts:
        fast = parse_checked(text)
        assert fast.deep_equals(cst.parse_module(text))
        assert fast.code == text
    _hook_restored()


def test_spacing_checked_is_every_validator_that_reads_a_spacing_helper() -> None:
    """The kept list follows libcst: each concrete node class whose validator (its own or
    inherited) asks a `_safe_to_...` helper whether two tokens may touch."""

    def reads_spacing_helper(cls: type) -> bool:
        validators = (klass.__dict__["_validate"] for klass in cls.__mro__ if "_validate" in klass.__dict__)
        return any("._safe_to_" in inspect.getsource(validator) for validator in validators)

    exported = (getattr(cst, name) for name in dir(cst))
    nodes = {cls for cls in exported if isinstance(cls, type) and issubclass(cls, CSTNode)}
    concrete = {cls for cls in nodes if not inspect.isabstract(cls)}
    assert {cls for cls in concrete if reads_spacing_helper(cls)} == set(SPACING_CHECKED)
