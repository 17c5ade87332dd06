"""``panel``: the panel's judge models as votes; the confidence is the share of the models
whose answer agrees with the panel's (a verdict or choice by majority, a score by the
models' mean, rounded; :mod:`judge.confidence.ballot`). A model whose call failed is left
out. No extra calls (the panel's calls are made anyway); a panel needs at least two models.

Example:
    >>> from judge.confidence.spec import parse_method
    >>> from judge.config import JudgeSettings
    >>> PanelMethod(parse_method("panel")).check("score", JudgeSettings(model="mock/judge"))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: panel needs at least two judge models and 1 is configured (mock/judge); ...
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.confidence.ballot import Ballot
from judge.confidence.base import ItemEstimator, Method, answers_of, first_reason

if TYPE_CHECKING:
    from judge.agent.panel import Combined
    from judge.config import JudgeSettings
    from skills.kinds import Skill
    from skills.types import SkillInput, SkillOutput


class PanelEstimator(ItemEstimator):
    async def ballots(
        self, skill: Skill, inp: SkillInput, outputs: list[SkillOutput], merged: Combined
    ) -> dict[str, Ballot]:
        out = {}
        for key in answers_of(merged.output):
            why = first_reason(outputs, key) or "no answer"
            votes = (answers_of(o).get(key) for o in outputs)
            out[key] = Ballot.of(votes, reason=f"no panel model answered: {why}")
        return out


class PanelMethod(Method):
    name = "panel"
    estimator_class = PanelEstimator

    def check(self, mode: str, settings: JudgeSettings) -> None:
        models = settings.models() if settings.resolved_backend() == "llm" else ["local"]
        if len(models) < 2:
            raise ValueError(
                f"panel needs at least two judge models and {len(models)} is configured "
                f"({', '.join(models) or 'none'}); list them in JUDGE_PANEL or --panel "
                "(comma-separated)"
            )
