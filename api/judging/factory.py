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


def engine_settings() -> JudgeSettings:
    """The engine's settings with no server-side paths. The image caps and remote images are
    the engine's own settings (``JUDGE_IMAGE_MAX_BYTES``, ``JUDGE_IMAGE_MAX_PIXELS``,
    ``JUDGE_ALLOW_REMOTE_IMAGES``; the service's old names still work, with a warning)."""
    return JudgeSettings().merged(allow_local_paths=False)


def build_judge(settings: ServiceSettings, redis: Any) -> Judge:
    """A Judge with the service's limits and a response cache in ``redis``."""
    cache = RedisResponseCache(redis, ttl_s=settings.cache_ttl_s)
    return Judge(engine_settings(), cache=cache)
