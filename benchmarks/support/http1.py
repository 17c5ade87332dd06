"""A lean HTTP/1.1 client for load generators: one keep-alive connection, one request at a
time, ``Content-Length`` or chunked bodies. A general client (httpx) costs several times the
CPU per request, which on a small machine shared with the service under test would make the
load generator the bottleneck being measured.

Example::

    conn = await Connection.open("127.0.0.1", 8080)
    reply = await conn.request("GET", "/v1/health")
    assert reply.status == 200 and reply.json()["status"] == "ok"
    await conn.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass
from typing import Any


@dataclass
class Reply:
    """A response: status, headers (lower-case names) and body."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Connection:
    """One keep-alive connection to ``host:port``."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str):
        self.reader, self.writer, self.host = reader, writer, host

    @classmethod
    async def open(cls, host: str, port: int) -> Connection:
        reader, writer = await asyncio.open_connection(host, port)
        return cls(reader, writer, f"{host}:{port}")

    async def request(
        self,
        method: str,
        path: str,
        headers: dict[str, str] | None = None,
        body: bytes = b"",
    ) -> Reply:
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        if body or method in ("POST", "PUT"):
            lines.append(f"Content-Length: {len(body)}")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status_line, *fields = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        got: dict[str, str] = {}
        for field in fields:
            if field:
                name, _, value = field.partition(":")
                got[name.strip().lower()] = value.strip()
        if status in (204, 304) or method == "HEAD":
            data = b""
        elif "content-length" in got:
            data = await self.reader.readexactly(int(got["content-length"]))
        elif got.get("transfer-encoding", "").lower() == "chunked":
            data = await self._chunked()
        else:
            raise ValueError(f"{method} {path}: a reply without a length ({status})")
        return Reply(status, got, data)

    async def _chunked(self) -> bytes:
        out = bytearray()
        while True:
            size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await self.reader.readuntil(b"\r\n")
                return bytes(out)
            out += await self.reader.readexactly(size)
            await self.reader.readexactly(2)

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(ConnectionError):
            await self.writer.wait_closed()
