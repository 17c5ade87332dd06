"""Exports streamed from the answer log: memory that does not grow with the campaign.

``GET /v1/campaigns/{id}/votes`` (and ``/ratings``, ``/attempts``) read the log in chunks of
:data:`CHUNK` entries (``LRANGE``), up to its length when the export started (answers that
arrive meanwhile wait for the next export). Votes and ratings need the QC flags first, so
they read the log twice: once for the QC flags (:class:`eval.campaigns.report.Flags` keeps
per-annotator tallies, not the answers), once to write the rows. Both passes stop at the
same entry (:class:`Checked` carries it), so no row is written that QC has not seen. Each
chunk is parsed and written off the event loop (``orjson``: parsing and writing JSON are most
of the work), and sent before the next is read.

Example::

    checked = await excluded_annotators(store, record)
    async for part in table_parts(store, record, checked, "csv"):
        ...  # bytes: the header and first rows, then more rows
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import orjson

from api.campaigns.store import CampaignStore
from eval.campaigns.exports import RATING_FIELDS, VOTE_FIELDS, rating_rows, to_csv, vote_rows
from eval.campaigns.record import CampaignRecord
from eval.campaigns.report import Flags

CHUNK = 10_000
"""Log entries read, parsed and written at a time."""


@dataclass(frozen=True)
class Checked:
    """The QC pass of one export: the annotators it excludes, and how many log entries it read
    (the rows pass reads exactly those: answers logged in between wait for the next export)."""

    excluded: set[str]
    end: int


async def _chunks(
    store: CampaignStore, cid: str, end: int | None = None
) -> AsyncIterator[list[bytes]]:
    """The raw log entries as stored, in order, a chunk at a time, up to entry ``end``
    (default: the log's length now)."""
    if end is None:
        end = await store.log_length(cid)
    for start in range(0, end, CHUNK):
        yield await store.log_slice(cid, start, min(start + CHUNK, end) - 1)


def _parse(raw: list[bytes]) -> list[dict[str, Any]]:
    return [orjson.loads(x) for x in raw]


async def excluded_annotators(store: CampaignStore, record: CampaignRecord) -> Checked:
    """The annotators QC flags, and the log length this pass read up to (one pass over the
    log; the rules keep tallies only)."""
    flags = Flags(record)

    def fold(raw: list[bytes]) -> None:
        flags.add(_parse(raw))

    end = await store.log_length(record.id)
    async for raw in _chunks(store, record.id, end):
        await asyncio.to_thread(fold, raw)
    people = await asyncio.to_thread(flags.result)
    return Checked({a for a, p in people.items() if p["flagged"]}, end)


def _render(
    record: CampaignRecord, raw: list[bytes], excluded: set[str], fmt: str, header: bool
) -> bytes:
    answers = _parse(raw)
    fields: tuple[str, ...]
    if record.kind == "rating":
        rows, fields = rating_rows(record, answers, excluded), RATING_FIELDS
    else:
        rows, fields = vote_rows(record, answers, excluded), VOTE_FIELDS
    if fmt == "csv":
        return to_csv(rows, fields, header=header).encode()
    return b"".join(orjson.dumps(r) + b"\n" for r in rows)


async def table_parts(
    store: CampaignStore, record: CampaignRecord, checked: Checked, fmt: str
) -> AsyncIterator[bytes]:
    """The votes (or ratings) table as ``fmt`` (``jsonl`` or ``csv``), a chunk of the log
    at a time (the CSV header first, even for an empty log), up to the entry QC read to."""
    header, excluded = fmt == "csv", checked.excluded
    async for raw in _chunks(store, record.id, checked.end):
        yield await asyncio.to_thread(_render, record, raw, excluded, fmt, header)
        header = False
    if header:
        yield await asyncio.to_thread(_render, record, [], excluded, fmt, True)


async def attempt_lines(store: CampaignStore, cid: str) -> AsyncIterator[bytes]:
    """Every logged attempt as stored (one JSON object per line), oldest first."""
    async for raw in _chunks(store, cid):
        yield b"".join(x + b"\n" for x in raw)
