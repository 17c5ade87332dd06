"""The provider-batch ledger: one SQLite file in the run folder (``journal.sqlite``) that
survives a crash.

It holds every deferred request (its full body, so it can be sent again), the state it is in,
the batch it went out with and, once answered, the reply and its usage; and every batch with
the provider's id, so a restarted run collects it instead of submitting it again.

Request states: ``pending`` (recorded, not yet sent) → ``submitted`` (in a batch) →
``answered`` (reply stored) or ``failed`` (an error no retry fixes), or ``direct`` (a failed
batch line that the run sends as a normal call; its reply is stored as ``answered``).

Batch states: ``uploading`` → ``creating`` (input file uploaded) → ``submitted`` (the provider
has it) → ``collected`` (its output is in the journal).

Example:
    >>> import tempfile, pathlib
    >>> j = BatchLedger(pathlib.Path(tempfile.mkdtemp()) / "journal.sqlite")
    >>> j.record("k1", "openai/gpt-4o", {"model": "gpt-4o", "messages": []})
    True
    >>> j.get("k1").state
    'pending'
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.errors import JudgeError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS requests (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, body TEXT NOT NULL, state TEXT NOT NULL,
    batch TEXT, attempts INTEGER NOT NULL DEFAULT 0, via TEXT, text TEXT, error TEXT,
    prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0,
    cost REAL NOT NULL DEFAULT 0, list_cost REAL NOT NULL DEFAULT 0, history TEXT
);
CREATE INDEX IF NOT EXISTS requests_state ON requests(state);
CREATE TABLE IF NOT EXISTS batches (
    local_id TEXT PRIMARY KEY, model TEXT NOT NULL, state TEXT NOT NULL, n INTEGER NOT NULL,
    input_path TEXT NOT NULL, file_id TEXT, batch_id TEXT, status TEXT,
    created REAL NOT NULL, updated REAL NOT NULL
);
"""


@dataclass(frozen=True)
class Row:
    """One request as journaled."""

    key: str
    model: str
    state: str
    attempts: int
    text: str | None
    error: str | None
    prompt_tokens: int
    completion_tokens: int
    cost: float


@dataclass(frozen=True)
class BatchRow:
    """One batch as journaled."""

    local_id: str
    model: str
    state: str
    n: int
    input_path: str
    file_id: str | None
    batch_id: str | None
    status: str | None


