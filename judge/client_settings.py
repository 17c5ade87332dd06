"""The service client's environment: ``JUDGE_SERVICE_KEY``, the key :class:`judge.Client`
and :class:`judge.AsyncClient` send when none is given.

Example:
    >>> ClientSettings(key="k1").key.get_secret_value()
    'k1'
"""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from judge.config_env import ProjectSettings


class ClientSettings(ProjectSettings):
    """What a client of the service reads from the environment (``JUDGE_SERVICE_*``)."""

    model_config = SettingsConfigDict(env_prefix="JUDGE_SERVICE_", extra="ignore")

    key: SecretStr | None = Field(
        default=None, description="the API key sent as Authorization: Bearer when none is given"
    )
