"""The stored probe, typed: the Redis hash ``judge:probe:{id}:meta`` that ``POST /v1/probes``
writes (:class:`api.probes.store.ProbeStore`), read only through :class:`ProbeRecord`.

Each field of the hash is a string, as the service always wrote it: ``params``, ``plan`` and
``spent`` are ``json.dumps`` of objects, times are ``repr`` of epoch seconds;
:meth:`ProbeRecord.hash_fields` writes the fields that were set, so a record read and
written again keeps every byte. ``status`` is ``running`` until the probe ends as ``done``,
``failed``, ``stopped`` or ``cancelled``; ``error`` and ``finished_at`` appear when it ends.

Example:
    >>> rec = ProbeRecord.from_hash({b"owner": b"o1", b"params": b'{"topic": "cats"}',
    ...     b"backend": b"flux", b"status": b"running", b"created_at": b"1.5",
    ...     b"plan": b'{"limits": {"images": 10}}', b"spent": b"{}"})
    >>> rec.params["topic"], rec.running, rec.created_at, rec.plan["limits"]
    ('cats', True, 1.5, {'images': 10})
    >>> rec.hash_fields()["created_at"], rec.hash_fields()["plan"]
    ('1.5', '{"limits": {"images": 10}}')
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Status = Literal["running", "done", "failed", "stopped", "cancelled"]
_JSON_FIELDS = ("params", "plan", "spent")
_TIME_FIELDS = ("created_at", "finished_at")


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class ProbeRecord(BaseModel):
    """One probe as stored: whose it is, its options, the backend it probes, where it is and
    what it planned and spent so far (``plan`` holds the worst-case ``plan`` and the
    ``limits`` it was admitted with)."""

    # extra="allow": a field written by a newer service survives a read and write here
    model_config = ConfigDict(extra="allow", allow_inf_nan=False)

    owner: str
    params: dict[str, Any]
    backend: str
    status: Status = "running"
    error: str | None = None
    created_at: float | None = None
    finished_at: float | None = None
    plan: dict[str, Any] = Field(default_factory=dict)
    spent: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def from_hash(cls, raw: dict[bytes, bytes] | dict[str, str]) -> ProbeRecord:
        """A record from the hash's fields (bytes as Redis answers, or text)."""
        fields: dict[str, Any] = {_text(k): _text(v) for k, v in raw.items()}
        for name in _JSON_FIELDS:
            if fields.get(name):
                fields[name] = json.loads(fields[name])
            else:  # an empty value reads as an empty object
                fields.pop(name, None)
        for name in _TIME_FIELDS:
            fields[name] = float(fields[name]) if fields.get(name) else None
        return cls.model_validate(fields)

    def hash_fields(self) -> dict[str, str]:
        """The hash's fields as the service writes them, in declared order (the set ones)."""
        out: dict[str, str] = {}
        for name, value in self.model_dump(mode="json", exclude_unset=True).items():
            if name in _JSON_FIELDS:
                out[name] = json.dumps(value)
            elif name in _TIME_FIELDS:
                if value is not None:
                    out[name] = repr(float(value))
            elif value is not None:
                out[name] = value if isinstance(value, str) else json.dumps(value)
        return out

    @property
    def running(self) -> bool:
        """True until the probe ends (the first end wins)."""
        return self.status == "running"

    @property
    def limits(self) -> dict[str, Any]:
        """The limits the probe was admitted with (empty for a probe stored without a plan)."""
        return self.plan.get("limits") or {}
