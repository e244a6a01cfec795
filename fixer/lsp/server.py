"""The distfix language server (pygls): diagnostics, quick fixes, fix-all, ignore, hover.

It calls the engine for everything; it has no detection logic of its own. ``.py`` documents are
handled here; notebook documents (``notebookDocument/*``) in :mod:`fixer.lsp.notebooks`.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
import threading
from typing import TYPE_CHECKING, BinaryIO

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified as ContentModified
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from fixer import __version__
from fixer.codes import PARSE_ERROR_CODE
from fixer.config import Config, ConfigError, load_config
from fixer.engine import check_source, fix_source, parse_error_finding
from fixer.explain import render_explanation
from fixer.incremental import DocumentParser
from fixer.lsp import notebooks
from fixer.lsp.collector import collection_deferred, settle
from fixer.lsp.convert import SOURCE, character_column, diagnostic, range_from_json, uri_path
from fixer.lsp.framing import BoundedStdinReader, read_messages
from fixer.registry import default_registry
from fixer.textmap import TextMap
from fixer.tf.importers import project_roots

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from fixer.types import Finding

logger = logging.getLogger(__name__)
DEBOUNCE_SECONDS = 0.025  # coalesces an editor's burst of changes (paste, multi-cursor, format)
# Above this a document gets one diagnostic instead of an analysis (the CLI's limit, engine's
# MAX_ANALYSED_CHARS, is the same): a 19 MB document took 63 s and 2.4 GB; no training script
# is near 2 million characters.
MAX_DOCUMENT_CHARS = 2_000_000
FIX_ALL_KIND = "source.fixAll.distfix"
FIX_ALL_TITLE = "distfix: apply all safe fixes"
_IGNORE = re.compile(r"#\s*distfix:\s*ignore\[(?P<codes>[^\]]*)\]")


class DistfixServer(LanguageServer):
    """A pygls server that keeps a configuration per folder and a debounce timer per document."""

    def __init__(self) -> None:
        super().__init__("distfix", __version__, notebook_document_sync=notebooks.NOTEBOOK_SYNC)
        self.configs: dict[Path, Config] = {}
        self.target_version: tuple[int, int] | None = None  # `distfix lsp --target-version`
        self.pending: dict[str, asyncio.TimerHandle] = {}
        # The findings last published per document, with the version they were computed for,
        # so hover reuses them instead of analysing again.
        self.published: dict[str, tuple[int | None, list[Finding]]] = {}
        # One incremental parser per open document: an edit re-parses only what it changed.
        self.parsers: dict[str, DocumentParser] = {}
        # The other files each document's findings were computed from (the project modules it
        # imports, the scripts that import it): saving one of them checks the document again.
        self.depends_on: dict[str, frozenset[str]] = {}
        self.notebooks = notebooks.OpenNotebooks(self.config_for, self.text_document_publish_diagnostics)

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over stdio with :func:`fixer.lsp.framing.read_messages`, which answers every
        request and recovers from framing errors (pygls's loop does neither)."""
        stop = self._stop_event = threading.Event()
        reader = BoundedStdinReader(stdin or sys.stdin.buffer, self.thread_pool)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(read_messages(stop, reader, self.protocol, logger, self.report_server_error))
        except BrokenPipeError:
            logger.error("The connection to the client is lost; shutting down.")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]  # pygls's shutdown has no annotations

    def start_tcp(self, host: str, port: int) -> None:
        """Serve one client at a time on a socket, read by the same loop as stdio."""
        stop = self._stop_event = threading.Event()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)
            await read_messages(stop, reader, self.protocol, logger, self.report_server_error)
            self.shutdown()  # type: ignore[no-untyped-call]  # pygls's shutdown has no annotations

        async def serve() -> None:
            self._server = await asyncio.start_server(connection, host, port)
            async with self._server:
                await self._server.serve_forever()

        try:
            asyncio.run(serve())
        except (asyncio.CancelledError, KeyboardInterrupt):
            pass

    def config_for(self, path: Path) -> Config:
        """The configuration for a file, from the nearest pyproject.toml (read once per folder)."""
        folder = path.parent
        if folder not in self.configs:
            try:
                self.configs[folder] = load_config(folder)
            except ConfigError as exc:
                # Shown, not only logged: a log is where a Neovim or Emacs user never looks. Once
                # per folder, until the configuration changes (_reload forgets it).
                self.window_log_message(types.LogMessageParams(types.MessageType.Warning, str(exc)))
                self.window_show_message(
                    types.ShowMessageParams(
                        types.MessageType.Error, f"distfix: {exc} (checking with the default settings)"
                    )
                )
                self.configs[folder] = Config()
        return self.configs[folder].with_overrides(target_version=self.target_version)


