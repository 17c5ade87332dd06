"""The answer of ``/healthz`` and ``/readyz``.

Example:
    >>> Health(status="ok").model_dump()
    {'status': 'ok', 'checks': {}}
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Health(BaseModel):
    """Liveness/readiness answer."""

    status: Literal["ok", "unavailable"]
    checks: dict[str, str] = Field(default_factory=dict)
