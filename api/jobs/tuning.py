"""The batch workers' own knobs (``JUDGE_WORKER_*``), in a module of their own so that the
configuration reference (:mod:`api.configuration`) reads them without importing the worker.

Example:
    >>> WorkerTuning(lease_s=10).lease_s
    10.0
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from judge.config_env import ProjectSettings, renamed


class WorkerTuning(ProjectSettings):
    """Knobs that only the batch workers read (``JUDGE_WORKER_*``); what the API's routes
    share with them (the item timeout, the batch TTL) is in the service settings."""

    model_config = SettingsConfigDict(env_prefix="JUDGE_WORKER_", extra="ignore")

    concurrency: int = Field(
        default=8, ge=1, le=256, description="batch items one worker scores at once"
    )
    job_timeout_s: int = Field(
        default=900,
        ge=10,
        description="arq's timeout of one batch item's job",
        json_schema_extra=renamed("JUDGE_JOB_TIMEOUT_S"),
    )

    lease_s: float = Field(
        default=30.0, ge=2, description="in-progress lock lease while an item runs"
    )
    queue_read_limit: int = Field(
        default=1000,
        ge=10,
        description="job ids read per poll; keep above the fleet's total concurrency",
    )
    poll_delay_s: float = Field(
        default=0.5, gt=0, description="wait between polls of the queue for new jobs"
    )
