"""Text-to-image backends: any litellm image model, an OpenAI-images-compatible endpoint, or
the deterministic built-in renderer (NOT a model), behind one :class:`ImageGenerator`. Names
load lazily, so reading ``eval.t2i.settings`` (the configuration reference does) imports no
image client.

Example:
    >>> import asyncio
    >>> from eval.t2i import BackendSpec, ImageGenerator
    >>> spec = BackendSpec(id="demo", model="builtin/renderer", size="64x64")
    >>> asyncio.run(ImageGenerator().generate(spec, "a red cube", 1)).status
    'ok'
"""

from __future__ import annotations

from judge.lazy_exports import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "eval.t2i.builtin": ("LABEL", "RENDERERS", "register_renderer", "render_card"),
        "eval.t2i.generation": ("Generation", "Status"),
        "eval.t2i.generator": ("ImageGenerator",),
        "eval.t2i.pricing": ("estimate_cost_usd",),
        "eval.t2i.spec": ("BackendConfigError", "BackendSpec", "backends_from_env",
                          "load_backends", "parse_backends"),
    },
)  # fmt: skip