server = DistfixServer()


def _analyse(uri: str) -> tuple[str, list[Finding]]:
    """The document's text and findings, reusing the published ones while the version matches."""
    if notebooks.notebook_of(server.workspace, uri) is not None:
        return server.notebooks.cell_findings(server.workspace, uri)
    document = server.workspace.get_text_document(uri)
    cached = server.published.get(uri)
    if cached is not None and document.version is not None and cached[0] == document.version:
        return document.source, cached[1]
    path = uri_path(uri)
    if len(document.source) > MAX_DOCUMENT_CHARS:
        # Analysing it would hold the editor's answers for a minute and gigabytes of memory.
        server.parsers.pop(uri, None)
        size = (
            f"{len(document.source) / 1e6:.1f} million characters; the limit is {MAX_DOCUMENT_CHARS / 1e6:.0f} million"
        )
        return document.source, [parse_error_finding(str(path), f"document too large to analyse ({size})")]
    parser = server.parsers.setdefault(uri, DocumentParser())
    with project_roots(_workspace_roots(), live=True):
        result = check_source(str(path), document.source, server.config_for(path), parser=parser.parse)
    server.depends_on[uri] = frozenset(dependency for dependency, _ in result.dependencies)
    return document.source, result.findings


def _workspace_roots() -> tuple[str, ...]:
    """The workspace folders: a helper module open in the editor is also checked through the
    scripts of its folder that import it (fixer/tf/importers.py)."""
    folders = [str(uri_path(folder.uri)) for folder in server.workspace.folders.values()]
    root = server.workspace.root_path
    return tuple(folders or ([root] if root else []))


def _is_python_document(uri: str) -> bool:
    """Whether a text document is checked: `.py` / `.pyi` files, and documents the client opened as
    Python whatever their name. jupyterlab-lsp sends a notebook as one Python document named
    `NAME.ipynb` (its code cells joined, magics turned into `get_ipython()` calls). Notebook cells
    are checked with their notebook (publish_notebook), not one by one."""
    if uri.endswith((".py", ".pyi")):
        return True
    document = server.workspace.text_documents.get(uri)
    return (
        document is not None
        and document.language_id == "python"
        and notebooks.notebook_of(server.workspace, uri) is None
    )


def publish(uri: str) -> None:
    """Check the document and publish its diagnostics."""
    if not _is_python_document(uri):
        return
    server.published.pop(uri, None)
    with collection_deferred():
        text, findings = _analyse(uri)
        textmap = TextMap(text)
        document = server.workspace.get_text_document(uri)
        server.published[uri] = (document.version, findings)
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri, version=document.version, diagnostics=[diagnostic(f, textmap) for f in findings]
            )
        )


def publish_notebook(uri: str) -> None:
    """Check a notebook's code cells together and publish each cell's diagnostics."""
    server.pending.pop(uri, None)
    with collection_deferred():
        server.notebooks.publish(server.workspace, uri)


def schedule(uri: str, action: Callable[[str], None] = publish) -> None:
    """Run ``action(uri)`` after a short quiet period, so a burst of keystrokes costs one analysis."""
    loop = asyncio.get_running_loop()
    timer = server.pending.pop(uri, None)
    if timer is not None:
        timer.cancel()
    server.pending[uri] = loop.call_later(DEBOUNCE_SECONDS, action, uri)


