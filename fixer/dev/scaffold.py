"""``distfix dev new-rule FAMILY NAME``: a new rule module, its examples module and a corpus case.

The scaffold is a working rule (it reports calls of one TensorFlow function, named after the
rule) so that the registry loads it and its example and corpus tests pass from the start; the
developer then replaces the check, the documentation and the examples.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fixer.dev.generate import ROOT

if TYPE_CHECKING:
    from pathlib import Path

_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
_CODE = re.compile(r'^\s*code = "(TFD\d{3})"', re.M)


class ScaffoldError(Exception):
    """The family or name cannot be scaffolded; the message says why."""


@dataclass(frozen=True)
class NewRule:
    """What ``new-rule`` decided: the rule's code, name, family and the files to write."""

    code: str
    name: str
    family: str
    files: dict[Path, str]

    @property
    def module(self) -> str:
        """The rule module's name (``my_rule`` for ``my-rule``)."""
        return self.name.replace("-", "_")


def families(root: Path = ROOT) -> list[str]:
    """The rule families: the packages of ``codemods/`` that hold rules."""
    return sorted(p.parent.name for p in (root / "codemods").glob("*/__init__.py") if _codes_in(p.parent))


def _codes_in(package: Path) -> list[str]:
    return sorted(match for path in package.glob("*.py") for match in _CODE.findall(path.read_text(encoding="utf-8")))


def plan(family: str, name: str, root: Path = ROOT) -> NewRule:
    """The files of a new rule ``name`` in ``family``, with the next free code of that family."""
    known = families(root)
    if family not in known:
        raise ScaffoldError(f"unknown family {family!r}; the families are: {', '.join(known)}")
    if not _NAME.match(name):
        raise ScaffoldError(f"rule names are lowercase words joined by '-' (like `several-strategies`), not {name!r}")
    package = root / "codemods" / family
    taken = {path.stem for path in package.glob("*.py")}
    names = {
        m
        for path in package.parent.rglob("*.py")
        for m in re.findall(r'^\s*name = "([a-z0-9-]+)"', path.read_text(encoding="utf-8"), re.M)
    }
    module = name.replace("-", "_")
    if module in taken or name in names:
        raise ScaffoldError(f"a rule named {name!r} already exists")
    codes = _codes_in(package)
    code = f"TFD{int(codes[-1][3:]) + 1:03d}"
    if code[3] != codes[0][3]:
        raise ScaffoldError(f"family {family!r} has no free code after {codes[-1]}")
    rule = NewRule(code, name, family, {})
    case = root / "corpus" / family / f"{code.lower()}_{module}"
    files = {
        package / f"{module}.py": _rule_module(rule),
        package / f"{module}_examples.py": _examples_module(rule),
        case / "before.py": _BEFORE.format(function=module),
        case / "after.py": _BEFORE.format(function=module),
        case / "clean.py": _CLEAN,
        case / "case.toml": f'codes = ["{code}"]\nafter_codes = ["{code}"]\n',
    }
    return NewRule(code, name, family, files)


def write(rule: NewRule) -> list[Path]:
    """Write the files of ``rule``, refusing to overwrite any; the files written."""
    existing = [path for path in rule.files if path.exists()]
    if existing:
        raise ScaffoldError(f"{existing[0]} already exists")
    for path, text in rule.files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(rule.files)


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-"))


def _rule_module(rule: NewRule) -> str:
    return _RULE.format(code=rule.code, name=rule.name, cls=_class_name(rule.name), function=rule.module)


def _examples_module(rule: NewRule) -> str:
    invalid = "".join(
        _INVALID.format(code=body.format(function=rule.module), note=note) for body, note in _INVALID_CASES
    )
    valid = "".join(_VALID.format(code=body.format(function=rule.module), note=note) for body, note in _VALID_CASES)
    return _EXAMPLES.format(code=rule.code, name=rule.name, examples=invalid + valid)


_RULE = '''"""{code}: calls of `tf.distribute.experimental.{function}` (scaffolded by `distfix dev new-rule`)."""

from __future__ import annotations

import libcst as cst

from fixer.context import RuleContext
from fixer.rule import Rule
from fixer.types import Applicability

# The call this rule reports, as fixer.tf.names spells it.
_CALLEE = "tensorflow.distribute.experimental.{function}"


class {cls}(Rule):
    """
    ## What it does
    Reports every call of `tf.distribute.experimental.{function}`.

    ## Why is this bad in distributed training?
    Say what goes wrong, with the TensorFlow version and the error it raises, backed by a probe
    in `benchmarks/`.

    ## Fix safety
    Display-only: the rule offers no fix yet.

    ## Known limits
    None known yet.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/distribute
    """

    code = "{code}"
    name = "{name}"
    message = "call of `tf.distribute.experimental.{function}`"
    applicability = Applicability.DISPLAY_ONLY
    triggers = ("{function}",)

    def check(self, ctx: RuleContext) -> None:
        for call in ctx.index.calls:
            if ctx.tf.names.callee(call) == _CALLEE:
                ctx.report(call)
'''

_EXAMPLES = '''"""Examples of {code} ({name}).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = ({examples}
)
'''

_INVALID = '''
    Invalid(
        """
{code}        """,
        note="{note}",
    ),'''
_VALID = '''
    Valid(
        """
{code}        """,
        note="{note}",
    ),'''


def _indent(body: str) -> str:
    return "".join(f"        {line}\n" for line in body.splitlines())


_INVALID_CASES = [
    (_indent(body), note)
    for body, note in (
        ("import tensorflow as tf\ntf.distribute.experimental.{function}()", "module call"),
        ("import tensorflow as tf\nvalue = tf.distribute.experimental.{function}(1, 2)", "with arguments"),
        ("import tensorflow\ntensorflow.distribute.experimental.{function}()", "full module name"),
        ("from tensorflow.distribute import experimental\nexperimental.{function}()", "from import"),
        ("from tensorflow.distribute.experimental import {function}\n{function}()", "imported name"),
        ("from tensorflow.distribute.experimental import {function} as f\nf()", "imported alias"),
        ("import tensorflow as tf\ndef step():\n    return tf.distribute.experimental.{function}()", "in a function"),
        (
            "import tensorflow as tf\nclass Trainer:\n    def run(self):\n"
            "        tf.distribute.experimental.{function}()",
            "in a method",
        ),
    )
]
_VALID_CASES = [
    (_indent(body), note)
    for body, note in (
        ("import tensorflow as tf\ntf.distribute.get_strategy()", "another function"),
        ("def {function}():\n    pass\n{function}()", "a local function of the same name"),
        ("import tensorflow as tf\nf = tf.distribute.experimental.{function}", "named, not called"),
        ("# tf.distribute.experimental.{function}()\nx = 1", "in a comment"),
        ('text = "tf.distribute.experimental.{function}()"', "in a string"),
        ("import other\nother.distribute.experimental.{function}()", "another library"),
        ("import tensorflow as tf\ntf.experimental.{function}()", "another module of tensorflow"),
        ("class Runner:\n    def {function}(self):\n        pass\nRunner().{function}()", "a method of the same name"),
    )
]

_BEFORE = """import tensorflow as tf

tf.distribute.experimental.{function}()
"""

_CLEAN = """import tensorflow as tf

strategy = tf.distribute.get_strategy()
"""
