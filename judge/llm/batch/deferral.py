"""Provider-batch mode of the gateway: calls are recorded instead of sent, and answered later.

With a :class:`ProviderBatch` attached, :class:`~judge.llm.gateway.LLMGateway` asks it first for
every provider round trip (:meth:`ProviderBatch.take`):

- the request was answered by a collected batch (or by a direct fallback call) → the stored
  reply is used, its usage at the batch price goes to the request's meter;
- it is new → its body is journaled as ``pending``, the item's :class:`Ticket` is marked
  waiting and :class:`DeferredCall` (a :class:`~skills.types.ModelCallError`) ends the call;
- it is pending or in a batch → likewise waiting;
- a batch line failed and the fallback is ``direct`` → ``None``: the gateway calls the provider
  as usual and hands the reply back (:meth:`ProviderBatch.answered_direct`).

A run therefore goes in passes (see :func:`judge.llm.batch.rounds.run_in_rounds`): every item
not done is run inside :meth:`ProviderBatch.item`; items whose ticket says waiting are not
recorded as done; at the end of the pass :meth:`submit` sends what was recorded; later
:meth:`collect` stores the answers and the next pass re-runs the waiting items. Items with
several dependent calls (a re-ask, safety before skills) take several rounds.

Example::

    pb = ProviderBatch(run_dir / "provider-batch", settings)
    judge = Judge(settings, deferrer=pb)      # every call of this judge goes through pb
    with pb.item() as ticket:
        result = await judge.ascore(submission)
    if ticket.waiting:
        ...  # not done yet: await pb.submit(), later await pb.collect() and run it again

    # or, the same in one call (raises ItemWaiting when the result is not final):
    result = await pb.settle(lambda: judge.ascore(submission))
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from judge.config import JudgeSettings
from judge.llm.batch.ledger import BatchLedger
from judge.llm.batch.provider import TERMINAL, BatchTarget, read_lines, request_line
from judge.llm.cache import strip_images
from judge.llm.usage import UsageMeter
from skills.types import ModelCallError

log = logging.getLogger("judge.llm.batch")
Fallback = Literal["batch", "direct"]
T = TypeVar("T")
MAX_LINES = 50_000  # OpenAI's limit of requests per batch
MAX_BYTES = 180 * 1024**2  # under OpenAI's 200 MB input file limit


class DeferredCall(ModelCallError):
    """The call went into a provider batch; the item is re-run once it is answered."""


class ItemWaiting(Exception):
    """Raised by :meth:`ProviderBatch.settle`: the item's result is not final, some of its
    calls wait for a provider batch; record nothing and run it again on the next pass."""

    def __init__(self, calls: int):
        super().__init__(f"{calls} call(s) wait for a provider batch")
        self.calls = calls


@dataclass
class Ticket:
    """What one item's calls did in this pass."""

    waiting: int = 0


_TICKET: ContextVar[Ticket | None] = ContextVar("judge_provider_batch_ticket", default=None)


def request_key(model: str, body: dict[str, Any]) -> str:
    """Identity of one provider request (images by digest)."""
    blob = json.dumps({"m": model, "b": strip_images(body)}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:48]


