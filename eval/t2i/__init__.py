"""Text-to-image backends: any litellm image model, an OpenAI-images-compatible endpoint, or
the deterministic built-in renderer (NOT a model), behind one :class:`ImageGenerator`.

Example:
    >>> import asyncio
    >>> spec = BackendSpec(id="demo", model="builtin/renderer", size="64x64")
    >>> asyncio.run(ImageGenerator().generate(spec, "a red cube", 1)).status
    'ok'
"""

from eval.t2i.builtin import BUILTIN_RENDERERS, LABEL, register_renderer, render_card
from eval.t2i.generation import Generation, Status
from eval.t2i.generator import ImageGenerator
from eval.t2i.pricing import estimate_cost_usd
from eval.t2i.spec import (
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
