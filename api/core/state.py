"""The service's state, typed: what every route reads (settings, clock, Redis, the engine, the
job queue), set once while the app starts and reached through :func:`core_state`.

``create_app`` builds one :class:`api.state.ServiceState` (this class plus the parts of the
feature packages: probe backends, stores) and keeps it as ``app.state.service``, the only
attribute the service sets on ``app.state``. The fields that need a running event loop
(Redis, the engine, the queue) are filled by the lifespan before the first request; reading
one earlier is an ``AttributeError`` naming it.

Example::

    state = core_state(request.app)
    await charge(state.redis, key, state.settings.rate_limit_per_minute, clock=state.clock)
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aredis

from api.core.clock import WALL_CLOCK, Clock
from api.core.redis_embedded import EmbeddedRedis
from api.core.settings import ServiceSettings
from judge.engine import Judge
from judge.io.pixel_budget import PixelBudget

ATTRIBUTE = "service"
"""The one attribute of ``app.state`` the service sets."""


@dataclass(eq=False)
class CoreState:
    """The part of the service's state that :mod:`api.core` reads (see the module)."""

    settings: ServiceSettings
    clock: Clock = WALL_CLOCK
    # filled by the lifespan (api.app.lifespan), in this order
    redis_url: str = field(init=False, repr=False)
    redis: aredis.Redis = field(init=False, repr=False)
    embedded_redis: EmbeddedRedis | None = field(init=False, repr=False, default=None)
    judge: Judge = field(init=False, repr=False)
    pixel_budget: PixelBudget | None = field(init=False, repr=False, default=None)
    queue: Any = field(init=False, repr=False, default=None)  # arq's ArqRedis once the pool is up
    engine_ready: bool | str = field(init=False, repr=False, default=False)  # or "error: <Type>"
    inline_tasks: list[asyncio.Task[None]] = field(init=False, repr=False, default_factory=list)

    @property
    def started(self) -> bool:
        """True once the lifespan has connected Redis and built the engine."""
        return "judge" in self.__dict__


def clock_of(app: Any) -> Clock:
    """The clock of ``app``'s rate limits (set by ``create_app(clock=...)``)."""
    return core_state(app).clock


def core_state(app: Any) -> CoreState:
    """The state of ``app`` (a FastAPI app made by ``create_app``).

    Raises a ``RuntimeError`` naming ``create_app`` for an app built another way.
    """
    state = getattr(app.state, ATTRIBUTE, None)
    if not isinstance(state, CoreState):
        raise RuntimeError("this app has no service state: build it with api.app.create_app")
    return state
