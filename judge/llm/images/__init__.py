"""Text-to-image backends: any litellm image model, an OpenAI-images-compatible endpoint, or
the deterministic built-in renderer (NOT a model), behind one :class:`ImageGenerator`.

Example:
    >>> import asyncio
    >>> spec = BackendSpec(id="demo", model="builtin/renderer", size="64x64")
    >>> asyncio.run(ImageGenerator().generate(spec, "a red cube", 1)).status
    'ok'
"""

from judge.llm.images.builtin import BUILTIN_RENDERERS, LABEL, register_renderer, render_card
from judge.llm.images.generation import Generation, Status
from judge.llm.images.generator import ImageGenerator
from judge.llm.images.pricing import estimate_cost_usd
from judge.llm.images.spec import (
    BackendConfigError,
    BackendSpec,
    backends_from_env,
    load_backends,
    parse_backends,
)

__all__ = [
    "BUILTIN_RENDERERS",
    "LABEL",
    "BackendConfigError",
    "BackendSpec",
    "Generation",
    "ImageGenerator",
    "Status",
    "backends_from_env",
    "estimate_cost_usd",
    "load_backends",
    "parse_backends",
    "register_renderer",
    "render_card",
]
