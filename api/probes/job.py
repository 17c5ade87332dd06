"""The arq side of probe jobs, kept light: the worker registers :func:`run_probe_job` without
importing the probing engine (that happens when a probe job first runs).

Example::

    func(run_probe_job, name=PROBE_FUNCTION, max_tries=PROBE_MAX_TRIES + 3)
"""

from __future__ import annotations

from typing import Any

from api.probes.ids import PROBE_FUNCTION, PROBE_MAX_TRIES, probe_job_id

__all__ = ["PROBE_FUNCTION", "PROBE_MAX_TRIES", "probe_job_id", "run_probe_job"]


async def run_probe_job(ctx: dict[str, Any], probe_id: str) -> str:
    """The arq job: run (or resume) probe ``probe_id``; returns what happened for arq's log."""
    from api.probes.runner import ProbeJob

    return await ProbeJob(ctx, probe_id).run()
