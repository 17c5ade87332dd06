"""The outcome of one generation request: status, reason, PNG images, usage.

Statuses: ``ok`` (at least one image; fewer than asked is a partial success and says why in
``reason``), ``refused`` (the provider declined the prompt under its content policy),
``blocked`` (a safety or moderation filter withheld the output), ``empty`` (the provider
answered without image data), ``failed`` (anything else; ``reason`` says what to fix).

Example:
    >>> g = Generation.failed("backend b: no key", calls=0)
    >>> g.status, g.images, g.usage["calls"]
    ('failed', [], 0)
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Status = Literal["ok", "refused", "blocked", "empty", "failed"]


def usage(calls: int = 0, cost_usd: float = 0.0, latency_s: float = 0.0) -> dict[str, Any]:
    """The usage dict of a generation: provider calls, cost in USD (0 when unknown), wall time."""
    return {"calls": calls, "cost_usd": round(cost_usd, 6), "latency_s": round(latency_s, 4)}


class Generation(BaseModel):
    """What :meth:`ImageGenerator.generate` returns; it never raises for provider problems.

    In JSON (``model_dump_json``) the images are base64 strings.
    """

    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")

    status: Status
    reason: str | None = None
    images: list[bytes] = Field(default_factory=list)
    revised_prompt: str | None = None
    usage: dict[str, Any] = Field(default_factory=usage)

    @classmethod
    def failed(cls, reason: str, *, calls: int = 0, latency_s: float = 0.0) -> Generation:
        """A failure that produced nothing."""
        return cls(status="failed", reason=reason, usage=usage(calls, 0.0, latency_s))