class ProviderBatch:
    """The run's deferred requests, its batches and their answers (journaled in ``folder``)."""

    def __init__(
        self,
        folder: Path,
        settings: JudgeSettings,
        *,
        poll_s: float = 30.0,
        fallback: Fallback = "batch",
        max_attempts: int = 3,
    ):
        if fallback not in ("batch", "direct"):
            raise ValueError(f"unknown provider-batch fallback {fallback!r}; use batch or direct")
        self.folder = folder
        self.settings = settings
        self.poll_s = poll_s
        self.fallback: Fallback = fallback
        self.max_attempts = max_attempts
        self.journal = BatchLedger(folder / "journal.sqlite")
        self.waiting_items = 0
        self._targets: dict[str, BatchTarget] = {}
        for model in settings.models():  # an unsupported provider is refused before any work
            self.target(model)

    def target(self, model: str) -> BatchTarget:
        """Where ``model``'s batches go."""
        if model not in self._targets:
            self._targets[model] = BatchTarget.of(model, self.settings)
        return self._targets[model]

    # -- the item side -----------------------------------------------------------------------
    @contextlib.contextmanager
    def item(self) -> Iterator[Ticket]:
        """Scope one item's calls; the ticket says whether any of them is waiting."""
        ticket = Ticket()
        token = _TICKET.set(ticket)
        try:
            yield ticket
        finally:
            _TICKET.reset(token)
            if ticket.waiting:
                self.waiting_items += 1

    async def settle(self, call: Callable[[], Awaitable[T]]) -> T:
        """Run one item (``call``, e.g. ``lambda: judge.ascore(sub)``) and return its result,
        or raise :class:`ItemWaiting` when any of its calls waits for a batch."""
        with self.item() as ticket:
            result = await call()
        if ticket.waiting:
            raise ItemWaiting(ticket.waiting)
        return result

    def begin_pass(self) -> None:
        """Reset the count of waiting items."""
        self.waiting_items = 0

    async def take(
        self, model: str, messages: list[dict], fmt: dict, params: dict[str, Any], meter: UsageMeter
    ) -> tuple[str | None, str]:
        """``(reply, key)``: the stored reply, or ``None`` to call the provider directly;
        raises :class:`DeferredCall` when the request waits for a batch."""
        body = self.target(model).body(messages, fmt, params)
        key = request_key(model, body)
        row = self.journal.get(key)
        if row is None:
            self.journal.record(key, model, body)
            row = self.journal.get(key)
        assert row is not None
        if row.state == "answered":
            meter.record_call(row.prompt_tokens, row.completion_tokens, row.cost)
            return row.text or "", key
        if row.state == "failed":
            meter.failed_calls += 1
            raise ModelCallError(row.error or "provider batch line failed")
        if row.state == "direct":
            return None, key
        ticket = _TICKET.get()
        if ticket is not None:
            ticket.waiting += 1
        raise DeferredCall(f"waiting for a provider batch (request {key[:12]})")

    def answered_direct(self, key: str, text: str, usage: tuple[int, int], cost: float) -> None:
        """Keep a direct fallback call's reply, so later passes do not call again."""
        self.journal.answer(key, text, via="direct", usage=usage, cost=cost, list_cost=cost)
        self.journal.commit()

    # -- the batch side ----------------------------------------------------------------------
    def in_flight(self) -> list[str]:
        """Provider ids (or local ids, before the provider has one) of unfinished batches."""
        rows = self.journal.batches("uploading", "creating", "submitted")
        return [r.batch_id or r.local_id for r in rows]

    def has_pending(self) -> bool:
        """True when requests wait to be submitted."""
        return self.journal.count_pending() > 0

    async def submit(self) -> list[str]:
        """Send every pending request, one batch per model (split at the provider's limits);
        finish the submission of batches a crash interrupted; returns the new batch ids."""
        for model, rows in self.journal.pending().items():
            for chunk in _chunks(rows):
                local_id = f"lb_{uuid.uuid4().hex[:16]}"
                path = self.folder / "inputs" / f"{local_id}.jsonl"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(
                    "".join(request_line(k, b) + "\n" for k, b in chunk), encoding="utf-8"
                )
                self.journal.new_batch(local_id, model, [k for k, _ in chunk], path)
                self.journal.commit()
        ids = []
        for row in self.journal.batches("uploading", "creating"):
            ids.append(await self._send(row.local_id))
        return ids

    async def _send(self, local_id: str) -> str:
        (row,) = [r for r in self.journal.batches() if r.local_id == local_id]
        target = self.target(row.model)
        file_id = row.file_id
        if row.state == "uploading" or not file_id:
            file_id = await target.upload(Path(row.input_path).read_bytes(), f"{local_id}.jsonl")
            self.journal.update_batch(local_id, state="creating", file_id=file_id)
            self.journal.commit()
        else:  # created before a crash, maybe: adopt it rather than pay twice
            found = await target.find(local_id)
            if found is not None:
                return self._created(local_id, found)
        return self._created(local_id, await target.create(file_id, {"judge_local_id": local_id}))

    def _created(self, local_id: str, batch: Any) -> str:
        self.journal.update_batch(
            local_id, state="submitted", batch_id=str(batch.id), status=str(batch.status)
        )
        self.journal.commit()
        log.info("provider batch %s submitted", batch.id)
        return str(batch.id)

    async def collect(self) -> dict[str, str]:
        """Poll every submitted batch once; store the output of finished ones. Returns
        ``{batch_id: status}`` of the batches polled."""
        seen = {}
        for row in self.journal.batches("submitted"):
            assert row.batch_id is not None
            target = self.target(row.model)
            batch = await target.retrieve(row.batch_id)
            status = str(batch.status)
            seen[row.batch_id] = status
            if status not in TERMINAL:
                self.journal.update_batch(row.local_id, status=status)
                self.journal.commit()
                continue
            results = []
            for file_id in (batch.output_file_id, batch.error_file_id):
                if file_id:
                    results += read_lines(await target.download(str(file_id)))
            self._store(row.local_id, target, results, status, _batch_errors(batch))
        return seen

    def _store(
        self, local_id: str, target: BatchTarget, results: list, status: str, why: str
    ) -> None:
        """Answers and failures of a finished batch, in one transaction."""
        waiting = set(self.journal.in_batch(local_id))
        for line in results:
            if line.custom_id not in waiting:
                continue  # a line of another batch, or a duplicate
            waiting.discard(line.custom_id)
            if line.text is not None:
                cost, listed = target.costs(line.prompt_tokens, line.completion_tokens)
                self.journal.answer(
                    line.custom_id,
                    line.text,
                    via="batch",
                    usage=(line.prompt_tokens, line.completion_tokens),
                    cost=cost,
                    list_cost=listed,
                )
            else:
                self._failed(line.custom_id, line.error or "batch line failed", line.retryable)
        for key in waiting:  # no line came back for these
            self._failed(key, f"no result in batch {local_id} (status {status}){why}", True)
        self.journal.update_batch(local_id, state="collected", status=status)
        self.journal.commit()

    def _failed(self, key: str, error: str, retryable: bool) -> None:
        row = self.journal.get(key)
        attempts = row.attempts if row else self.max_attempts
        if self.fallback == "direct":
            self.journal.set_state(key, "direct", error)
        elif retryable and attempts < self.max_attempts:
            self.journal.set_state(key, "pending", error)
        else:
            self.journal.set_state(key, "failed", error)
        log.info("provider batch line %s failed (%s): %s", key[:12], self.fallback, error)

    def summary(self) -> dict[str, Any]:
        """Requests, batches, tokens and cost (batch and list prices) of the run so far."""
        return {"fallback": self.fallback, **self.journal.summary()}

    def close(self) -> None:
        """Commit and close the journal."""
        self.journal.close()


def _chunks(rows: list[tuple[str, dict]]) -> Iterator[list[tuple[str, dict]]]:
    chunk: list[tuple[str, dict]] = []
    size = 0
    for key, body in rows:
        n = len(request_line(key, body).encode("utf-8")) + 1
        if chunk and (len(chunk) >= MAX_LINES or size + n > MAX_BYTES):
            yield chunk
            chunk, size = [], 0
        chunk.append((key, body))
        size += n
    if chunk:
        yield chunk


def _batch_errors(batch: Any) -> str:
    errors = getattr(batch, "errors", None)
    data = getattr(errors, "data", None) or (errors.get("data") if isinstance(errors, dict) else [])
    messages = [
        getattr(e, "message", None) or (e.get("message") if isinstance(e, dict) else "")
        for e in data or []
    ]
    return f": {'; '.join(m for m in messages if m)}" if any(messages) else ""
