"""``samples:K``: the judge answers K more times at a temperature; the confidence is the
share of those K answers that agree with the answer returned.

The answer returned is the ordinary one (the same call, at the configured temperature, as
without confidence): the samples only measure how firmly the model holds it. They are asked
of the first judge model at ``confidence_temperature`` (default 1.0), each with its own
``seed`` (0 … K−1), so a rerun asks (and caches) the same K calls. A sample that fails is
left out of the share; when every sample fails the confidence is null with the reason.
Cost: K extra calls per work item (a comparison has two items per criterion, one per order).

Example:
    >>> from judge.confidence.spec import parse_method
    >>> from judge.config import JudgeSettings
    >>> method = SamplesMethod(parse_method("samples:3"))
    >>> method.check("score", JudgeSettings(model="mock/judge"))
    >>> method.params(2, JudgeSettings(confidence_temperature=0.7))
    {'temperature': 0.7, 'seed': 2}
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from judge.agent.nodes.guard import guarded
from judge.confidence.ballot import Ballot
from judge.confidence.base import (
    ItemEstimator,
    Method,
    answers_of,
    first_reason,
    needs_model,
)
from judge.confidence.calls import extra_client

if TYPE_CHECKING:
    from judge.agent.panel import Combined
    from judge.config import JudgeSettings
    from skills.kinds import Skill
    from skills.types import SkillInput, SkillOutput


async def ask_again(
    estimator: ItemEstimator,
    skill: Skill,
    calls: list[tuple[Any, SkillInput]],
    merged: Combined,
    what: str,
) -> dict[str, Ballot]:
    """Run ``skill`` once per ``(client, input)`` when the item has an answer at all; one
    ballot per key of the merged output, from the answers these calls gave."""
    keys = answers_of(merged.output)
    if not any(v is not None for v in keys.values()):
        return {}  # nothing was answered: no money spent on confidence
    outs: list[SkillOutput] = list(await asyncio.gather(*(guarded(skill, i, c) for c, i in calls)))
    ballots = {}
    for key in keys:
        why = first_reason(outs, key) or "no answer"
        ballots[key] = Ballot.of(
            (answers_of(o).get(key) for o in outs), reason=f"every {what} failed: {why}"
        )
    return ballots


class SampleEstimator(ItemEstimator):
    method: SamplesMethod

    async def ballots(
        self, skill: Skill, inp: SkillInput, outputs: list[SkillOutput], merged: Combined
    ) -> dict[str, Ballot]:
        model, s = self.ctx.models[0], self.ctx.settings
        k = self.method.spec.k or 0
        calls = [(extra_client(self.ctx, model, self.method.params(i, s)), inp) for i in range(k)]
        return await ask_again(self, skill, calls, merged, "sample")


class SamplesMethod(Method):
    name = "samples"
    estimator_class = SampleEstimator

    def check(self, mode: str, settings: JudgeSettings) -> None:
        needs_model(self.spec, settings)

    @staticmethod
    def params(index: int, settings: JudgeSettings) -> dict[str, Any]:
        """The call parameters of sample ``index``."""
        return {"temperature": settings.confidence_temperature, "seed": index}