@server.feature(types.INITIALIZED)
def initialized(ls: DistfixServer, params: types.InitializedParams) -> None:
    """Ask the client to report changes of pyproject.toml, where the configuration comes from, and
    of the files the project target is read from (requirements, Dockerfiles, ...)."""
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace else None
    if watched is None or not watched.dynamic_registration:
        return
    from fixer.target.model import WATCH_GLOBS

    watchers = [types.FileSystemWatcher(glob_pattern=glob) for glob in ("**/pyproject.toml", *WATCH_GLOBS)]
    ls.client_register_capability(
        types.RegistrationParams(
            [
                types.Registration(
                    id="distfix-pyproject",
                    method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
                )
            ]
        )
    )


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: DistfixServer, params: types.DidOpenTextDocumentParams) -> None:
    publish(params.text_document.uri)
    settle()  # its trees are kept for the next edit: out of the collector's way (fixer/lsp/collector.py)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: DistfixServer, params: types.DidChangeTextDocumentParams) -> None:
    schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: DistfixServer, params: types.DidSaveTextDocumentParams) -> None:
    if _changes_results(params.text_document.uri):
        _reload()
        return
    publish(params.text_document.uri)
    saved = str(uri_path(params.text_document.uri))
    for uri, dependencies in list(server.depends_on.items()):
        if saved in dependencies and uri != params.text_document.uri and uri in server.workspace.text_documents:
            publish(uri)  # a module it imports, or a script importing it, changed on disk


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: DistfixServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.published.pop(params.text_document.uri, None)
    ls.parsers.pop(params.text_document.uri, None)
    ls.depends_on.pop(params.text_document.uri, None)
    timer = ls.pending.pop(params.text_document.uri, None)
    if timer is not None:  # a closed document is not checked any more
        timer.cancel()
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))
    settle()  # what the document kept may be garbage now


@server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
def notebook_did_open(ls: DistfixServer, params: types.DidOpenNotebookDocumentParams) -> None:
    publish_notebook(params.notebook_document.uri)
    settle()


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
async def notebook_did_change(ls: DistfixServer, params: types.DidChangeNotebookDocumentParams) -> None:
    """Cell text edits, cells added, removed or moved, metadata: check the notebook again."""
    schedule(params.notebook_document.uri, publish_notebook)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
def notebook_did_save(ls: DistfixServer, params: types.DidSaveNotebookDocumentParams) -> None:
    timer = ls.pending.pop(params.notebook_document.uri, None)
    if timer is not None:
        timer.cancel()
    publish_notebook(params.notebook_document.uri)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
def notebook_did_close(ls: DistfixServer, params: types.DidCloseNotebookDocumentParams) -> None:
    timer = ls.pending.pop(params.notebook_document.uri, None)
    if timer is not None:  # a closed notebook is not checked any more
        timer.cancel()
    ls.notebooks.close(params.notebook_document.uri, [cell.uri for cell in params.cell_text_documents])
    settle()


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: DistfixServer, params: types.DidChangeWatchedFilesParams) -> None:
    if any(_changes_results(change.uri) for change in params.changes):
        _reload()


def _changes_results(uri: str) -> bool:
    """The configuration (pyproject.toml) or a file of the project target changed."""
    from fixer.target.model import is_target_file

    return uri.endswith("pyproject.toml") or is_target_file(str(uri_path(uri)))


