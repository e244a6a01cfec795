"""Reading JSON-RPC messages from the client: every request answered, framing errors survived.

pygls's own stdio loop matches a header line only when it is exactly ``Content-Length: N``:
after one frame with a bad or missing ``Content-Length`` the next body runs into the next
header line, and from then on no header matches and the server never answers again. And a
request whose ``params`` do not fit the method's type gets no response at all. This loop
finds a ``Content-Length`` header at the end of a line whatever precedes it (so the stream
recovers at the next message), and answers what cannot be handled as the JSON-RPC
specification asks: Parse error (-32700) or Invalid Request (-32600) with a null id when the
id cannot be known, Invalid params (-32602) with the request's id otherwise.

Memory stays bounded whatever the client sends: a frame whose ``Content-Length`` is above
:data:`MAX_FRAME_BYTES` is read through in pieces and dropped (answered with Invalid Request,
its id unknown), and a header line is read at most :data:`MAX_LINE_BYTES` at a time.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import TYPE_CHECKING, Any, Protocol

from lsprotocol.types import ErrorCodes, ResponseError
from pygls.exceptions import JsonRpcException
from pygls.io_ import StdinAsyncReader

if TYPE_CHECKING:
    import logging
    import threading
    from collections.abc import Awaitable, Callable

    from pygls.protocol import JsonRPCProtocol

# A 2-million-character document (the analysis limit, fixer/lsp/server.py) is at most 12 MB of
# JSON even when every character is escaped as \uXXXX; a frame above this is not a document
# distfix would analyse, and reading it whole is what made a 19 MB document cost 2.4 GB.
MAX_FRAME_BYTES = 32 * 1024 * 1024
MAX_LINE_BYTES = 64 * 1024  # header lines are a few dozen bytes
_SKIP_CHUNK = 1024 * 1024

# Anything left of a broken frame may precede the header on its line.
_CONTENT_LENGTH = re.compile(rb"Content-Length:[ \t]*(\d+)[ \t]*\r?\n$", re.IGNORECASE)


class Reader(Protocol):
    """pygls's asynchronous stdin reader, or an :class:`asyncio.StreamReader` (TCP)."""

    def readline(self) -> Awaitable[bytes]: ...

    def readexactly(self, n: int) -> Awaitable[bytes]: ...


async def read_messages(
    stop_event: threading.Event,
    reader: Reader,
    protocol: JsonRPCProtocol,
    logger: logging.Logger,
    error_handler: Callable[[Exception, type[JsonRpcException]], Any],
) -> None:
    """Read framed messages until end of input and hand each to ``protocol``."""
    length: int | None = None
    while not stop_event.is_set():
        try:
            line = await reader.readline()
        except ValueError:  # a StreamReader's line longer than its limit: it dropped the line
            continue
        if not line:
            return
        match = _CONTENT_LENGTH.search(line)
        if match:
            length = int(match.group(1))
            continue
        if line.strip() or length is None:
            continue  # another header (Content-Type), or a blank line of a frame without its length
        try:
            if length > MAX_FRAME_BYTES:
                await _skip(reader, length)
                logger.error("Dropped a message of %d bytes (the limit is %d)", length, MAX_FRAME_BYTES)
                too_large = (
                    f"Invalid Request: a message of {length / 2**20:.0f} MB"
                    f" is above the limit of {MAX_FRAME_BYTES // 2**20} MB"
                )
                _answer(protocol, None, ErrorCodes.InvalidRequest, too_large)
                length = None
                continue
            body = await reader.readexactly(length)
        except asyncio.IncompleteReadError:  # the input ended inside the frame (TCP)
            return
        length = None
        if not body:
            return
        _handle(body, protocol, logger, error_handler)


async def _skip(reader: Reader, length: int) -> None:
    """Read ``length`` bytes and drop them, holding at most one piece at a time."""
    while length > 0:
        piece = await reader.readexactly(min(length, _SKIP_CHUNK))
        if not piece:
            raise asyncio.IncompleteReadError(b"", length)
        length -= len(piece)


class BoundedStdinReader(StdinAsyncReader):
    """pygls's stdin reader with header lines read at most :data:`MAX_LINE_BYTES` at a time (a
    client that sends no newline would otherwise grow one line without end)."""

    def readline(self) -> Awaitable[bytes]:
        loop: asyncio.AbstractEventLoop = self.loop  # pygls's property has no annotation
        return loop.run_in_executor(self.executor, self.stdin.readline, MAX_LINE_BYTES)


def _handle(
    body: bytes,
    protocol: JsonRPCProtocol,
    logger: logging.Logger,
    error_handler: Callable[[Exception, type[JsonRpcException]], Any],
) -> None:
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        logger.error("Dropped a message that is not JSON (%d bytes)", len(body))
        _answer(protocol, None, ErrorCodes.ParseError, "Parse error: the message is not JSON")
        return
    if not isinstance(data, dict) or "jsonrpc" not in data:
        _answer(protocol, None, ErrorCodes.InvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message")
        return
    request_id = data.get("id")
    is_request = "method" in data and "id" in data
    try:
        # Only the top level carries "jsonrpc": structuring it alone is what pygls's object_hook
        # (which returns every other object as it is) does for the whole document.
        message = protocol.structure_message(data)
    except JsonRpcException as exc:
        logger.error("Could not read %s: %s", data.get("method", "a message"), exc)
        if is_request:
            _answer(protocol, request_id, ErrorCodes.InvalidParams, f"Invalid params for {data['method']}")
        return
    try:
        protocol.handle_message(message)
    except Exception as exc:  # pygls answers requests itself; this is a notification's failure
        logger.exception("Unable to handle message")
        error_handler(exc, JsonRpcException)


def _answer(protocol: JsonRPCProtocol, request_id: Any, code: ErrorCodes, message: str) -> None:
    """Send an error response (``request_id`` None when it cannot be known)."""
    protocol._send_response(request_id, None, ResponseError(code=code, message=message))  # noqa: SLF001 - pygls's sender
