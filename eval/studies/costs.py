"""``--dry-run``: how many calls a study (or what is left of it) will make, and a cost estimate
from litellm's price map. Token counts are rough (characters / 4, a fixed allowance per image
and per reply); models the price map does not know are listed as unpriced, never guessed.

Example::

    plan = estimate(cfg, tasks, journal=None)
    print(render_plan(plan))
"""

from __future__ import annotations

from typing import Any

from eval.kit.costs import IMAGE_TOKENS, JUDGE_PROMPT_TOKENS, JUDGE_REPLY_TOKENS, token_cost
from eval.kit.journal import Journal, key
from eval.studies.config import StudyConfig, cfg_settings
from eval.studies.prompters.conditions import load_condition
from judge.llm.litellm_settings import load as load_litellm
from judge.modes.score.planning import plan_work
from skills.registry import default_registry

PROMPTER_REPLY_TOKENS = {True: 500, False: 150}


def image_cost(model: str, n: int, size: str | None) -> float | None:
    """USD for one request of ``n`` images, or ``None`` when unpriced (builtin: 0)."""
    if model.startswith("builtin/"):
        return 0.0
    size = (size or "1024x1024").replace("x", "-x-")
    provider, _, bare = model.partition("/")
    for name, prov in ((model, None), (bare, provider)) if bare else ((model, None),):
        try:
            return float(
                load_litellm().cost_calculator.default_image_cost_calculator(
                    model=name, custom_llm_provider=prov, n=n, size=size
                )
            )
        except Exception:  # unknown to the price map
            continue
    return None


class _Stage:
    def __init__(self) -> None:
        self.calls = 0
        self.cost = 0.0
        self.unpriced: set[str] = set()

    def add(self, model: str, calls: int, unit: float | None) -> None:
        self.calls += calls
        if unit is None:
            if calls:
                self.unpriced.add(model)
        else:
            self.cost += calls * unit

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "cost_usd": round(self.cost, 4),
            "unpriced": sorted(self.unpriced),
        }


def estimate(
    cfg: StudyConfig, tasks: list[Any], journal: Journal | None, local_judge: bool | None = None
) -> dict[str, Any]:
    """Calls and estimated cost per stage for the steps the journal does not hold yet."""

    def done(kind: str, parts: tuple[str, ...]) -> bool:
        return journal is not None and journal.get(key(kind, *parts)) is not None

    n = cfg.study.images_per_prompt
    stages = {s: _Stage() for s in ("prompter", "generation", "judge")}
    settings = cfg_settings(cfg)
    local = settings.resolved_backend() == "local" if local_judge is None else local_judge
    registry = default_registry()
    items = 0
    for t in tasks:
        for p in cfg.prompters:
            if p.kind == "mllm" and not done("prompt", (t.id, p.id)):
                assert p.model and p.condition
                card = load_condition(p.condition)
                tokens = (len(card.system) + len(t.brief)) // 4 + 60
                tokens += IMAGE_TOKENS if t.target_image else 0
                reply = PROMPTER_REPLY_TOKENS[card.working_notes]
                stages["prompter"].add(p.model, 1, token_cost(p.model, tokens, reply))
            for b in cfg.backends:
                if done("item", (t.id, p.id, b.id)):
                    continue
                items += 1
                if not done("generation", (t.id, p.id, b.id)):
                    stages["generation"].add(b.model, 1, image_cost(b.model, n, b.size))
                if local:
                    continue
                work = plan_work(
                    t,
                    registry,
                    n_images=n,
                    batching=settings.checkpoint_batching,
                    skills=settings.skills,
                    subjective_batching=settings.subjective_batching,
                )
                safety = (1 + n) if settings.safety else 0
                for model in settings.models():
                    for w in work:
                        tokens = JUDGE_PROMPT_TOKENS + (
                            IMAGE_TOKENS if w.modality == "image" else 0
                        )
                        stages["judge"].add(model, 1, token_cost(model, tokens, JUDGE_REPLY_TOKENS))
                    stages["judge"].add(model, safety, token_cost(model, JUDGE_PROMPT_TOKENS, 60))
    out = {s: st.as_dict() for s, st in stages.items()}
    total = sum(st.cost for st in stages.values())
    unpriced = sorted(set().union(*(st.unpriced for st in stages.values())))
    return {
        "items": items,
        "stages": out,
        "cost_usd": round(total, 4),
        "unpriced": unpriced,
        "judge": "local (no model calls)" if local else ", ".join(settings.models()),
    }


def render_plan(plan: dict[str, Any]) -> str:
    """The dry-run report as text."""
    lines = [f"items to run: {plan['items']} (judge: {plan['judge']})"]
    for stage, st in plan["stages"].items():
        extra = f"; unpriced: {', '.join(st['unpriced'])}" if st["unpriced"] else ""
        lines.append(f"  {stage:<10} {st['calls']:>6} calls  ~${st['cost_usd']:.4f}{extra}")
    lines.append(
        f"estimated cost: ~${plan['cost_usd']:.4f}"
        + (
            f" plus the unpriced models ({', '.join(plan['unpriced'])}: not in litellm's price map)"
            if plan["unpriced"]
            else ""
        )
    )
    return "\n".join(lines)
