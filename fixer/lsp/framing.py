"""Reading JSON-RPC messages from the client: every request answered, framing errors survived.

pygls's own stdio loop matches a header line only when it is exactly ``Content-Length: N``:
after one frame with a bad or missing ``Content-Length`` the next body runs into the next
header line, and from then on no header matches and the server never answers again. And a
request whose ``params`` do not fit the method's type gets no response at all. This loop
finds a ``Content-Length`` header at the end of a line whatever precedes it (so the stream
recovers at the next message), and answers what cannot be handled as the JSON-RPC
specification asks: Parse error (-32700) or Invalid Request (-32600) with a null id when the
id cannot be known, Invalid params (-32602) with the request's id otherwise.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from typing import Any, Awaitable, Callable, Protocol

from lsprotocol.types import ErrorCodes, ResponseError
from pygls.exceptions import JsonRpcException
from pygls.protocol import JsonRPCProtocol

# Anything left of a broken frame may precede the header on its line.
_CONTENT_LENGTH = re.compile(rb"Content-Length:[ \t]*(\d+)[ \t]*\r?\n$", re.IGNORECASE)


class Reader(Protocol):
    """pygls's asynchronous stdin reader."""

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
        line = await reader.readline()
        if not line:
            return
        match = _CONTENT_LENGTH.search(line)
        if match:
            length = int(match.group(1))
            continue
        if line.strip() or length is None:
            continue  # another header (Content-Type), or a blank line of a frame without its length
        body = await reader.readexactly(length)
        length = None
        if not body:
            return
        _handle(body, protocol, logger, error_handler)


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
