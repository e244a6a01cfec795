"""The pipeline: parse once, build the TF model, run every selected rule, apply fixes.

``check_source`` and ``fix_source`` are the only entry points; the CLI, the LSP server, migrate
and validate all call them. Neither raises for a bad file: problems become TFD000 findings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from fixer.ast_facts import ModuleFacts
from fixer.checked_parse import parse_checked
from fixer.code_text import code_text
from fixer.codes import PARSE_ERROR_CODE
from fixer.config import Config
from fixer.context import RuleContext
from fixer.expected_failure import expected_failure_lines
from fixer.facts import facts_hold
from fixer.positions import StatementPositions
from fixer.prefilter import rule_may_fire
from fixer.registry import Registry, default_registry
from fixer.suppress import Suppressions
from fixer.syntax import parse_module
from fixer.textmap import apply_edits
from fixer.tf.index import ModuleIndex
from fixer.tf.model import TFModel
from fixer.types import Applicability, Edit, FileResult, Finding, Fix, Position

if TYPE_CHECKING:
    import ast

    from libcst.metadata import CodeRange

    from fixer.rule import Rule

PARSE_ERROR_NAME = "parse-error"
INTERNAL_ERROR_NAME = "internal-error"
MAX_FIX_PASSES = 10


def parse_error_finding(path: str, message: str, line: int = 1, column: int = 1) -> Finding:
    """A TFD000 finding for a file that could not be read or parsed."""
    return Finding(
        path=path,
        code=PARSE_ERROR_CODE,
        name=PARSE_ERROR_NAME,
        message=message,
        start=Position(line, column),
        end=Position(line, column),
    )


def internal_error_finding(path: str, code: str, exc: Exception) -> Finding:
    """The finding that stands for a rule that crashed on this file (its other findings are lost)."""
    return Finding(
        path=path,
        code=code,
        name=INTERNAL_ERROR_NAME,
        message=(
            # Python's recursion limit: the file is nested deeper than the rule's analysis can follow.
            f"{code} could not analyse this file: it is nested too deeply (RecursionError)"
            if isinstance(exc, RecursionError)
            else f"internal error in {code} ({type(exc).__name__}: {exc}); please report it"
        ),
        start=Position(1, 1),
        end=Position(1, 1),
    )


def could_not_parse(result: FileResult) -> bool:
    """True when the file could not be read or parsed, so no rule looked at it."""
    return any(f.code == PARSE_ERROR_CODE for f in result.findings)


# libcst's native parser nests one level per operand of an `and`/`or` chain, where CPython's
# AST keeps the chain flat: a long chain that CPython compiles overflows libcst's stack and kills
# the process (SIGSEGV, measured between 7,000 and 7,062 operands at a file's top level, fewer
# when nested). Chains are refused well below that, as a per-file error.
MAX_BOOL_OPERANDS = 3000


# libcst's tree costs about 3.7 KB and 70 microseconds per CPython syntax node (a one-line list
# of 66,684 nodes: 4.8 s and 245 MB to parse, 8.3 s and 410 MB to check), linear but heavy: a
# 5 MB one-line list (1.67 million nodes) ran past 200 s and 7 GB. Files above this are refused
# as a per-file error (about 18 s and 1 GB at the limit); the largest corpus file has 3,794 nodes.
MAX_SYNTAX_NODES = 250_000
# Even CPython's tree of the 5 MB line took 12 s and 1.7 GB to build: above this many characters
# a file is refused before any parse (the language server's document limit is the same).
MAX_ANALYSED_CHARS = 2_000_000


def may_be_too_complex(text: str) -> bool:
    """False when ``text`` cannot hold an over-long `and`/`or` chain (a count of the two words'
    letters, microseconds); True means :func:`complexity_error` must look at the tree."""
    return text.count("and") + text.count("or") > MAX_BOOL_OPERANDS


def may_be_too_large(text: str) -> bool:
    """False when ``text`` cannot hold more than :data:`MAX_SYNTAX_NODES` nodes (a node takes at
    least half a character: ``[1,1]`` is 5 characters and 5 nodes with its context)."""
    return len(text) > MAX_SYNTAX_NODES // 2


def complexity_error(facts: ModuleFacts) -> str | None:
    """Why a module is too complex for libcst to parse safely, or None; ``facts`` are what the
    walk of its CPython tree counted (fixer/ast_facts.py).

    Two measures: the number of syntax nodes (libcst's time and memory grow with it), and the
    number of `and`/`or` operands nested along any path of the tree, the depth libcst's parser
    will recurse to for them.
    """
    if facts.nodes > MAX_SYNTAX_NODES:
        return f"too large to analyse: {facts.nodes:,} syntax nodes (the limit is {MAX_SYNTAX_NODES:,})"
    operands = facts.bool_operands
    if operands <= MAX_BOOL_OPERANDS:
        return None
    return f"too complex to analyse: an `and`/`or` chain of {operands:,} operands (the limit is {MAX_BOOL_OPERANDS:,})"


@dataclass
class PythonTree:
    """CPython's tree of a file, and what one walk of it tells the stages before libcst
    (:class:`fixer.ast_facts.ModuleFacts`), taken when first asked and then shared."""

    tree: ast.Module

    @cached_property
    def facts(self) -> ModuleFacts:
        """The walk's record: the complexity guard, the docstrings and the rules' facts read it."""
        return ModuleFacts.of(self.tree)


def parse_python(path: str, text: str, tree: ast.Module | None = None) -> PythonTree | Finding:
    """CPython's tree of ``text`` (``tree`` when the caller already parsed it), or TFD000 when it
    does not parse or is too large or complex for libcst to parse safely."""
    # Python's own parser goes first: it is 15 times faster, places and words errors the way
    # users know, and refuses nesting deep enough to crash libcst's native parser.
    if len(text) > MAX_ANALYSED_CHARS:
        size = f"{len(text) / 1e6:.1f} million characters; the limit is {MAX_ANALYSED_CHARS / 1e6:.0f} million"
        return parse_error_finding(path, f"too large to analyse ({size})")
    try:
        python = PythonTree(tree if tree is not None else parse_module(text))
    except SyntaxError as precise:
        return parse_error_finding(path, f"syntax error: {precise.msg}", precise.lineno or 1, precise.offset or 1)
    except (RecursionError, MemoryError):
        return parse_error_finding(path, "file is too deeply nested to parse")
    except ValueError as exc:  # e.g. a NUL character
        return parse_error_finding(path, f"could not parse: {exc}")
    if may_be_too_large(text) or may_be_too_complex(text):
        reason = complexity_error(python.facts)
        if reason is not None:
            return parse_error_finding(path, reason)
    return python


def _parse(path: str, text: str, tree: ast.Module | None = None) -> tuple[cst.Module, str | None, ast.Module] | Finding:
    """The module, with the text it was parsed from when that is not ``text``, and CPython's
    tree of it (same lines, built here unless given); or TFD000."""
    if tree is None:
        python = parse_python(path, text)
        if isinstance(python, Finding):
            return python
        tree = python.tree
    try:
        return parse_checked(text), None, tree
    except cst.ParserSyntaxError as exc:
        expanded = expand_leading_tabs(text)
        if expanded != text:
            # CPython accepted it: tabs and spaces mixed in a way libcst's tokenizer refuses
            # (a tab counts to the next multiple of 8 for CPython). Read it with the tabs expanded.
            try:
                return parse_checked(expanded), expanded, tree
            except cst.ParserSyntaxError:
                pass
        reason = str(exc.message).splitlines()[0] if exc.message else "invalid syntax"
        return parse_error_finding(path, f"syntax error: {reason}", exc.raw_line, exc.raw_column + 1)
    except (RecursionError, MemoryError):
        return parse_error_finding(path, "file is too deeply nested to parse")
    except Exception as exc:  # libcst raises a few other types on exotic input
        return parse_error_finding(path, f"could not parse: {type(exc).__name__}: {exc}")


def expand_leading_tabs(text: str) -> str:
    """``text`` with the tabs in each line's indentation expanded as CPython counts them (to 8)."""
    lines = text.splitlines(keepends=True)
    out = []
    for line in lines:
        body = line.lstrip(" \t")
        indent = line[: len(line) - len(body)]
        out.append(indent.expandtabs(8) + body if "\t" in indent else line)
    return "".join(out)


@dataclass(frozen=True)
class ParsedSource:
    """A parsed file with its index, and its positions when the parser already knows them.

    ``text`` is set when the module was parsed from another text than the file's (tabs in the
    indentation expanded): positions refer to it, so fixes are not offered. ``tree`` is
    CPython's tree of the file when the parser built one (its statements' lines place
    libcst's, see fixer/positions.py). ``expected_failures``: the file's
    :func:`fixer.expected_failure.expected_failure_lines`, when the parser knows them.
    """

    module: cst.Module
    index: ModuleIndex
    positions: Mapping[cst.CSTNode, CodeRange] | None = None
    text: str | None = None
    tree: ast.Module | None = None
    expected_failures: frozenset[int] | None = None


Parser = Callable[[str, str], "ParsedSource | Finding"]


def parse_source(path: str, text: str, tree: ast.Module | None = None) -> ParsedSource | Finding:
    """Parse and index a whole file; a TFD000 finding when it does not parse.

    ``tree`` is CPython's tree of ``text`` when the caller already built it with :func:`parse_python`.
    """
    parsed = _parse(path, text, tree)
    if isinstance(parsed, Finding):
        return parsed
    module, parsed_text, tree = parsed
    try:
        return ParsedSource(module, ModuleIndex.build(module), text=parsed_text, tree=tree)
    except RecursionError:  # the index visit is recursive too
        return parse_error_finding(path, "file is too deeply nested to analyse")


def build_context(path: str, text: str, module: cst.Module, config: Config | None = None) -> RuleContext:
    """The context rules (and tools that reuse their analysis) work on, for a parsed module."""
    return _context(path, text, ParsedSource(module, ModuleIndex.build(module)), config or Config())


def _context(path: str, text: str, parsed: ParsedSource, config: Config) -> RuleContext:
    index = parsed.index
    positions = parsed.positions
    if positions is None:  # one statement at a time, as rules ask (fixer/positions.py)
        positions = StatementPositions(parsed.module, index.parent, index.order, text, parsed.tree)
    return RuleContext(
        path=path,
        text=text,
        module=parsed.module,
        index=parsed.index,
        tf=TFModel(
            parsed.module,
            parsed.index,
            path=path,
            text=text,
            target_version=config.target_version,
            positions=positions,
            python_tree=parsed.tree,
        ),
        config=config,
    )


def selected_rules(path: str, text: str, config: Config, registry: Registry) -> list[type[Rule]]:
    """Rules that are enabled for ``path`` and pass the pre-filter on ``text`` (fixer/prefilter.py)."""
    enabled = [rule for rule in registry.rules if config.is_enabled(rule.code, path)]
    kept = [rule for rule in enabled if rule_may_fire(rule, text)]
    helper = [rule for rule in enabled if rule not in kept and any(t in text for t in rule.importer_triggers)]
    if helper and _used_under_strategy(path):
        # A helper module: the strategy its mistakes need is in the script that imports it.
        kept = [rule for rule in enabled if rule in kept or rule in helper]
    return kept


def rules_in_code(
    rules: list[type[Rule]], text: str, tree: ast.Module, path: str = "", facts: ModuleFacts | None = None
) -> list[type[Rule]]:
    """The pre-filter's stages on CPython's tree: of ``rules`` (:func:`selected_rules` of
    ``text``), those whose triggers and needs also match outside comments and docstrings
    (fixer/code_text.py) and whose facts hold (fixer/facts.py). ``facts``: the walk of ``tree``
    (fixer/ast_facts.py) when already taken.

    A rule selected as a helper module's (its needs are in an importing script) stays, and so
    does a rule with ``importer_triggers`` whose facts fail in a module ``path`` that a script of
    the project uses under a strategy: its finding may come from there (TFD201's dataset returned
    to a script's `strategy.run` loop, in a module with a `session.run` of its own).
    """
    facts = facts or ModuleFacts.of(tree)
    code = code_text(text, facts.docstrings)
    kept = [rule for rule in rules if rule_may_fire(rule, code) or not rule_may_fire(rule, text)]
    if not any(rule.facts for rule in kept):
        return kept
    failing = [rule for rule in kept if not facts_hold(rule.facts, facts, path) and rule_may_fire(rule, text)]
    if any(rule.importer_triggers for rule in failing) and _used_under_strategy(path):
        failing = [rule for rule in failing if not rule.importer_triggers]
    return [rule for rule in kept if rule not in failing]


def _used_under_strategy(path: str) -> bool:
    # Imported here: the import graph is only built for a helper candidate under a project root.
    from fixer.tf.importers import used_under_strategy

    return used_under_strategy(path)


def check_source(
    path: str,
    text: str,
    config: Config | None = None,
    registry: Registry | None = None,
    *,
    prefilter: bool = True,
    parser: Parser = parse_source,
    tree: ast.Module | None = None,
) -> FileResult:
    """Every finding of the selected rules in one file, suppressions applied, in source order.

    With ``prefilter`` (the default) a rule runs only if its triggers and needs match the text
    (fixer/prefilter.py), and a file no rule can match is not parsed at all. ``parser`` may be an incremental
    one (:class:`fixer.incremental.DocumentParser`) that gives the same result faster. ``tree`` is
    CPython's tree of ``text`` when the caller has it (a notebook's combined module, fixer/notebook.py).
    """
    config = config or Config()
    registry = registry or default_registry()
    result = FileResult(path=path, source=text)
    suppressions = Suppressions(text)
    if suppressions.whole_file:
        return result
    rules = (
        selected_rules(path, text, config, registry)
        if prefilter
        else [rule for rule in registry.rules if config.is_enabled(rule.code, path)]
    )
    if not rules and not (prefilter and parser is parse_source and _parse_errors_asked(text, config, path, registry)):
        return result
    python: PythonTree | None = None
    if prefilter and parser is parse_source:
        # The whole-file parser: CPython's tree (which it builds first anyway) lets the
        # pre-filter look past comments and docstrings before libcst is paid for.
        read = parse_python(path, text, tree)
        if isinstance(read, Finding):
            return _unparsed(result, read)
        python = read
        rules = rules_in_code(rules, text, python.tree, path, python.facts)
        if not rules:
            return result
    parsed = parse_source(path, text, python.tree) if python is not None else parser(path, text)
    if isinstance(parsed, Finding):
        return _unparsed(result, parsed)
    ctx = _context(path, parsed.text or text, parsed, config)
    left_out = _LeftOut(suppressions, parsed, ctx.text, python.facts if python is not None else None)
    ctx.left_out = left_out.drops
    crashes: list[Finding] = []
    for rule_class in rules:
        rule = ctx.rule = rule_class()
        reported = len(ctx.findings)
        try:
            rule.check(ctx)
        except Exception as exc:  # a rule bug must cost one rule on one file, not the other rules
            del ctx.findings[reported:]  # what it reported before crashing may be half-built
            crashes.append(internal_error_finding(path, rule_class.code, exc))
    ctx.rule = None
    if parsed.text is not None:
        # Edits were computed on the tab-expanded text: offering them would shift code.
        ctx.findings = [replace(f, fix=None, applicability=Applicability.DISPLAY_ONLY) for f in ctx.findings]
    if crashes:
        result.error = "; ".join(crash.message for crash in crashes)
    kept = [f for f in ctx.findings if not left_out.drops(f.code, f.start.line)]
    result.findings = sorted(kept + crashes, key=lambda f: (f.start, f.code, f.end))
    result.dependencies = ctx.tf.dependencies()
    return result


class _LeftOut:
    """Which findings the engine leaves out of a check's result: those a suppression comment
    silences, and those inside code a test expects to raise, which holds its mistake on purpose
    (fixer/expected_failure.py). Rules ask it too (``RuleContext.shown``), so as not to build
    fixes nobody sees."""

    def __init__(self, suppressions: Suppressions, parsed: ParsedSource, text: str, facts: ModuleFacts | None) -> None:
        self._suppressions = suppressions
        self._parsed = parsed
        self._text = text  # the analysed text (tabs expanded when parsed.text is set)
        self._facts = facts

    def drops(self, code: str, line: int) -> bool:
        """True when a finding of ``code`` starting on ``line`` (1-based) is left out."""
        return self._suppressions.suppresses(code, line) or line in self._expected_to_fail

    @cached_property
    def _expected_to_fail(self) -> frozenset[int]:
        # Asked only once a finding is not suppressed: most parsed files have none.
        parsed = self._parsed
        if parsed.expected_failures is not None:
            return parsed.expected_failures
        if parsed.text is None:  # CPython's tree, when the parser kept it, is of this text
            return expected_failure_lines(self._text, parsed.tree, self._facts)
        return expected_failure_lines(self._text)


def _parse_errors_asked(text: str, config: Config, path: str, registry: Registry) -> bool:
    # `--select TFD000` selects no rule, yet lists what a full run cannot parse: every file some
    # rule may fire on is parsed (fixer/runner.py's pre-filter lets the same files through).
    return config.is_enabled(PARSE_ERROR_CODE, path) and any(rule_may_fire(rule, text) for rule in registry.rules)


def _unparsed(result: FileResult, error: Finding) -> FileResult:
    # Reported whatever --select says, as ruff does: a file that cannot be read was not checked.
    result.error = error.message
    result.findings.append(error)
    return result


def fix_source(
    path: str,
    text: str,
    config: Config | None = None,
    *,
    unsafe: bool = False,
    registry: Registry | None = None,
    admits: Callable[[str, Fix], bool] | None = None,
) -> FileResult:
    """Apply fixes until nothing changes (at most 10 passes), never producing unparsable text.

    Safe fixes always apply; unsafe ones only with ``unsafe``. Overlapping fixes wait for the
    next pass, which re-checks the new text. A pass whose result does not parse is reverted and
    reported in ``FileResult.reverted``. A rule that crashes costs only its own findings (an
    internal-error finding stands for them): the other rules' fixes still apply. ``admits(text,
    fix)``: whether the caller can write ``fix`` applied to ``text`` (a notebook cannot write one
    that moves a cell boundary); a fix it refuses is left out alone, the others still apply.
    """
    config = config or Config()
    threshold = Applicability.UNSAFE if unsafe or config.unsafe_fixes else Applicability.SAFE
    current = text
    applied: list[Finding] = []
    reverted: str | None = None
    result = check_source(path, current, config, registry)
    for _ in range(MAX_FIX_PASSES):
        if could_not_parse(result):
            break
        chosen = _non_overlapping(
            [
                f
                for f in result.findings
                if f.fix is not None and f.fix.applicability >= threshold and (admits is None or admits(current, f.fix))
            ]
        )
        if not chosen:
            break
        edits = _unique_edits(chosen)
        candidate = apply_edits(current, edits)
        if candidate == current:
            break
        # Without the pre-filter: a fix that removed every trigger text must still be parsed.
        after = check_source(path, candidate, config, registry, prefilter=False)
        if could_not_parse(after):  # a rule crashing on the new text does not make the fix wrong
            codes = ", ".join(sorted({f.code for f in chosen}))
            reverted = f"fixes {codes} produced invalid code ({after.error}); not applied"
            break
        applied.extend(chosen)
        current, result = candidate, after
    result.source = text
    result.applied = applied
    result.reverted = reverted
    result.fixed_text = current if current != text else None
    result.held_back_unsafe = sum(
        1
        for f in result.findings
        if f.fix is not None and f.fix.applicability is Applicability.UNSAFE and threshold is Applicability.SAFE
    )
    return result


def _non_overlapping(findings: list[Finding]) -> list[Finding]:
    """Greedily keep fixes (in source order) whose edits do not overlap an already kept fix."""
    kept: list[Finding] = []
    taken: list[Edit] = []
    for finding in sorted(findings, key=lambda f: (f.fix.span, f.code)):  # type: ignore[union-attr]
        edits = finding.fix.edits  # type: ignore[union-attr]
        if any(_overlaps(edit, other) for edit in edits for other in taken if edit != other):
            continue
        kept.append(finding)
        taken.extend(edits)
    return kept


def _overlaps(a: Edit, b: Edit) -> bool:
    if a.start == a.end == b.start == b.end:
        return a.content != b.content  # two insertions at one point: order would be ambiguous
    # An insertion touching a replaced range belongs either inside or outside it: let the next
    # pass, which sees the replaced text, decide.
    if a.start == a.end:
        return b.start <= a.start <= b.end
    if b.start == b.end:
        return a.start <= b.start <= a.end
    return a.start < b.end and b.start < a.end


def _unique_edits(findings: list[Finding]) -> list[Edit]:
    """All edits of the chosen fixes; identical edits (e.g. one added import) count once."""
    unique: dict[Edit, None] = {}
    for finding in findings:
        for edit in finding.fix.edits:  # type: ignore[union-attr]
            unique.setdefault(edit, None)
    return list(unique)
