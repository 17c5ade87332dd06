"""``--dry-run``: how many judge calls a meta-evaluation (or what is left of it) will make, and
what they should cost, before any paid call.

Items already in ``predictions.jsonl`` (a resumed run) are not counted. A ``score``
submission's calls are planned exactly as the engine plans them (one per card and image, each
checkpoint, the safety screens); a ``compare`` submission asks each criterion in both orders.
Tokens are the shared allowances of :mod:`eval.kit.costs`; a model litellm's price map does not
know is listed as unpriced, never guessed. The local backend makes no model calls.

Example::

    plan = estimate(items, settings, done=set())
    print(render(plan))
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eval.datasets.base import EvalItem
from eval.kit.costs import IMAGE_TOKENS, JUDGE_PROMPT_TOKENS, JUDGE_REPLY_TOKENS, token_cost
from judge.config import JudgeSettings
from judge.domain.task import Task
from judge.modes.score.planning import plan_work
from skills.registry import default_registry

SAFETY_REPLY_TOKENS = 60


def _calls(item: EvalItem, settings: JudgeSettings) -> list[int]:
    """Input tokens of every judge call one item makes (per judge model)."""
    sub = item.submission
    if sub.get("mode") == "compare":
        criteria = sub.get("criteria") or ["preference", "coherence", "alignment"]
        return [JUDGE_PROMPT_TOKENS + 2 * IMAGE_TOKENS] * (2 * len(criteria))
    images = len(sub.get("images") or [])
    task = Task.model_validate(sub["task"])
    registry = default_registry([Path(d) for d in settings.card_dirs])
    work = plan_work(
        task,
        registry,
        n_images=images,
        batching=settings.checkpoint_batching,
        skills=settings.skills,
        subjective_batching=settings.subjective_batching,
    )
    return [JUDGE_PROMPT_TOKENS + (IMAGE_TOKENS if w.modality == "image" else 0) for w in work]


def estimate(items: list[EvalItem], settings: JudgeSettings, done: set[str]) -> dict[str, Any]:
    """Items left, judge calls and the estimated cost in USD (``None`` parts unpriced)."""
    todo = [i for i in items if i.id not in done]
    local = settings.resolved_backend() == "local"
    calls, safety_calls, cost = 0, 0, 0.0
    unpriced: set[str] = set()
    if not local:
        for item in todo:
            tokens = _calls(item, settings)
            images = len(item.submission.get("images") or []) or 2  # a comparison: a and b
            screens = (1 + images) if settings.safety else 0
            for model in settings.models():
                calls += len(tokens)
                safety_calls += screens
                for t in tokens:
                    unit = token_cost(model, t, JUDGE_REPLY_TOKENS)
                    if unit is None:
                        unpriced.add(model)
                    else:
                        cost += unit
                unit = token_cost(model, JUDGE_PROMPT_TOKENS, SAFETY_REPLY_TOKENS)
                if unit is None and screens:
                    unpriced.add(model)
                cost += (unit or 0.0) * screens
    return {
        "items": len(items),
        "items_left": len(todo),
        "judge": "local (no model calls)" if local else ", ".join(settings.models()),
        "calls": calls,
        "safety_calls": safety_calls,
        "cost_usd": round(cost, 4),
        "unpriced": sorted(unpriced),
    }


def render(plan: dict[str, Any]) -> str:
    """The plan as the lines ``judge meta-eval --dry-run`` prints."""
    lines = [
        f"items: {plan['items']} ({plan['items_left']} left to score; judge: {plan['judge']})",
        f"judge calls: {plan['calls']} + {plan['safety_calls']} safety screens",
        f"estimated cost: ~${plan['cost_usd']:.4f}",
    ]
    if plan["unpriced"]:
        lines.append(
            f"plus unpriced models (not in litellm's price map): {', '.join(plan['unpriced'])}"
        )
    lines.append("nothing was scored (--dry-run); run again without it to score")
    return "\n".join(lines)
