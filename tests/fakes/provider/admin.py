"""Runtime settings of a fake provider and its ``/_admin`` endpoints (to steer a fake that
runs in another process, see :mod:`tests.fakes.provider.process`).

- ``GET /_admin/stats`` → ``{"api", "calls", "rejected", "fault_counts", "rate_limited",
  "held", "held_by", "config"}``;
- ``POST /_admin/config`` with any of latency, jitter, hang_s, fault_rate, fault_kinds, seed,
  rate_limit (requests per second, 0: none; :mod:`tests.fakes.provider.ratelimit`);
- ``POST /_admin/reset`` forgets calls, scripted replies and faults;
- ``POST /_admin/gate`` with ``{"hold": true}`` holds every call after it arrives,
  ``{"hold": false}`` lets them all go on (see :mod:`tests.fakes.provider.gate`); stats
  say how many are ``held`` and ``held_by`` which API key.

Example::

    fake.configure(latency=0.2, fault_rate=0.1, fault_kinds="429,529")
    fake.config()["fault_kinds"]  # ["429", "529"]
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from tests.fakes.provider.faults import FaultInjector
from tests.fakes.provider.gate import Gate
from tests.fakes.provider.ratelimit import RateLimit

_CONFIG_KEYS = {"latency", "jitter", "hang_s", "fault_rate", "fault_kinds", "seed", "rate_limit"}


class AdminMixin:
    """Settings and admin routes of :class:`~tests.fakes.provider.base.LoopbackFake`."""

    api: str
    latency: float
    jitter: float
    hang_s: float
    faults: FaultInjector
    rate_limit: RateLimit
    gate: Gate
    _seed: int
    calls: int
    rejected: list[tuple[str, str]]
    fault_counts: dict[str, int]

    def reset(self) -> None:  # pragma: no cover - LoopbackFake overrides it
        raise NotImplementedError

    def _error(self, status: int, kind: str, message: str) -> web.Response:  # pragma: no cover
        raise NotImplementedError

    def config(self) -> dict[str, Any]:
        """Current latency, jitter, hang and fault settings."""
        return {
            "latency": self.latency,
            "jitter": self.jitter,
            "hang_s": self.hang_s,
            "rate_limit": self.rate_limit.rate,
            **self.faults.settings,
        }

    def configure(self, **changes: Any) -> dict[str, Any]:
        """Change any of latency, jitter, hang_s, fault_rate, fault_kinds, seed, rate_limit;
        return the config."""
        unknown = set(changes) - _CONFIG_KEYS
        if unknown:
            raise ValueError(f"unknown setting(s) {sorted(unknown)}; known: {sorted(_CONFIG_KEYS)}")
        for key in ("latency", "jitter", "hang_s"):
            if key in changes:
                setattr(self, key, float(changes[key]))
        if "rate_limit" in changes:
            self.rate_limit.configure(float(changes["rate_limit"]))
        if {"fault_rate", "fault_kinds", "seed"} & set(changes):
            current = self.faults.settings
            kinds = changes.get("fault_kinds", current["fault_kinds"])
            if isinstance(kinds, str):
                kinds = [k.strip() for k in kinds.split(",") if k.strip()]
            self._seed = int(changes.get("seed", current["seed"]))
            rate = float(changes.get("fault_rate", current["fault_rate"]))
            self.faults.set_rate(rate, kinds, self._seed)
        return self.config()

    def _add_admin_routes(self, app: web.Application) -> None:
        app.router.add_get("/_admin/stats", self._stats)
        app.router.add_post("/_admin/config", self._config)
        app.router.add_post("/_admin/reset", self._reset)
        app.router.add_post("/_admin/gate", self._gate)

    async def _stats(self, request: web.Request) -> web.Response:
        stats = {
            "api": self.api,
            "calls": self.calls,
            "rejected": len(self.rejected),
            "fault_counts": self.fault_counts,
            "rate_limited": self.rate_limit.refused,
            "held": self.gate.held,
            "held_by": self.gate.held_by(),
            "config": self.config(),
        }
        return web.json_response(stats)

    async def _config(self, request: web.Request) -> web.Response:
        try:
            changes = json.loads(await request.text() or "{}")
            if not isinstance(changes, dict):
                raise ValueError("config body must be a JSON object")
            return web.json_response(self.configure(**changes))
        except (ValueError, TypeError) as exc:
            return self._error(400, "invalid_request_error", str(exc))

    async def _gate(self, request: web.Request) -> web.Response:
        try:
            body = json.loads(await request.text() or "{}")
            hold = body["hold"] if isinstance(body, dict) else None
        except (ValueError, KeyError):
            hold = None
        if not isinstance(hold, bool):
            return self._error(400, "invalid_request_error", 'gate body is {"hold": true|false}')
        if hold:
            self.gate.hold()
        else:
            self.gate.open()
        return web.json_response({"hold": hold, "held": self.gate.held})

    async def _reset(self, request: web.Request) -> web.Response:
        self.reset()
        return web.json_response({"ok": True})