def _reload() -> None:
    """Forget every configuration and check the open documents again."""
    server.configs.clear()
    server.published.clear()
    server.notebooks.forget_findings()
    for uri in list(server.workspace.text_documents):
        publish(uri)
    for notebook in list(server.workspace.notebook_documents.values()):
        publish_notebook(notebook.uri)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=True),
)
def code_action(ls: DistfixServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    document = ls.workspace.get_text_document(uri)
    wanted = params.context.only
    actions: list[types.CodeAction] = []
    if _requested(types.CodeActionKind.QuickFix, wanted):
        for diag in params.context.diagnostics:
            if diag.source != SOURCE:
                continue
            actions.extend(_quick_fixes(uri, document.lines, diag))
    if not _requested(FIX_ALL_KIND, wanted):
        return actions
    if not wanted and _can_resolve_edits(ls):
        # Light-bulb requests come on every cursor move: offer fix-all, compute it on resolve.
        actions.append(
            types.CodeAction(title=FIX_ALL_TITLE, kind=FIX_ALL_KIND, data={"uri": uri, "version": _version(uri)})
        )
    else:
        fix_all = _fix_all(uri, document.source)
        if fix_all is not None:
            actions.append(fix_all)
    return actions


def _requested(kind: str, only: Sequence[str] | None) -> bool:
    """Whether actions of ``kind`` are asked for. LSP kinds are hierarchical: ``source`` asks for
    ``source.fixAll.distfix`` too, and ``quickfix`` for every quick fix; no ``only`` asks for all."""
    return not only or any(kind == prefix or kind.startswith(prefix + ".") for prefix in only)


def _version(uri: str) -> int | None:
    """The version a code action depends on: the notebook's for a cell (fix-all spans its cells)."""
    notebook = notebooks.notebook_of(server.workspace, uri)
    return notebook.version if notebook is not None else server.workspace.get_text_document(uri).version


def _can_resolve_edits(ls: DistfixServer) -> bool:
    """True when the client fills in a code action's edit through ``codeAction/resolve``."""
    capabilities = ls.client_capabilities.text_document
    code_action = capabilities.code_action if capabilities else None
    support = code_action.resolve_support if code_action else None
    return support is not None and "edit" in support.properties


@server.feature(types.CODE_ACTION_RESOLVE)
def resolve_code_action(ls: DistfixServer, action: types.CodeAction) -> types.CodeAction:
    """Fill in the fix-all edit for the document the action was offered for."""
    data = action.data if isinstance(action.data, dict) else {}
    uri = data.get("uri")
    if action.kind != FIX_ALL_KIND or not isinstance(uri, str):
        return action
    if data.get("version") != _version(uri):
        raise ContentModified("the document changed since the action was offered")
    fix_all = _fix_all(uri, ls.workspace.get_text_document(uri).source)
    action.edit = fix_all.edit if fix_all is not None else types.WorkspaceEdit(changes={uri: []})
    return action


def _quick_fixes(uri: str, lines: Sequence[str], diag: types.Diagnostic) -> list[types.CodeAction]:
    actions = []
    data = diag.data if isinstance(diag.data, dict) else None
    if data and data.get("edits"):
        unsafe = data.get("applicability") == "unsafe"
        edits: dict[str, list[types.TextEdit]] = {}
        for e in data["edits"]:  # an edit on another notebook cell than the diagnostic's names its uri
            edits.setdefault(e.get("uri", uri), []).append(types.TextEdit(range_from_json(e["range"]), e["newText"]))
        actions.append(
            types.CodeAction(
                title=f"{data['title']} ({diag.code})" + (" (unsafe)" if unsafe else ""),
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                is_preferred=not unsafe,
                edit=types.WorkspaceEdit(changes=edits),
            )
        )
    if diag.code != PARSE_ERROR_CODE:  # a comment cannot silence a syntax error
        actions.append(_ignore_action(uri, lines, diag))
    return actions


def _ignore_action(uri: str, lines: Sequence[str], diag: types.Diagnostic) -> types.CodeAction:
    line_number = diag.range.start.line
    line = lines[line_number].rstrip("\r\n") if line_number < len(lines) else ""
    existing = _IGNORE.search(line)
    if existing:
        codes = [c.strip() for c in existing.group("codes").split(",") if c.strip()]
        new_line = (
            line[: existing.start()]
            + f"# distfix: ignore[{', '.join([*codes, str(diag.code)])}]"
            + line[existing.end() :]
        )
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
    """Safe fixes for the document; for a notebook cell, for all cells of its notebook."""
    if notebooks.notebook_of(server.workspace, uri) is not None:
        cells_edit = server.notebooks.fix_all_edit(server.workspace, uri)
        if cells_edit is None:
            return None
        return types.CodeAction(title=FIX_ALL_TITLE, kind=FIX_ALL_KIND, edit=cells_edit)
    if len(text) > MAX_DOCUMENT_CHARS:
        return None  # not analysed (see _analyse)
    path = uri_path(uri)
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
        title=FIX_ALL_TITLE,
        kind=FIX_ALL_KIND,
        edit=types.WorkspaceEdit(changes={uri: [edit]}),
    )


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: DistfixServer, params: types.HoverParams) -> types.Hover | None:
    text, findings = _analyse(params.text_document.uri)
    textmap = TextMap(text)
    line = params.position.line + 1
    column = (
        character_column(textmap.line_text(line), params.position.character) if line <= len(textmap.line_starts) else 0
    )
    for finding in findings:
        inside = (finding.start.line, finding.start.column) <= (line, column) <= (finding.end.line, finding.end.column)
        rule = default_registry().get(finding.code)
        if inside and rule is not None:
            return types.Hover(
                contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=render_explanation(rule))
            )
    return None
