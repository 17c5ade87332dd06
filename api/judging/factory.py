"""The service's one place where the scoring engine is built (API processes and workers).

Example::

    judge = build_judge(ServiceSettings(), redis)      # redis: a redis.asyncio client
"""

from __future__ import annotations

from typing import Any

from api.core.settings import ServiceSettings
from api.judging.response_cache import RedisResponseCache
from judge.config import JudgeSettings
from judge.engine import Judge


def engine_settings(settings: ServiceSettings) -> JudgeSettings:
    """The engine's settings under the service's input limits (no server-side paths)."""
    return JudgeSettings().merged(
        allow_local_paths=False,
        allow_remote_images=settings.allow_remote_images,
        image_max_bytes=settings.max_image_bytes,
        image_max_pixels=settings.max_image_pixels,
    )


def build_judge(settings: ServiceSettings, redis: Any) -> Judge:
    """A Judge with the service's limits and a response cache in ``redis``."""
    cache = RedisResponseCache(redis, ttl_s=settings.cache_ttl_s)
    return Judge(engine_settings(settings), cache=cache)
