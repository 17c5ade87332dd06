"""Service settings (pydantic-settings, ``JUDGE_*`` environment; ``REDIS_URL`` for Redis).

Example:
    >>> s = ServiceSettings(api_keys="a,b")
    >>> s.api_keys, s.auth_required
    (['a', 'b'], True)
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from judge.config import user_data_dir


class ServiceSettings(BaseSettings):
    """How the HTTP service and its workers run."""

    model_config = SettingsConfigDict(env_prefix="JUDGE_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=0, le=65535)
    api_keys: Annotated[list[str], NoDecode] = Field(default_factory=list)
    admin_keys: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="keys that may also change memories (JUDGE_ADMIN_KEYS); with keys "
        "configured, memory writes need one of these",
    )
    allow_open_public: bool = Field(
        default=False, description="serve on a public address without API keys"
    )
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Host names this service answers for (JUDGE_ALLOWED_HOSTS, comma-separated; "
        "'*' = any). Without API keys, loopback names are always allowed and nothing else is",
    )
    trusted_proxies: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="addresses of reverse proxies whose X-Forwarded-For/-Proto are believed "
        "(JUDGE_TRUSTED_PROXIES, comma-separated); empty = proxy headers are ignored",
    )
    redis_url: str | None = Field(
        default=None, validation_alias=AliasChoices("REDIS_URL", "JUDGE_REDIS_URL")
    )
    data_dir: Path = Field(
        default_factory=lambda: user_data_dir("service"),
        description="private Redis and uploaded exemplar images (default: "
        "$JUDGE_HOME/service, i.e. ~/.local/share/t2i-judge/service)",
    )

    max_body_bytes: int = Field(default=48 * 1024 * 1024, ge=1024)
    max_image_bytes: int = Field(default=20 * 1024 * 1024, ge=1024)
    max_image_pixels: int = Field(default=40_000_000, ge=1)
    max_batch_items: int = Field(default=10_000, ge=1)
    allow_remote_images: bool = False
    rate_limit_per_minute: int = Field(
        default=0, ge=0, description="per key; a batch of N items costs N; 0 = off"
    )
    poll_rate_limit_per_minute: int | None = Field(
        default=None,
        ge=0,
        description="per key, for GET /v1/batches/{id}[/results]; default 10 x the rate limit",
    )
    auth_failures_per_minute: int = Field(
        default=60, ge=0, description="wrong or missing keys per client address; 0 = off"
    )
    max_request_pixels: int = Field(
        default=64_000_000, ge=1, description="decoded pixels per request, summed over images"
    )
    decode_budget_pixels: int = Field(
        default=160_000_000,
        ge=1,
        description="decoded pixels held at once by all requests of one process; requests "
        "wait for room (503 after decode_wait_s)",
    )
    decode_wait_s: float = Field(default=30.0, gt=0)
    allow_local_backend: bool = Field(
        default=False,
        description="let requests ask for backend 'local' (CPU-heavy models in the API process)",
    )
    reconcile_interval_s: float = Field(
        default=30.0, gt=0, description="how often stalled batches are re-queued"
    )
    score_timeout_s: float = Field(default=600.0, gt=0)
    cache_ttl_s: int = Field(default=7 * 24 * 3600, ge=0)
    batch_ttl_s: int = Field(default=7 * 24 * 3600, ge=60)
    worker_concurrency: int = Field(default=8, ge=1, le=256)
    inline_workers: int = Field(
        default=0,
        ge=0,
        le=16,
        description="batch workers inside each API process (judge serve starts one by default)",
    )
    job_timeout_s: int = Field(default=900, ge=10)

    @field_validator("api_keys", "admin_keys", "allowed_hosts", "trusted_proxies", mode="before")
    @classmethod
    def _split(cls, v: Any) -> Any:
        if isinstance(v, str):
            return [k.strip() for k in v.split(",") if k.strip()]
        return v

    @property
    def auth_required(self) -> bool:
        """True when API keys (ordinary or admin) are configured."""
        return bool(self.api_keys or self.admin_keys)

    @property
    def all_keys(self) -> list[str]:
        """Every key that may call ``/v1`` (admin keys included)."""
        return [*self.api_keys, *self.admin_keys]

    @property
    def loopback_only(self) -> bool:
        """True when the service binds a loopback address only."""
        return self.host in ("127.0.0.1", "localhost", "::1")

    @property
    def poll_limit(self) -> int:
        """The per-minute budget of batch polling (0 = off)."""
        if self.poll_rate_limit_per_minute is not None:
            return self.poll_rate_limit_per_minute
        return self.rate_limit_per_minute * 10

    def check_bind(self) -> str | None:
        """An error message when the service would be open to the network without keys."""
        if self.auth_required or self.allow_open_public:
            return None
        if self.loopback_only:
            return None
        return (
            f"refusing to serve on {self.host} without API keys: set JUDGE_API_KEYS, "
            "bind 127.0.0.1, or set JUDGE_ALLOW_OPEN_PUBLIC=true deliberately"
        )
