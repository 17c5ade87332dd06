"""The arq side of probe jobs, kept light: the worker registers :func:`run_probe_job` without
importing the probing engine (that happens when a probe job first runs).

Example::

    func(run_probe_job, name=PROBE_FUNCTION, max_tries=PROBE_MAX_TRIES + 3)
"""

from __future__ import annotations

from typing import Any

PROBE_FUNCTION = "run_probe"
"""The arq function name of a probe job."""
PROBE_MAX_TRIES = 10
"""Runs of one probe job (worker crashes included) before the probe is failed."""


def probe_job_id(probe_id: str) -> str:
    """The arq job id of a probe (arq refuses a second job with the same id).

    Example:
        >>> probe_job_id("ab12")
        'probe:ab12'
    """
    return f"probe:{probe_id}"


async def run_probe_job(ctx: dict[str, Any], probe_id: str) -> str:
    """The arq job: run (or resume) probe ``probe_id``; returns what happened for arq's log."""
    from api.probes.runner import ProbeJob

    return await ProbeJob(ctx, probe_id).run()
