"""OpenAI-compatible files and batches endpoints of the fake provider (mounted by
:class:`~tests.fakes.provider.server.FakeProvider`).

- ``POST /v1/files`` (multipart: ``file``, ``purpose``) → a file object;
  ``GET /v1/files/{id}`` → its metadata; ``GET /v1/files/{id}/content`` → its bytes
  (after ``content_delay_s``, so a test can stop a client mid-download).
- ``POST /v1/batches`` (``input_file_id``, ``endpoint``, ``completion_window``, ``metadata``);
  ``GET /v1/batches/{id}``; ``GET /v1/batches`` (newest first); ``POST /v1/batches/{id}/cancel``.
- ``GET /_admin/batches`` → counters; ``POST /_admin/batches`` → change the settings below.

A batch is ``validating`` when created; the first ``polls`` retrievals (default 1) see it
``in_progress``, and the next one once ``delay_s`` seconds have passed sees it finished. Then
every input line is answered by the fake's normal responder (the same deterministic answer a
direct chat completion gets; direct calls are not counted in ``calls``): answers go to the output
file, failures to the error file. Faults are injected with :meth:`BatchDesk.fail_lines` (lines
whose request matches get an error status) and :meth:`BatchDesk.expire_next` (the next batch
expires with only its first ``keep`` lines answered, the rest ``batch_expired``).

Example::

    with FakeProvider() as fake:
        fake.batches.configure(polls=2)
        fake.batches.fail_lines("rate the image", status=500, times=1)
        ...  # litellm.acreate_file / acreate_batch / aretrieve_batch / afile_content
        fake.batches.stats()["lines_answered"]
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import web

from tests.fakes.provider.responder import Match, ScriptRule
from tests.fakes.provider.wire import WireError

if TYPE_CHECKING:  # pragma: no cover
    from tests.fakes.provider.server import FakeProvider

ENDPOINT = "/v1/chat/completions"
_SETTINGS = {"polls", "delay_s", "content_delay_s"}
_TERMINAL = {"completed", "expired", "failed", "cancelled"}


@dataclass
class _LineFault:
    rule: ScriptRule
    status: int
    code: str


@dataclass
class _Batch:
    id: str
    input_file_id: str
    metadata: dict[str, Any]
    created_at: int
    status: str = "validating"
    polls: int = 0
    started: float = field(default_factory=time.monotonic)
    expire_keep: int | None = None
    output_file_id: str | None = None
    error_file_id: str | None = None
    counts: dict[str, int] = field(
        default_factory=lambda: {"total": 0, "completed": 0, "failed": 0}
    )

    def wire(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "batch",
            "endpoint": ENDPOINT,
            "errors": None,
            "input_file_id": self.input_file_id,
            "completion_window": "24h",
            "status": self.status,
            "output_file_id": self.output_file_id,
            "error_file_id": self.error_file_id,
            "created_at": self.created_at,
            "request_counts": dict(self.counts),
            "metadata": self.metadata,
        }


class BatchDesk:
    """Files and batches of one fake; the settings may change while it serves."""

    def __init__(self, fake: FakeProvider) -> None:
        self.fake = fake
        self.polls, self.delay_s, self.content_delay_s = 1, 0.0, 0.0
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        """Forget files, batches, injected faults and counters; settings back to defaults."""
        with self._lock:
            self.files: dict[str, tuple[dict[str, Any], bytes]] = {}
            self.batches: dict[str, _Batch] = {}
            self._faults: list[_LineFault] = []
            self._expire: list[int] = []
            self.counters: Counter[str] = Counter()
            self.polls, self.delay_s, self.content_delay_s = 1, 0.0, 0.0

    def configure(self, **changes: Any) -> dict[str, Any]:
        """Change ``polls`` (retrievals that see a batch running), ``delay_s`` and
        ``content_delay_s``; returns the settings."""
        unknown = set(changes) - _SETTINGS
        if unknown:
            raise ValueError(
                f"unknown batch setting(s) {sorted(unknown)}; known: {sorted(_SETTINGS)}"
            )
        if "polls" in changes:
            self.polls = int(changes["polls"])
        for key in ("delay_s", "content_delay_s"):
            if key in changes:
                setattr(self, key, float(changes[key]))
        return {
            "polls": self.polls,
            "delay_s": self.delay_s,
            "content_delay_s": self.content_delay_s,
        }

    def fail_lines(
        self,
        match: Match,
        *,
        status: int = 500,
        code: str = "server_error",
        times: int | None = None,
    ) -> None:
        """Lines whose request matches (substring of the messages or a callable) fail."""
        with self._lock:
            self._faults.append(_LineFault(ScriptRule(match, "", times), status, code))

    def expire_next(self, keep: int = 0) -> None:
        """The next batch created expires with only its first ``keep`` lines answered."""
        with self._lock:
            self._expire.append(keep)

    def stats(self) -> dict[str, int]:
        """Counters: uploads, batches_created, retrievals, content_downloads, lines_answered,
        lines_failed, content_started."""
        with self._lock:
            return dict(self.counters)

    # -- HTTP --------------------------------------------------------------------------------
    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/files", self._upload)
        app.router.add_get("/v1/files/{id}", self._file)
        app.router.add_get("/v1/files/{id}/content", self._content)
        app.router.add_post("/v1/batches", self._create)
        app.router.add_get("/v1/batches", self._list)
        app.router.add_get("/v1/batches/{id}", self._retrieve)
        app.router.add_post("/v1/batches/{id}/cancel", self._cancel)
        app.router.add_get("/_admin/batches", self._admin_stats)
        app.router.add_post("/_admin/batches", self._admin_config)

    def _err(self, status: int, message: str) -> web.Response:
        kind = "not_found_error" if status == 404 else "invalid_request_error"
        return self.fake._error(status, kind, message)

    def _new_file(self, data: bytes, filename: str, purpose: str) -> dict[str, Any]:
        meta = {
            "id": f"file-fake-{self.fake.next_id()}",
            "object": "file",
            "bytes": len(data),
            "created_at": int(time.time()),
            "filename": filename,
            "purpose": purpose,
            "status": "processed",
        }
        self.files[meta["id"]] = (meta, data)
        return meta

    async def _upload(self, request: web.Request) -> web.Response:
        form = await request.post()
        upload, purpose = form.get("file"), form.get("purpose")
        if not isinstance(upload, web.FileField) or not isinstance(purpose, str):
            return self._err(400, "multipart form needs a 'file' part and a 'purpose' field")
        data = upload.file.read()
        with self._lock:
            self.counters["uploads"] += 1
            meta = self._new_file(data, upload.filename or "upload.jsonl", purpose)
        return web.json_response(meta)

    async def _file(self, request: web.Request) -> web.Response:
        found = self.files.get(request.match_info["id"])
        if found is None:
            return self._err(404, f"no file {request.match_info['id']}")
        return web.json_response(found[0])

    async def _content(self, request: web.Request) -> web.StreamResponse:
        found = self.files.get(request.match_info["id"])
        if found is None:
            return self._err(404, f"no file {request.match_info['id']}")
        with self._lock:
            self.counters["content_started"] += 1
        if self.content_delay_s:
            await asyncio.sleep(self.content_delay_s)
        with self._lock:
            self.counters["content_downloads"] += 1
        return web.Response(body=found[1], content_type="application/octet-stream")

    async def _create(self, request: web.Request) -> web.Response:
        try:
            body = json.loads(await request.text())
        except ValueError:
            return self._err(400, "request body is not valid JSON")
        file_id = body.get("input_file_id") if isinstance(body, dict) else None
        if file_id not in self.files:
            return self._err(400, f"input_file_id {file_id!r} is not an uploaded file")
        if body.get("endpoint") != ENDPOINT or body.get("completion_window") != "24h":
            return self._err(400, f"endpoint must be {ENDPOINT} and completion_window '24h'")
        with self._lock:
            self.counters["batches_created"] += 1
            batch = _Batch(
                id=f"batch_fake{self.fake.next_id()}",
                input_file_id=file_id,
                metadata=body.get("metadata") or {},
                created_at=int(time.time()),
                expire_keep=self._expire.pop(0) if self._expire else None,
            )
            batch.counts["total"] = len(self.files[file_id][1].splitlines())
            self.batches[batch.id] = batch
        return web.json_response(batch.wire())

    async def _list(self, request: web.Request) -> web.Response:
        data = [b.wire() for b in sorted(self.batches.values(), key=lambda b: b.id, reverse=True)]
        return web.json_response({"object": "list", "data": data, "has_more": False})

    async def _retrieve(self, request: web.Request) -> web.Response:
        batch = self.batches.get(request.match_info["id"])
        if batch is None:
            return self._err(404, f"no batch {request.match_info['id']}")
        with self._lock:
            self.counters["retrievals"] += 1
            if batch.status not in _TERMINAL:
                batch.polls += 1
                waited = time.monotonic() - batch.started
                if batch.polls > self.polls and waited >= self.delay_s:
                    self._finish(batch)
                else:
                    batch.status = "in_progress"
        return web.json_response(batch.wire())

    async def _cancel(self, request: web.Request) -> web.Response:
        batch = self.batches.get(request.match_info["id"])
        if batch is None:
            return self._err(404, f"no batch {request.match_info['id']}")
        with self._lock:
            if batch.status not in _TERMINAL:
                batch.status = "cancelled"
        return web.json_response(batch.wire())

    async def _admin_stats(self, request: web.Request) -> web.Response:
        return web.json_response(self.stats())

    async def _admin_config(self, request: web.Request) -> web.Response:
        try:
            changes = json.loads(await request.text() or "{}")
            if not isinstance(changes, dict):
                raise ValueError("config body must be a JSON object")
            if "expire_next" in changes:
                self.expire_next(int(changes.pop("expire_next")))
            return web.json_response(self.configure(**changes))
        except (ValueError, TypeError) as exc:
            return self._err(400, str(exc))

    # -- answering ---------------------------------------------------------------------------
    def _finish(self, batch: _Batch) -> None:
        """Answer every line (called with the lock held)."""
        out, errors = [], []
        lines = self.files[batch.input_file_id][1].decode("utf-8").splitlines()
        for n, raw in enumerate(lines):
            expired = batch.expire_keep is not None and n >= batch.expire_keep
            custom_id, row = self._answer_line(raw, expired=expired)
            ok = row["response"] is not None and row["response"]["status_code"] == 200
            entry = json.dumps({"id": f"batch_req_{n}", "custom_id": custom_id, **row})
            (out if ok else errors).append(entry)
        batch.counts.update(completed=len(out), failed=len(errors))
        self.counters["lines_answered"] += len(out)
        self.counters["lines_failed"] += len(errors)
        if out:
            name = f"{batch.id}_output.jsonl"
            batch.output_file_id = self._new_file(self._jsonl(out), name, "batch_output")["id"]
        if errors:
            name = f"{batch.id}_error.jsonl"
            batch.error_file_id = self._new_file(self._jsonl(errors), name, "batch_output")["id"]
        batch.status = "expired" if batch.expire_keep is not None else "completed"

    @staticmethod
    def _jsonl(rows: list[str]) -> bytes:
        return ("\n".join(rows) + "\n").encode("utf-8")

    def _answer_line(self, raw: str, *, expired: bool) -> tuple[str | None, dict[str, Any]]:
        try:
            line = json.loads(raw)
            custom_id = line.get("custom_id")
        except (ValueError, AttributeError):
            return None, _error_row(400, "invalid_request", "line is not a JSON object")
        if expired:
            message = "the request was not run before the completion window expired"
            return custom_id, {
                "response": None,
                "error": {"code": "batch_expired", "message": message},
            }
        if line.get("method") != "POST" or line.get("url") != ENDPOINT:
            return custom_id, _error_row(400, "invalid_request", f"line must POST {ENDPOINT}")
        body = line.get("body")
        try:
            if not isinstance(body, dict):
                raise WireError("line body must be a JSON object")
            canonical, _ = self.fake._parse(None, body)  # type: ignore[arg-type]
        except WireError as exc:
            return custom_id, _error_row(exc.status, "invalid_request", exc.message)
        fault = next((f for f in self._faults if f.rule.matches(canonical)), None)
        if fault is not None:
            fault.rule.hits += 1
            return custom_id, _error_row(fault.status, fault.code, "injected batch line fault")
        content = self.fake.responder.respond(canonical)
        rendered = self.fake._render(canonical, body, content, "stop")
        return custom_id, {
            "response": {"status_code": 200, "request_id": rendered["id"], "body": rendered},
            "error": None,
        }


def _error_row(status: int, code: str, message: str) -> dict[str, Any]:
    return {
        "response": {
            "status_code": status,
            "request_id": "req_fake",
            "body": {"error": {"message": message, "type": code, "code": code}},
        },
        "error": None,
    }
