"""The language server over raw JSON-RPC bytes on stdio, the real server process: every request
is answered (errors per the JSON-RPC/LSP specification), framing errors are survived, and a
huge document gets one diagnostic instead of an analysis."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import socket
import threading
import time
from pathlib import Path

import pytest

from fixer.lsp.framing import MAX_FRAME_BYTES, MAX_LINE_BYTES
from fixer.lsp.server import MAX_DOCUMENT_CHARS

ROOT = Path(__file__).resolve().parents[2]
# A hang is the failure under test: the limit only turns it into a test failure.
WAIT = 120


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RawClient:
    """Writes framed bytes to ``distfix lsp`` (on stdio, or ``--tcp``) and collects every message
    it sends back."""

    def __init__(self, transport: str = "stdio") -> None:
        command = [sys.executable, "-m", "fixer", "lsp"]
        port = _free_port()
        if transport == "tcp":
            command += ["--tcp", f"127.0.0.1:{port}"]
        self.process = subprocess.Popen(
            command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        self.socket = self._connect(port) if transport == "tcp" else None
        stream = self.socket.makefile("rb") if self.socket else self.process.stdout
        self.messages: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _connect(self, port: int) -> socket.socket:
        """Connect once the server listens (it first imports the engine and pygls)."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"the server exited with {self.process.returncode}"
            try:
                return socket.create_connection(("127.0.0.1", port))
            except ConnectionRefusedError:
                time.sleep(0.1)  # polling for the listener, not synchronising with a message
        pytest.fail("the server never listened")

    def _read(self, stream) -> None:
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                elif line == b"\r\n":
                    break
            self.messages.put(json.loads(stream.read(length)))

    def raw(self, data: bytes) -> None:
        if self.socket is not None:
            self.socket.sendall(data)
            return
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def peak_memory(self) -> int:
        """The server's peak resident memory so far, in bytes (Linux's VmHWM)."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))) * 1024

    def send(self, message: dict) -> None:
        body = json.dumps(message).encode()
        self.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def response(self, request_id) -> dict:
        """The response to ``request_id`` (other messages are skipped)."""
        while True:
            message = self.messages.get(timeout=WAIT)
            if "method" not in message and message.get("id") == request_id:
                return message

    def response_any(self) -> int:
        """The id of the next response."""
        while True:
            message = self.messages.get(timeout=WAIT)
            if "method" not in message and message.get("id") is not None:
                return message["id"]

    def notification(self, method: str) -> dict:
        while True:
            message = self.messages.get(timeout=WAIT)
            if message.get("method") == method:
                return message

    def pending_notifications(self, method: str) -> list[dict]:
        """The notifications of ``method`` received and not yet read (the others are dropped)."""
        found = []
        while not self.messages.empty():
            message = self.messages.get()
            if message.get("method") == method:
                found.append(message)
        return found

    def close(self) -> None:
        if self.socket is not None:
            self.socket.close()
        self.process.kill()
        self.process.wait()


@pytest.fixture
def client(request):
    client = RawClient(getattr(request, "param", "stdio"))
    client.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"capabilities": {}}})
    assert "capabilities" in client.response(0)["result"]
    client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    yield client
    client.close()


def _ping(client: RawClient, request_id: int) -> None:
    """A request the server answers (with Method not found): proof that it still reads."""
    client.send({"jsonrpc": "2.0", "id": request_id, "method": "distfix/ping", "params": {}})
    assert client.response(request_id)["error"]["code"] == -32601


@pytest.mark.parametrize("method", ["textDocument/hover", "textDocument/codeAction", "codeAction/resolve"])
@pytest.mark.parametrize("params", ["missing", "empty"])
def test_a_request_with_bad_params_is_answered(client, method, params):
    request = {"jsonrpc": "2.0", "id": 7, "method": method}
    if params == "empty":
        request["params"] = {}
    client.send(request)
    response = client.response(7)
    assert response["error"]["code"] == -32602 and method in response["error"]["message"]
    _ping(client, 8)


@pytest.mark.parametrize(
    "broken",
    [
        b"Content-Length: abc\r\n\r\n{}",  # not a number
        b"\r\n{}",  # no header at all
        b"Content-Type: application/json\r\n\r\n{}",  # headers without Content-Length
        b"Content-Length: 5\r\n\r\n{}",  # too long: eats the start of the next frame
    ],
    ids=["not-a-number", "no-header", "no-length", "too-long"],
)
@pytest.mark.parametrize("client", ["stdio", "tcp"], indirect=True)
def test_the_server_answers_again_after_a_framing_error(client, broken):
    client.raw(broken)
    for request_id in (1, 2, 3):  # the frame after the broken one may be lost; then it answers again
        client.send({"jsonrpc": "2.0", "id": request_id, "method": "distfix/ping", "params": {}})
    answered = []
    while 3 not in answered:
        answered.append(client.response_any())
    _ping(client, 4)


@pytest.mark.parametrize("client", ["stdio", "tcp"], indirect=True)
def test_a_frame_above_the_limit_is_dropped_with_bounded_memory(client):
    """A frame twice the limit is read through in pieces, answered with Invalid Request, and
    the server's peak memory grows by far less than the frame (reading it whole grew it by the
    frame's size at least)."""
    before = client.peak_memory()
    size = 2 * MAX_FRAME_BYTES
    client.raw(b"Content-Length: %d\r\n\r\n" % size)
    piece = b" " * (1024 * 1024)
    for _ in range(size // len(piece)):
        client.raw(piece)
    error = client.response(None)["error"]
    assert error["code"] == -32600 and "above the limit" in error["message"]
    _ping(client, 10)
    assert client.peak_memory() - before < MAX_FRAME_BYTES // 2


def test_a_line_without_end_is_read_in_bounded_pieces(client):
    before = client.peak_memory()
    for _ in range(64):  # 64 MB without a newline
        client.raw(b"x" * (1024 * 1024))
    client.raw(b"\r\n")
    _ping(client, 11)
    assert client.peak_memory() - before < 100 * MAX_LINE_BYTES * 16


def test_a_body_that_is_not_json_gets_a_parse_error(client):
    client.raw(b"Content-Length: 9\r\n\r\n{not json")
    assert client.response(None)["error"]["code"] == -32700
    client.raw(b"Content-Length: 2\r\n\r\n[]")
    assert client.response(None)["error"]["code"] == -32600
    _ping(client, 5)


def test_a_huge_document_gets_one_diagnostic(client, tmp_path):
    uri = (tmp_path / "huge.py").as_uri()
    text = "import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\n" + "x = 1\n" * (MAX_DOCUMENT_CHARS // 6 + 1)
    client.send({
        "jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
    })
    published = client.notification("textDocument/publishDiagnostics")["params"]
    assert [d["code"] for d in published["diagnostics"]] == ["TFD000"]
    assert "document too large to analyse" in published["diagnostics"][0]["message"]
    _ping(client, 6)


EDITS = 50
BURST_SOURCE = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
{padding}dist = strategy.experimental_distribute_datasets_from_function(make_dataset)
"""


def test_a_burst_of_edits_costs_far_fewer_analyses_than_edits(client, tmp_path):
    """50 didChange notifications written back to back: every analysis publishes diagnostics
    with the version it analysed (fixer/lsp/server.py ``publish``), so the notifications count
    the analyses. The last one must be for the last version and its text."""
    uri = (tmp_path / "burst.py").as_uri()
    client.send({
        "jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": BURST_SOURCE.format(padding="")}},
    })
    assert client.notification("textDocument/publishDiagnostics")["params"]["version"] == 1
    burst = b""
    for version in range(2, EDITS + 2):  # version v puts v blank lines before the finding's line
        change = {"text": BURST_SOURCE.format(padding="\n" * version)}
        body = json.dumps({
            "jsonrpc": "2.0", "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
        }).encode()
        burst += b"Content-Length: %d\r\n\r\n" % len(body) + body
    client.raw(burst)
    published = []
    while not published or published[-1]["version"] != EDITS + 1:
        published.append(client.notification("textDocument/publishDiagnostics")["params"])
    assert len(published) <= 5, f"{len(published)} analyses for {EDITS} edits: {[p['version'] for p in published]}"
    final_line = 3 + EDITS + 1  # 0-based: three lines, then the last version's blank lines
    assert [(d["code"], d["range"]["start"]["line"]) for d in published[-1]["diagnostics"]] == [("TFD401", final_line)]
    _ping(client, 9)
    assert client.pending_notifications("textDocument/publishDiagnostics") == []  # nothing analysed late
