"""How arq knows a probe job: its function name, its job id and how often it may run.

Shared by :mod:`api.probes.job` (the light side the worker registers) and
:mod:`api.probes.runner` (which enqueues and runs probes), so neither imports the other for
them.

Example:
    >>> probe_job_id("ab12"), PROBE_FUNCTION
    ('probe:ab12', 'run_probe')
"""

from __future__ import annotations

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
