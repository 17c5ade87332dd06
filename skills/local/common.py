"""Helpers shared by the local kinds: decoded images and lazily loaded, cached models.

Example:
    >>> unscored_scores(["a"], "why")["a"].reason
    'why'
"""

from __future__ import annotations

import base64
import io
import threading
from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

from PIL import Image

from skills.types import Cause, ImagePayload, ScoreValue, VerdictValue

T = TypeVar("T")
_LOCK = threading.Lock()
_MODELS: dict[str, Any] = {}


@lru_cache(maxsize=64)
def _decode(sha256: str, data_url: str) -> Image.Image:
    payload = data_url.split(",", 1)[1]
    img = Image.open(io.BytesIO(base64.b64decode(payload)))
    img.load()
    return img.convert("RGB")


def payload_image(image: ImagePayload) -> Image.Image:
    """The RGB image behind a payload (decoded once per content hash)."""
    return _decode(image.sha256, image.data_url)


def shared_model(name: str, load: Callable[[], T]) -> T:
    """Load a model once per process (thread-safe); later calls reuse it."""
    with _LOCK:
        if name not in _MODELS:
            _MODELS[name] = load()
        return _MODELS[name]


def unscored_scores(
    dims: list[str], reason: str, cause: Cause = Cause.NO_MODEL
) -> dict[str, ScoreValue]:
    """Every dimension unscored with ``cause`` and ``reason``."""
    return {d: ScoreValue.unscored(cause, reason) for d in dims}


def unscored_verdicts(
    ids: list[str], reason: str, cause: Cause = Cause.NO_MODEL
) -> dict[str, VerdictValue]:
    """Every checkpoint unscored with ``cause`` and ``reason``."""
    return {i: VerdictValue.unscored(cause, reason) for i in ids}
