"""What a generation should cost before it runs (for a study's ``--dry-run``), from litellm's
price map; ``None`` when the model is not priced there.

Example:
    >>> from eval.t2i.spec import BackendSpec
    >>> estimate_cost_usd(BackendSpec(id="d", model="builtin/renderer"), 4)
    0.0
    >>> estimate_cost_usd(BackendSpec(id="d3", model="openai/dall-e-3", size="1024x1024"), 2)
    0.08
    >>> estimate_cost_usd(BackendSpec(id="im", model="vertex_ai/imagen-3.0-generate-002"), 2)
    0.08
    >>> estimate_cost_usd(BackendSpec(id="x", model="openai/my-bridge"), 2) is None
    True
"""

from __future__ import annotations

import os

# litellm's variables, set before litellm is imported (as judge.llm sets them): the bundled
# price map and Anthropic beta-header table, nothing fetched over the network
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")

import litellm
from litellm.cost_calculator import default_image_cost_calculator

from eval.t2i.spec import BackendSpec


def estimate_cost_usd(spec: BackendSpec, n: int) -> float | None:
    """Expected USD for ``n`` images from ``spec`` (0 for built-ins, None if unpriced)."""
    if spec.is_builtin:
        return 0.0
    try:
        model, provider, _, _ = litellm.get_llm_provider(model=spec.model, api_base=spec.api_base)
        cost = default_image_cost_calculator(
            model=model,
            custom_llm_provider=provider,
            quality=spec.extra.get("quality"),
            n=n,
            size=spec.size or "1024x1024",
        )
    except Exception:  # litellm raises for models missing from its price map
        return _per_image(spec.model, n)
    return round(float(cost), 6)


def _per_image(model: str, n: int) -> float | None:
    """A flat per-image price (Imagen, Bedrock and others are priced that way)."""
    bare = model.split("/", 1)[-1]
    for key in (model, bare):
        price = (litellm.model_cost.get(key) or {}).get("output_cost_per_image")
        if price is not None:
            return round(float(price) * n, 6)
    return None
