"""Enforcing a probe's budget while it runs: every model request and every render is charged
before it is made (the hook :attr:`eval.probing.context.ProbeContext.meter`); the first one
that would go over the budget is not made, and the probe is stopped with what it measured.

Spending survives a worker crash: the totals are stored with the probe
(``judge:probe:{id}:meta`` field ``spent``) and a resumed run starts from them; journaled steps
are not charged again.

Example::

    meter = Meter(budget.limits(), prices, images_per_render=4, spent={}, on_exceeded=stop)
    ctx.meter = meter.charge
    meter.watch_judge(ctx.labeller)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from api.probes.budget import Prices, ProbeBudget

WRITER_TOKENS = (1500, 400)
"""Prompt and reply tokens assumed for one writer call (inputs, review, topics, reflection)."""


class BudgetExceeded(RuntimeError):
    """The next request would take the probe over its budget; it was not made."""


def prices_for(budget: ProbeBudget, spec: Any, writer: str, judge_model: str | None) -> Prices:
    """USD per image of backend ``spec`` and per model call (the dearer of the writer and the
    judge), from the operator's settings, else litellm's price map, else the settings'
    estimates for unknown prices (``USD_PER_*_UNKNOWN``).
    Blocking (the price map loads litellm): call it off the event loop."""
    from eval.kit.costs import IMAGE_TOKENS, JUDGE_PROMPT_TOKENS, JUDGE_REPLY_TOKENS, token_cost
    from eval.t2i.pricing import estimate_cost_usd

    image = budget.usd_per_image
    if image is None:
        image = estimate_cost_usd(spec, 1)
    if image is None:
        image = budget.usd_per_image_unknown
    call = budget.usd_per_model_call
    if call is None:
        judge = token_cost(
            judge_model or writer, JUDGE_PROMPT_TOKENS + IMAGE_TOKENS, JUDGE_REPLY_TOKENS
        )
        write = token_cost(writer, *WRITER_TOKENS)
        known = [c for c in (judge, write) if c is not None]
        unknown = budget.usd_per_model_call_unknown if len(known) < 2 else 0.0
        call = max([*known, unknown])
    return Prices(image, call)


class Meter:
    """A probe's running totals against its limits."""

    def __init__(
        self,
        limits: dict[str, float],
        prices: Prices,
        images_per_render: int,
        spent: dict[str, Any] | None,
        on_exceeded: Callable[[str], None],
    ):
        spent = spent or {}
        self.limits = limits
        self.prices = prices
        self.per_render = images_per_render
        self.images = int(spent.get("images", 0))
        self.writer_calls = int(spent.get("model_calls", 0))
        self._judge: Any = None
        self.on_exceeded = on_exceeded
        self.exceeded: str | None = None

    def watch_judge(self, labeller: Any) -> None:
        """Count the judge's own model calls (``labeller.llm_calls``) in the total."""
        self._judge = labeller

    @property
    def model_calls(self) -> int:
        return self.writer_calls + int(getattr(self._judge, "llm_calls", 0) or 0)

    def usd(self, images: int | None = None, calls: int | None = None) -> float | None:
        """Spent USD (or what ``images``/``calls`` would cost); None when unpriced."""
        if self.prices.image is None or self.prices.model_call is None:
            return None
        images = self.images if images is None else images
        calls = self.model_calls if calls is None else calls
        return round(images * self.prices.image + calls * self.prices.model_call, 6)

    def totals(self) -> dict[str, Any]:
        """``{"images", "model_calls", "usd"}`` spent so far (judge calls included)."""
        return {"images": self.images, "model_calls": self.model_calls, "usd": self.usd()}

    def charge(self, stage: str, n: int = 1) -> None:
        """Charge ``n`` requests of ``stage`` before they are made; raises
        :class:`BudgetExceeded` (and calls ``on_exceeded`` once) when they would not fit."""
        if self.exceeded:
            raise BudgetExceeded(self.exceeded)
        images, calls = self.images, self.model_calls
        if stage.endswith("_render"):
            images += n * self.per_render
        elif stage.endswith("_judge"):
            calls += n * self.per_render  # at most one judge call per image, counted when made
        else:
            calls += n
        reason = self._over(images, calls)
        if reason:
            self.exceeded = reason
            self.on_exceeded(reason)
            raise BudgetExceeded(reason)
        self.images = images
        if not stage.endswith("_render") and not stage.endswith("_judge"):
            self.writer_calls += n

    def _over(self, images: int, calls: int) -> str | None:
        if images > self.limits["images"]:
            return (
                f"budget: the next render would take images to {images} "
                f"(limit {self.limits['images']:g})"
            )
        if calls > self.limits["model_calls"]:
            return (
                f"budget: the next request would take model calls to {calls} "
                f"(limit {self.limits['model_calls']:g})"
            )
        usd = self.usd(images, calls)
        if usd is not None and usd > self.limits["usd"]:
            return (
                f"budget: the next request would take the cost to ${usd:.4f} "
                f"(limit ${self.limits['usd']:.2f})"
            )
        return None
