"""Start-up work that decides readiness.

``/readyz`` answers 200 only once :func:`warm_engine` has finished (the graph compiled, the
model gateway's provider code imported) and Redis answers.

Example (inside the lifespan)::

    state.engine_ready = False
    task = asyncio.create_task(warm(state))
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from typing import Any

from api.core.state import CoreState
from judge.agent.graph import compiled_graph

log = logging.getLogger("judge.api")
#: whether this process has frozen its start-up objects out of the garbage collector
_FROZEN: list[bool] = []


def warm_engine(judge: Any) -> None:
    """Blocking warm-up: compile the graph and load the gateway's provider code."""
    compiled_graph()
    warm = getattr(judge, "wait_warm", None)
    if callable(warm):
        result = warm()
        if asyncio.iscoroutine(result):  # an async warm-up runs on its own loop here
            asyncio.run(result)
        return
    models = judge.settings.models()
    if models:
        import litellm

        for model in models:
            with contextlib.suppress(Exception):  # an unknown provider fails at call time
                litellm.get_llm_provider(model)


async def warm(state: CoreState) -> None:
    """Run :func:`warm_engine` off the event loop, then mark the engine ready."""
    try:
        await asyncio.to_thread(warm_engine, state.judge)
    except Exception as exc:  # readiness reports it; the process stays up
        log.exception("engine warm-up failed")
        state.engine_ready = f"error: {type(exc).__name__}"
        return
    if not _FROZEN:  # once per process (an embedding or a test suite builds many apps)
        # everything loaded so far lives as long as the process: the garbage collector's
        # full passes stop walking it (hundreds of thousands of objects: litellm's price map,
        # the compiled graph, models), which cost every request CPU under load
        _FROZEN.append(True)
        gc.freeze()
    state.engine_ready = True
