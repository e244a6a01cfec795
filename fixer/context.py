"""What a rule works with: the parsed module, the TF model, and ways to report findings and build edits.

Rules import this module, never ``fixer.engine``: the engine imports the registry, which imports
every rule, so a rule importing the engine would close an import cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

import libcst as cst

from fixer.tf.fix_scope import OriginalFile
from fixer.tf.validity import fix_failure
from fixer.types import Applicability, Edit, Finding, Fix, Position

if TYPE_CHECKING:
    from collections.abc import Callable

    from libcst.metadata import CodeRange

    from fixer.config import Config
    from fixer.textmap import TextMap
    from fixer.tf.index import ModuleIndex
    from fixer.tf.model import TFModel


class ReportingRule(Protocol):
    """What a context needs of the rule that runs (fixer.rule.Rule has it): a structural type, so
    that the context does not import the rules' base class, which takes a context."""

    @property
    def code(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def fix_title(self) -> str | None: ...
    @property
    def applicability(self) -> Applicability: ...


@dataclass
class RuleContext:
    """What a rule sees: the parsed module, the TF model, and ways to report and build edits."""

    path: str
    text: str
    module: cst.Module
    index: ModuleIndex
    tf: TFModel
    config: Config
    rule: ReportingRule | None = None
    findings: list[Finding] = field(default_factory=list)
    # Set by the engine's check: whether it leaves out a finding of a code on a line (1-based),
    # suppressed or expected to fail. Such a finding is not recorded, nor its fix checked.
    left_out: Callable[[str, int], bool] | None = None

    @property
    def textmap(self) -> TextMap:
        """Line/offset conversions for this text."""
        return self.tf.textmap

    @cached_property
    def _original_file(self) -> OriginalFile:
        # What fix checks reuse of this run, so that they parse no more than the edited function.
        return OriginalFile(self.text, self.module, self.index, lambda: self.tf.positions, self.textmap)

    # Positions (the module's, kept by its TFModel) -------------------------------------------

    def range(self, node: cst.CSTNode) -> CodeRange:
        """libcst's range of ``node`` (1-based lines, 0-based columns)."""
        return self.tf.range(node)

    def span(self, node: cst.CSTNode) -> tuple[int, int]:
        """Character offsets of ``node`` in the text."""
        return self.tf.span(node)

    def source(self, node: cst.CSTNode) -> str:
        """The exact original text of ``node``."""
        return self.tf.source(node)

    def statement_block(self, statements: list[cst.BaseStatement]) -> tuple[int, int]:
        """Offsets of whole lines holding consecutive statements, with the comments just above."""
        first = statements[0]
        start_line = self.range(first).start.line
        for empty in reversed(list(getattr(first, "leading_lines", ()))):
            if empty.comment is None:
                break
            start_line -= 1
        end_line = self.range(statements[-1]).end.line
        return self.textmap.line_starts[start_line - 1], self.textmap.line_end(end_line)

    def indentation(self, node: cst.CSTNode) -> str:
        """The leading whitespace of the line ``node`` starts on."""
        line = self.textmap.line_text(self.range(node).start.line)
        return line[: len(line) - len(line.lstrip())]

    @property
    def indent_unit(self) -> str:
        """One level of indentation as this file writes it."""
        return self.module.default_indent

    @property
    def newline(self) -> str:
        """This file's line ending."""
        return self.module.default_newline

    # Edits ----------------------------------------------------------------------------------

    def replace(self, node: cst.CSTNode, content: str) -> Edit:
        """An edit replacing the text of ``node``."""
        start, end = self.span(node)
        return Edit(start, end, content)

    def insert_after(self, node: cst.CSTNode, content: str) -> Edit:
        """An edit inserting ``content`` right after ``node``."""
        _, end = self.span(node)
        return Edit(end, end, content)

    def import_module(self, module: str, alias: str) -> tuple[str, list[Edit]]:
        """The local spelling of ``module`` (e.g. ``tf``), adding ``import module as alias`` if needed."""
        local = self.tf.names.local_name_for(module)
        if local is not None:
            return local, []
        statement = f"import {module} as {alias}" if alias != module else f"import {module}"
        return alias, [Edit(*(2 * (self._import_offset(),)), statement + self.newline)]

    def last_leading_import(self) -> cst.BaseStatement | None:
        """The last statement of the module's leading run of docstring, `__future__` and other
        imports (None when the module starts otherwise): new imports and helpers go after it."""
        insert_after: cst.BaseStatement | None = None
        for position, statement in enumerate(self.module.body):
            if not isinstance(statement, cst.SimpleStatementLine):
                break
            small = statement.body[0] if statement.body else None
            is_docstring = (
                position == 0
                and isinstance(small, cst.Expr)
                and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))
            )
            if is_docstring or isinstance(small, (cst.Import, cst.ImportFrom)):
                insert_after = statement
                continue
            break
        return insert_after

    def _import_offset(self) -> int:
        """Where a new import goes: after the docstring, `__future__` imports and other imports."""
        body = self.module.body
        insert_after = self.last_leading_import()
        if insert_after is None:
            # Before the first statement itself, below any header comments (licence, cell marks).
            return 0 if not body else self.textmap.line_starts[self.range(body[0]).start.line - 1]
        return self.textmap.line_end(self.range(insert_after).end.line)

    # Reporting ------------------------------------------------------------------------------

    def shown(self, node: cst.CSTNode) -> bool:
        """Whether a finding of the running rule at ``node`` would reach the user: False when the
        engine leaves it out (a suppression comment, a test's expected-raise block), so that a
        rule can skip building a fix for it. Always True outside the engine's check."""
        rule = self.rule
        assert rule is not None, "shown() is only valid while a rule runs"
        return self.left_out is None or not self.left_out(rule.code, self.range(node).start.line)

    def report(
        self,
        node: cst.CSTNode,
        message: str | None = None,
        *,
        edits: list[Edit] | None = None,
        applicability: Applicability | None = None,
        fix_title: str | None = None,
    ) -> None:
        """Record a finding of the current rule at ``node``, optionally with a fix.

        ``applicability`` defaults to the rule's; pass a lower one when this instance is riskier.
        A finding without ``edits`` is display-only advice.
        """
        rule = self.rule
        assert rule is not None, "report() is only valid while a rule runs"
        code_range = self.range(node)
        start = Position(code_range.start.line, code_range.start.column + 1)
        end = Position(code_range.end.line, code_range.end.column + 1)
        if self.left_out is not None and self.left_out(rule.code, start.line):
            return  # the engine drops it: checking its fix would be wasted
        said = message or rule.message
        if any(f.code == rule.code and f.start == start and f.end == end and f.message == said for f in self.findings):
            return  # one finding per place and message: a rule reaching it twice (two calls, two paths) says it once
        level = applicability or rule.applicability
        fix: Fix | None = None
        if edits:
            reason = fix_failure(self.text, self.tf.names, edits, self.module, self._original_file)
            if reason is not None:
                # A fix that would break this program is not offered: the finding stays, as advice.
                edits = None
                message = f"{message or rule.message} (no automatic fix: {reason})"
        if edits:
            fix = Fix(
                title=fix_title or rule.fix_title or rule.message, edits=tuple(sorted(edits)), applicability=level
            )
        else:
            level = Applicability.DISPLAY_ONLY if level is not None else None
        self.findings.append(
            Finding(
                path=self.path,
                code=rule.code,
                name=rule.name,
                message=message or rule.message,
                start=start,
                end=end,
                fix=fix,
                applicability=level if fix else Applicability.DISPLAY_ONLY,
            )
        )
