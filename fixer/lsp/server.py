"""The distfix language server (pygls): diagnostics, quick fixes, fix-all, ignore, hover.

It calls the engine for everything; it has no detection logic of its own.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from fixer import __version__
from fixer.config import Config, ConfigError, load_config
from fixer.engine import check_source, fix_source
from fixer.explain import render_explanation
from fixer.lsp.convert import SOURCE, character_column, diagnostic, range_from_json
from fixer.registry import default_registry
from fixer.textmap import TextMap

DEBOUNCE_SECONDS = 0.05
FIX_ALL_KIND = "source.fixAll.distfix"
_IGNORE = re.compile(r"#\s*distfix:\s*ignore\[(?P<codes>[^\]]*)\]")


class DistfixServer(LanguageServer):
    """A pygls server that keeps a configuration per folder and a debounce timer per document."""

    def __init__(self) -> None:
        super().__init__("distfix", __version__)
        self.configs: dict[Path, Config] = {}
        self.pending: dict[str, asyncio.TimerHandle] = {}

    def config_for(self, path: Path) -> Config:
        folder = path.parent
        if folder not in self.configs:
            try:
                self.configs[folder] = load_config(folder)
            except ConfigError as exc:
                self.window_log_message(types.LogMessageParams(types.MessageType.Warning, str(exc)))
                self.configs[folder] = Config()
        return self.configs[folder]


server = DistfixServer()


def _path(uri: str) -> Path:
    parsed = urlparse(uri)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else Path(uri)


def _analyse(uri: str) -> tuple[str, list]:
    document = server.workspace.get_text_document(uri)
    path = _path(uri)
    result = check_source(str(path), document.source, server.config_for(path))
    return document.source, result.findings


def publish(uri: str) -> None:
    """Check the document and publish its diagnostics."""
    if not uri.endswith(".py") and not uri.endswith(".pyi"):
        return
    text, findings = _analyse(uri)
    textmap = TextMap(text)
    document = server.workspace.get_text_document(uri)
    server.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, version=document.version, diagnostics=[diagnostic(f, textmap) for f in findings])
    )


def schedule(uri: str) -> None:
    """Publish after a short quiet period, so a burst of keystrokes costs one analysis."""
    loop = asyncio.get_running_loop()
    timer = server.pending.pop(uri, None)
    if timer is not None:
        timer.cancel()
    server.pending[uri] = loop.call_later(DEBOUNCE_SECONDS, publish, uri)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: DistfixServer, params: types.DidOpenTextDocumentParams) -> None:
    publish(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: DistfixServer, params: types.DidChangeTextDocumentParams) -> None:
    schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: DistfixServer, params: types.DidSaveTextDocumentParams) -> None:
    if params.text_document.uri.endswith("pyproject.toml"):
        _reload()
    else:
        publish(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: DistfixServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: DistfixServer, params: types.DidChangeWatchedFilesParams) -> None:
    if any(change.uri.endswith("pyproject.toml") for change in params.changes):
        _reload()


def _reload() -> None:
    """Forget every configuration and check the open documents again."""
    server.configs.clear()
    for uri in list(server.workspace.text_documents):
        publish(uri)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND]),
)
def code_action(ls: DistfixServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    document = ls.workspace.get_text_document(uri)
    wanted = params.context.only
    actions: list[types.CodeAction] = []
    if not wanted or types.CodeActionKind.QuickFix in wanted:
        for diag in params.context.diagnostics:
            if diag.source != SOURCE:
                continue
            actions.extend(_quick_fixes(uri, document.lines, diag))
    if not wanted or FIX_ALL_KIND in wanted or types.CodeActionKind.SourceFixAll in wanted:
        fix_all = _fix_all(uri, document.source)
        if fix_all is not None:
            actions.append(fix_all)
    return actions


def _quick_fixes(uri: str, lines: list[str], diag: types.Diagnostic) -> list[types.CodeAction]:
    actions = []
    data = diag.data if isinstance(diag.data, dict) else None
    if data and data.get("edits"):
        unsafe = data.get("applicability") == "unsafe"
        edits = [types.TextEdit(range=range_from_json(e["range"]), new_text=e["newText"]) for e in data["edits"]]
        actions.append(
            types.CodeAction(
                title=f"{data['title']} ({diag.code})" + (" (unsafe)" if unsafe else ""),
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                is_preferred=not unsafe,
                edit=types.WorkspaceEdit(changes={uri: edits}),
            )
        )
    actions.append(_ignore_action(uri, lines, diag))
    return actions


def _ignore_action(uri: str, lines: list[str], diag: types.Diagnostic) -> types.CodeAction:
    line_number = diag.range.start.line
    line = lines[line_number].rstrip("\r\n") if line_number < len(lines) else ""
    existing = _IGNORE.search(line)
    if existing:
        codes = [c.strip() for c in existing.group("codes").split(",") if c.strip()]
        new_line = line[: existing.start()] + f"# distfix: ignore[{', '.join([*codes, str(diag.code)])}]" + line[existing.end():]
    else:
        new_line = f"{line}  # distfix: ignore[{diag.code}]"
    end = types.Position(line_number, len(line.encode("utf-16-le")) // 2)
    edit = types.TextEdit(range=types.Range(types.Position(line_number, 0), end), new_text=new_line)
    return types.CodeAction(
        title=f"Ignore {diag.code} on this line",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diag],
        edit=types.WorkspaceEdit(changes={uri: [edit]}),
    )


def _fix_all(uri: str, text: str) -> types.CodeAction | None:
    path = _path(uri)
    result = fix_source(str(path), text, server.config_for(path), unsafe=False)
    if result.fixed_text is None:
        return None
    textmap = TextMap(text)
    last = len(textmap.line_starts)
    end = types.Position(last - 1, len(textmap.line_text(last).encode("utf-16-le")) // 2)
    if text.endswith(("\n", "\r")):
        end = types.Position(last - 1, 0)
    edit = types.TextEdit(range=types.Range(types.Position(0, 0), end), new_text=result.fixed_text)
    return types.CodeAction(
        title="distfix: apply all safe fixes",
        kind=FIX_ALL_KIND,
        edit=types.WorkspaceEdit(changes={uri: [edit]}),
    )


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: DistfixServer, params: types.HoverParams) -> types.Hover | None:
    text, findings = _analyse(params.text_document.uri)
    textmap = TextMap(text)
    line = params.position.line + 1
    column = character_column(textmap.line_text(line), params.position.character) if line <= len(textmap.line_starts) else 0
    for finding in findings:
        inside = (finding.start.line, finding.start.column) <= (line, column) <= (finding.end.line, finding.end.column)
        rule = default_registry().get(finding.code)
        if inside and rule is not None:
            return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=render_explanation(rule)))
    return None
