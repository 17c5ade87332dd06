"""A one-shot loopback stub that answers chat-completion requests with a canned reply, so the
warm-up call of an OpenAI-compatible provider makes a whole round trip (request building,
response parsing, pricing, litellm's logging) instead of stopping at a refused connection.

Code that runs only once a reply has arrived (the SDK's response models, litellm's response
conversion and price look-up, regexes compiled on first use) would otherwise run for the first
time on the event loop of the first real request, while its other calls wait.

Nothing leaves the machine: the stub listens on 127.0.0.1, on a port the OS picks, for the
duration of one warm-up, and never reads what it is sent beyond the HTTP framing.

Example::

    async with serve_canned_completion() as base_url:   # "http://127.0.0.1:PORT/v1"
        await litellm.acompletion(model="openai/x", api_base=base_url, ...)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator

#: OpenAI-style chat completion whose content satisfies the warm-up schema (``{"ok": true}``)
CANNED_COMPLETION = {
    "id": "chatcmpl-warm-up",
    "object": "chat.completion",
    "created": 0,
    "model": "warm-up",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": '{"ok": true}'},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}
_MAX_HEADER_BYTES = 64 * 1024
_READ_TIMEOUT_S = 5.0
_DONE = (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError, ValueError)
_OPEN: dict[asyncio.StreamWriter, asyncio.Task] = {}


async def _read_request(reader: asyncio.StreamReader) -> None:
    """Consume one HTTP/1.1 request (headers, then a ``Content-Length`` body)."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _READ_TIMEOUT_S)
    if len(head) > _MAX_HEADER_BYTES:
        raise ValueError("request head too large")
    length = 0
    for line in head.decode("latin-1").split("\r\n")[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if length:
        await asyncio.wait_for(reader.readexactly(length), _READ_TIMEOUT_S)


async def _answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    task = asyncio.current_task()
    if task is not None:
        _OPEN[writer] = task
    try:
        while True:  # keep-alive: answer every request on the connection
            await _read_request(reader)
            body = json.dumps({**CANNED_COMPLETION, "created": int(time.time())}).encode()
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                + f"content-length: {len(body)}\r\n\r\n".encode()
                + body
            )
            await writer.drain()
    except _DONE:
        pass  # the client closed the connection, or sent something else: done
    finally:
        _OPEN.pop(writer, None)
        writer.close()


@contextlib.asynccontextmanager
async def serve_canned_completion() -> AsyncIterator[str]:
    """Serve :data:`CANNED_COMPLETION` on loopback; yields the ``/v1`` base URL."""
    server = await asyncio.start_server(_answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.close()
        handlers = list(_OPEN.values())
        for writer in list(_OPEN):  # kept-alive client connections end with the warm-up
            writer.close()
        if handlers:  # closing the transport ends each handler's read with EOF
            await asyncio.wait(handlers, timeout=_READ_TIMEOUT_S)
        await server.wait_closed()
