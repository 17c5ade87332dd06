"""Provider-aware image size: send an image at the size the provider would scale it to anyway.

Some providers document how they shrink an image before the model sees it (OpenAI's high
detail fits the image within 2048×2048, then scales the short side down to 768 px). Sending a
larger image costs CPU and bytes on every call for nothing. The per-provider rules are data
(``provider_image_sizes.toml`` next to this module); :func:`send_size` picks the size for a
request's judge models: the largest any of them would keep, so no model sees fewer pixels
than before, and the original size when one of them has no rule (or
``provider_image_size`` is off).

Example:
    >>> from judge.config import JudgeSettings
    >>> send_size((1024, 1024), JudgeSettings(model="openai/gpt-4o"))
    (768, 768)
    >>> send_size((1024, 1024), JudgeSettings(model="openai/gpt-4o", api_base="http://x/v1"))
    (1024, 1024)
    >>> provider_view((4096, 2048), rule("openai-high-detail"))
    (1536, 768)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path

from judge.config import JudgeSettings

TABLE = Path(__file__).with_name("provider_image_sizes.toml")


@dataclass(frozen=True)
class SizeRule:
    """How one provider scales images down before its model sees them."""

    name: str
    models: tuple[str, ...]
    default_endpoint_only: bool = True
    fit_within: tuple[int, int] | None = None
    short_side: int | None = None
    max_side: int | None = None
    source: str = ""

    def matches(self, model: str, api_base: str | None) -> bool:
        """True when this rule covers calls to ``model`` (at ``api_base``)."""
        if api_base and self.default_endpoint_only:
            return False
        name = model.lower()
        names = {name} if "/" in name else {name, f"openai/{name}"}
        return any(fnmatchcase(n, p.lower()) for n in names for p in self.models)


@lru_cache(maxsize=1)
def rules() -> tuple[SizeRule, ...]:
    """The table, read once."""
    data = tomllib.loads(TABLE.read_text(encoding="utf-8"))
    out = []
    for entry in data.get("providers", []):
        fit = entry.get("fit_within")
        out.append(
            SizeRule(
                name=entry["name"],
                models=tuple(entry["models"]),
                default_endpoint_only=bool(entry.get("default_endpoint_only", True)),
                fit_within=(int(fit[0]), int(fit[1])) if fit else None,
                short_side=entry.get("short_side"),
                max_side=entry.get("max_side"),
                source=entry.get("source", ""),
            )
        )
    return tuple(out)


def rule(name: str) -> SizeRule:
    """The rule called ``name``; a ``KeyError`` lists the known ones."""
    for r in rules():
        if r.name == name:
            return r
    raise KeyError(f"no image size rule {name!r}; known: {[r.name for r in rules()]}")


def _scaled(size: tuple[int, int], factor: float) -> tuple[int, int]:
    if factor >= 1:
        return size
    return max(1, round(size[0] * factor)), max(1, round(size[1] * factor))


def provider_view(size: tuple[int, int], r: SizeRule) -> tuple[int, int]:
    """The size the provider's model sees for an image of ``size`` under rule ``r``."""
    w, h = size
    if r.fit_within:
        w, h = _scaled((w, h), min(r.fit_within[0] / w, r.fit_within[1] / h))
    if r.short_side:
        w, h = _scaled((w, h), r.short_side / min(w, h))
    if r.max_side:
        w, h = _scaled((w, h), r.max_side / max(w, h))
    return w, h


def send_size(size: tuple[int, int], settings: JudgeSettings) -> tuple[int, int]:
    """The size to send an image of ``size`` at to the request's judge models."""
    models = settings.models()
    if not settings.provider_image_size or not models or settings.resolved_backend() != "llm":
        return size
    best = (0, 0)
    for model in models:
        found = next((r for r in rules() if r.matches(model, settings.api_base)), None)
        if found is None:
            return size  # a model without a documented rule sees the image as before
        view = provider_view(size, found)
        best = max(best, view, key=lambda s: s[0] * s[1])
    return best
