"""``distfix lsp --tcp HOST:PORT`` serves the protocol on a socket (127.0.0.1 only)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _connect(port: int, process: subprocess.Popen) -> socket.socket:
    """Connect once the server listens (it first has to import the engine and pygls)."""
    deadline = time.monotonic() + 120  # generous: the import is slow on a loaded machine
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"server exited with {process.returncode}")
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=30)
        except ConnectionRefusedError:
            time.sleep(0.1)
    pytest.fail("server never listened")


def _send(connection: socket.socket, message: dict) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    connection.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def _receive(stream) -> dict:
    length = 0
    while (line := stream.readline().strip()):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(stream.read(length))


def test_tcp_server_answers_initialize(tmp_path):
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "fixer", "lsp", "--tcp", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        connection = _connect(port, process)
        stream = connection.makefile("rb")
        _send(connection, {"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}})
        reply = _receive(stream)
        assert reply["id"] == 1
        assert reply["result"]["serverInfo"]["name"] == "distfix"
        assert "source.fixAll.distfix" in reply["result"]["capabilities"]["codeActionProvider"]["codeActionKinds"]
        _send(connection, {"id": 2, "method": "shutdown", "params": None})
        assert _receive(stream)["id"] == 2
        connection.close()
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
