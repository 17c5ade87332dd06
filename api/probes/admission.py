"""Whether a probe may start: the API's bounds on its options, the server's models, its
worst-case plan against the budget, the key's rate limit (charged by planned nodes) and the
key's cap on running probes. Nothing is stored or queued for a refused probe.

Example (inside ``POST /v1/probes``)::

    admitted = await admit(state, params, key)
    admitted.probe_id, admitted.plan      # stored as running, ready to queue
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aredis
from fastapi import HTTPException

from api.core.clock import Clock, seconds_left, window
from api.core.errors import error_body
from api.core.limits import charge
from api.jobs.store import owner_tag
from api.probes.budget import out_of_bounds, over_budget, plan_probe
from api.probes.meter import prices_for
from api.probes.runner import BackendsError
from api.state import ServiceState
from eval.probing.params import ProbeParams
from eval.probing.setup import writer_model


@dataclass(frozen=True)
class Admitted:
    """A probe stored as running: its id and its plan, limits included."""

    probe_id: str
    plan: dict[str, Any]


def _bad(status: int, code: str, message: str, field: str | None = None) -> HTTPException:
    return HTTPException(status, error_body(code, message, field))


async def admit(state: ServiceState, params: ProbeParams, key: str) -> Admitted:
    """Check ``params`` and store the probe as running; a 4xx :class:`HTTPException` names
    the first problem."""
    settings, redis, budget = state.settings, state.redis, state.probe_budget
    bounded = out_of_bounds(params, budget)
    if bounded:
        raise _bad(422, "over_bound", bounded[1], bounded[0])
    try:
        backends = state.t2i_backends()
    except BackendsError as exc:
        raise _bad(400, "not_configured", str(exc), "backend") from None
    if params.backend not in backends:
        raise _bad(
            400,
            "unknown_backend",
            f"backend: {params.backend!r} is not configured here; known: {sorted(backends)}",
            "backend",
        )
    judge = state.judge
    try:
        writer = writer_model(params, judge)  # the judge must be an LLM either way
    except ValueError as exc:
        raise _bad(400, "not_configured", str(exc), "backend") from None
    writer = budget.writer_model or writer
    models = judge.settings.models()
    prices = await asyncio.to_thread(
        prices_for, budget, backends[params.backend], writer, models[0] if models else None
    )
    plan = plan_probe(params, prices.image, prices.model_call)
    problem = over_budget(plan, budget)
    if problem:
        raise _bad(
            422,
            "over_budget",
            f"{problem}; make the probe smaller (depth, topics, inputs, images, "
            "max_split_tests) — nothing was started",
            "(body)",
        )
    store = state.probes
    owner = owner_tag(key)
    cap = budget.max_running_per_key
    if await store.running(owner) >= cap:
        raise _too_many(cap)
    # a probe costs its planned nodes in rate-limit units (one was spent on the request)
    clock = state.clock
    await charge(redis, key, settings.rate_limit_per_minute, plan.nodes - 1, clock=clock)
    await _count_start(redis, owner, budget.max_starts_per_key_per_hour, clock)
    stored = {"plan": plan.as_dict(), "limits": budget.limits()}
    probe_id = await store.create(params.model_dump(), params.backend, owner, cap=cap, plan=stored)
    if probe_id is None:
        raise _too_many(cap)
    return Admitted(probe_id, stored)


async def _count_start(redis: aredis.Redis, owner: str, limit: int, clock: Clock) -> None:
    """One more probe start of ``owner`` this hour of ``clock``; 429 past ``limit`` (a start
    that is cancelled at once still counts: starting and cancelling cannot run without bound)."""
    name = f"judge:rate:probestarts:{owner}:{window(clock, 3600)}"
    started = await redis.incr(name)
    if started == 1:
        await redis.expire(name, 7200)
    if started > limit:
        raise HTTPException(
            429,
            error_body(
                "too_many_probe_starts",
                f"this key started {limit} probes this hour "
                "(JUDGE_PROBE_MAX_STARTS_PER_KEY_PER_HOUR); start the next one after the hour",
            ),
            headers={"Retry-After": str(seconds_left(clock, 3600))},
        )


def _too_many(cap: int) -> HTTPException:
    return HTTPException(
        429,
        error_body(
            "too_many_probes",
            f"this key has {cap} probe(s) running (JUDGE_PROBE_MAX_RUNNING_PER_KEY); wait for "
            "one to finish or stop one with DELETE /v1/probes/{id}",
        ),
    )
