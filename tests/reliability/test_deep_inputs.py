"""Inputs CPython compiles but that are deep or long enough to crash a parser (libcst's native
parser overflows its stack on a long `and` chain) or exhaust Python's recursion limit: each
becomes a one-line per-file error, or is analysed, while every other file is checked."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from fixer.engine import MAX_BOOL_OPERANDS, check_source

PRELUDE = "import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\n"
GOOD = PRELUDE + "d = s.experimental_distribute_datasets_from_function(f)\n"
CHAIN = "too complex to analyse: an `and`/`or` chain of"


def chain(operands: int, word: str = "and") -> str:
    """A strategy prelude, then ``x = a and a and ... and a``."""
    return PRELUDE + "x = " + f" {word} ".join(["a"] * operands) + "\n"


def nested(depth: int, opening: str, closing: str) -> str:
    return PRELUDE + "x = " + opening * depth + closing * depth + "\n"


# Each is compiled by CPython (checked below), and sits at or past one of its limits:
# 200 nested brackets is the deepest CPython's tokenizer accepts (201 is "too many nested parentheses").
DEEP = {
    "and_8000": chain(8000),
    "or_20000": chain(20000, "or"),
    "and_at_the_limit_plus_one": chain(MAX_BOOL_OPERANDS + 1),
    "calls_200": nested(200, "f(", ")"),
    "run_calls_200": nested(200, "s.experimental_run_v2(", ")"),
    "brackets_200": nested(200, "[", "]"),
    "parentheses_200": PRELUDE + "x = " + "(" * 200 + "a" + ")" * 200 + "\n",
    "plus_8000": PRELUDE + "x = " + " + ".join(["a"] * 8000) + "\n",
    "not_3000": PRELUDE + "x = " + "not " * 3000 + "a\n",
}


def test_the_deep_inputs_are_valid_python():
    for name, text in DEEP.items():
        try:
            compile(text, name, "exec")
        except RecursionError:
            pass  # CPython's compiler refuses it, its parser accepts it: still input we must survive
    with pytest.raises(SyntaxError):
        compile(nested(201, "[", "]"), "past", "exec")  # the limit the cases above sit at


def test_a_chain_of_300_is_analysed():
    result = check_source("chain.py", chain(300) + "d = s.experimental_distribute_datasets_from_function(f)\n")
    assert result.error is None
    assert [f.code for f in result.findings] == ["TFD401"]


def test_a_chain_at_the_limit_reaches_libcst_and_is_reported_without_a_crash():
    # libcst parses it; the analysis then meets Python's recursion limit: one clear message.
    result = check_source("at_limit.py", chain(MAX_BOOL_OPERANDS))
    assert result.error == "file is too deeply nested to analyse"


def test_a_chain_past_the_limit_is_a_per_file_error():
    result = check_source("past.py", chain(MAX_BOOL_OPERANDS + 1))
    assert result.error == f"{CHAIN} {MAX_BOOL_OPERANDS + 1:,} operands (the limit is {MAX_BOOL_OPERANDS:,})"


def _write_tree(folder: Path, copies: int = 1) -> dict[str, str]:
    texts = {}
    for copy in range(copies):
        for name, text in DEEP.items():
            texts[f"{name}_{copy}.py"] = text
        texts[f"good_{copy}.py"] = GOOD
    for name, text in texts.items():
        (folder / name).write_text(text)
    return texts


def _assert_every_file_reported(result, folder: Path, copies: int = 1) -> None:
    out = result.stdout + result.stderr
    assert "Traceback" not in out and "BrokenProcessPool" not in out
    assert result.returncode == 2, out
    for copy in range(copies):
        assert f"{folder / f'good_{copy}.py'}:3:7: TFD401" in result.stdout
        assert f"{folder / f'and_8000_{copy}.py'}:1:1: TFD000 {CHAIN} 8,000 operands" in result.stdout
        assert f"{folder / f'or_20000_{copy}.py'}:1:1: TFD000 {CHAIN} 20,000 operands" in result.stdout


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_check_reports_every_file(tmp_path, distfix, jobs):
    copies = 1 if jobs == "1" else 2  # enough files for the pool to start
    _write_tree(tmp_path, copies)
    result = distfix("check", "--no-cache", "--jobs", jobs, str(tmp_path), timeout=600)
    _assert_every_file_reported(result, tmp_path, copies)


def test_fix_write_fixes_the_others_and_leaves_the_deep_ones(tmp_path, distfix):
    texts = _write_tree(tmp_path)
    result = distfix("fix", "--write", "--jobs", "1", str(tmp_path), timeout=600)
    assert "Traceback" not in result.stderr and result.returncode == 2
    assert f"{tmp_path / 'and_8000_0.py'}: {CHAIN} 8,000 operands" in result.stderr
    assert "experimental_" not in (tmp_path / "good_0.py").read_text()
    for name, text in texts.items():
        if not name.startswith(("good", "run_calls")):
            assert (tmp_path / name).read_text() == text, name


def test_migrate_reports_every_file(tmp_path, distfix):
    folder = tmp_path / "tree"
    folder.mkdir()
    _write_tree(folder)
    report = tmp_path / "report.json"
    result = distfix("migrate", str(folder), "--report", str(report), timeout=600)
    assert "Traceback" not in result.stdout + result.stderr
    assert result.returncode == 2
    text = report.read_text()
    assert CHAIN in text and "good_0.py" in text


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "fixer", "lsp"]))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("workspace")

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        """The server asks to watch pyproject.toml; a client must answer."""

    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=pytest_lsp.client_capabilities("visual-studio-code"), root_uri=root.as_uri())
    )
    lsp_client.root = root
    yield
    await lsp_client.shutdown_session()


async def _publish(client: LanguageClient, name: str, text: str) -> list[types.Diagnostic]:
    uri = (client.root / name).as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text)))
    while True:
        params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if params.uri == uri:
            return params.diagnostics


async def test_the_language_server_publishes_a_diagnostic_and_stays_up(client: LanguageClient):
    diagnostics = await _publish(client, "deep.py", DEEP["and_8000"])
    assert [d.code for d in diagnostics] == ["TFD000"] and CHAIN in diagnostics[0].message
    diagnostics = await _publish(client, "calls.py", DEEP["run_calls_200"])
    assert all("Traceback" not in d.message for d in diagnostics)
    diagnostics = await _publish(client, "good.py", GOOD)
    assert [d.code for d in diagnostics] == ["TFD401"], "the server still answers"