class BatchLedger:
    """The deferred requests and provider batches of one run (not the event journal of the
    eval workflows); writes are committed by :meth:`commit`."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        try:
            self.db = sqlite3.connect(path, check_same_thread=False, isolation_level="DEFERRED")
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.executescript(_SCHEMA)
            self.db.commit()
            problem = self.db.execute("PRAGMA quick_check").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            problem = str(exc)
        if problem != "ok":
            raise JudgeError(
                f"{path}: not a readable provider-batch journal ({problem}); move the run "
                "folder aside and start again (batches already submitted are billed once)"
            )

    def close(self) -> None:
        """Commit and close."""
        self.db.commit()
        self.db.close()

    def commit(self) -> None:
        """Make every change so far durable."""
        self.db.commit()

    # -- requests ------------------------------------------------------------------------------
    def get(self, key: str) -> Row | None:
        """The request under ``key``, if recorded."""
        cur = self.db.execute(
            "SELECT key, model, state, attempts, text, error, prompt_tokens, completion_tokens,"
            " cost FROM requests WHERE key = ?",
            (key,),
        )
        found = cur.fetchone()
        return Row(*found) if found else None

    def record(self, key: str, model: str, body: dict[str, Any]) -> bool:
        """Record a new pending request; False when the key is already known."""
        cur = self.db.execute(
            "INSERT OR IGNORE INTO requests(key, model, body, state) VALUES (?, ?, ?, 'pending')",
            (key, model, json.dumps(body, ensure_ascii=False)),
        )
        return cur.rowcount == 1

    def pending(self) -> dict[str, list[tuple[str, dict[str, Any]]]]:
        """Pending requests by model: ``(key, body)`` in recording order."""
        out: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        rows = self.db.execute(
            "SELECT key, model, body FROM requests WHERE state = 'pending' ORDER BY rowid"
        )
        for key, model, body in rows:
            out.setdefault(model, []).append((key, json.loads(body)))
        return out

    def count_pending(self) -> int:
        """How many requests wait to be submitted."""
        return self.db.execute("SELECT COUNT(*) FROM requests WHERE state = 'pending'").fetchone()[
            0
        ]

    def answer(
        self,
        key: str,
        text: str,
        *,
        via: str,
        usage: tuple[int, int] = (0, 0),
        cost: float = 0.0,
        list_cost: float = 0.0,
    ) -> None:
        """Store a reply (from a batch line or a direct call)."""
        self.db.execute(
            "UPDATE requests SET state = 'answered', via = ?, text = ?, error = NULL,"
            " prompt_tokens = ?, completion_tokens = ?, cost = ?, list_cost = ? WHERE key = ?",
            (via, text, usage[0], usage[1], cost, list_cost, key),
        )

    def set_state(self, key: str, state: str, error: str | None = None) -> None:
        """Move a request to ``state`` (``pending`` again, ``direct`` or ``failed``), keeping
        the error that sent it there in its history."""
        self.db.execute(
            "UPDATE requests SET state = ?, error = ?,"
            " history = COALESCE(history || char(10), '') || ? WHERE key = ?",
            (state, error, f"{state}: {error or ''}", key),
        )

    def in_batch(self, local_id: str, state: str = "submitted") -> list[str]:
        """Keys of the requests of batch ``local_id`` still in ``state``."""
        rows = self.db.execute(
            "SELECT key FROM requests WHERE batch = ? AND state = ?", (local_id, state)
        )
        return [k for (k,) in rows]

    def bodies(self, keys: list[str]) -> list[tuple[str, dict[str, Any]]]:
        """``(key, body)`` for these keys."""
        out = []
        for key in keys:
            (body,) = self.db.execute("SELECT body FROM requests WHERE key = ?", (key,)).fetchone()
            out.append((key, json.loads(body)))
        return out

    # -- batches -------------------------------------------------------------------------------
    def new_batch(self, local_id: str, model: str, keys: list[str], input_path: Path) -> None:
        """Journal a batch about to be uploaded; its requests become ``submitted``."""
        now = time.time()
        self.db.execute(
            "INSERT INTO batches(local_id, model, state, n, input_path, created, updated)"
            " VALUES (?, ?, 'uploading', ?, ?, ?, ?)",
            (local_id, model, len(keys), str(input_path), now, now),
        )
        self.db.executemany(
            "UPDATE requests SET state = 'submitted', batch = ?, attempts = attempts + 1"
            " WHERE key = ?",
            [(local_id, k) for k in keys],
        )

    def update_batch(self, local_id: str, **fields: str | None) -> None:
        """Set ``state``, ``file_id``, ``batch_id`` and/or ``status`` of a batch."""
        allowed = {"state", "file_id", "batch_id", "status"}
        if not set(fields) <= allowed:
            raise ValueError(f"unknown batch field(s): {sorted(set(fields) - allowed)}")
        sets = ", ".join(f"{k} = ?" for k in fields)
        self.db.execute(
            f"UPDATE batches SET {sets}, updated = ? WHERE local_id = ?",
            (*fields.values(), time.time(), local_id),
        )

    def batches(self, *states: str) -> list[BatchRow]:
        """Batches in any of ``states`` (all when none given), oldest first."""
        sql = "SELECT local_id, model, state, n, input_path, file_id, batch_id, status FROM batches"
        args: tuple[str, ...] = ()
        if states:
            sql += f" WHERE state IN ({','.join('?' * len(states))})"
            args = states
        return [BatchRow(*r) for r in self.db.execute(sql + " ORDER BY created", args)]

    # -- accounting ----------------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """Counts by state and route, tokens, cost at batch prices and at list prices."""
        states = dict(self.db.execute("SELECT state, COUNT(*) FROM requests GROUP BY state"))
        via = dict(
            self.db.execute(
                "SELECT via, COUNT(*) FROM requests WHERE state = 'answered' GROUP BY via"
            )
        )
        pt, ct, cost, list_cost = self.db.execute(
            "SELECT COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0),"
            " COALESCE(SUM(cost), 0), COALESCE(SUM(list_cost), 0) FROM requests"
            " WHERE state = 'answered'"
        ).fetchone()
        resent = self.db.execute(
            "SELECT COUNT(*) FROM requests WHERE history IS NOT NULL"
        ).fetchone()[0]
        return {
            "batches": len(self.batches()),
            "requests": sum(states.values()),
            "states": states,
            "answered_via": via,
            "requests_with_failed_lines": resent,
            "prompt_tokens": pt,
            "completion_tokens": ct,
            "cost_usd": round(cost, 6),
            "list_price_usd": round(list_cost, 6),
            "saved_usd": round(list_cost - cost, 6),
        }
