"""What every confidence method shares: the per-item estimator the graph's ``run_work``
node drives, the answers a skill output holds, and the registry of methods.

A method is a class registered under its name. Before a request runs, :meth:`Method.check`
refuses what the method cannot do for that mode and settings (``swap`` outside a comparison,
``panel`` with one model, ...). For each work item, :meth:`Method.estimator` gives an
:class:`ItemEstimator`: it hands out the clients of the item's ordinary calls (``logprobs``
asks those for log-probabilities) and, once the answers are in, returns one
:class:`~judge.confidence.ballot.Ballot` per answered key, making extra calls when the
method needs them (``samples``, ``annotators``).

The registry is filled by :mod:`judge.confidence.registry`, which imports every method.

Example:
    >>> from judge.confidence.registry import method_for
    >>> from judge.confidence.spec import parse_method
    >>> method_for(parse_method("swap")).spec.name
    'swap'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from judge.confidence.ballot import Answer, Ballot
from judge.confidence.spec import ConfidenceSpec
from registry import Registry
from skills.types import SkillOutput

if TYPE_CHECKING:
    from judge.agent.context import RunContext
    from judge.agent.panel import Combined
    from judge.agent.work import WorkItem
    from judge.config import JudgeSettings
    from skills.kinds import Skill
    from skills.types import ModelClient, SkillInput

METHODS = Registry[type["Method"]](
    "confidence method",
    lazy={
        "samples": "judge.confidence.samples:SamplesMethod",
        "swap": "judge.confidence.swap:SwapMethod",
        "panel": "judge.confidence.panel:PanelMethod",
        "logprobs": "judge.confidence.logprobs:LogprobsMethod",
        "annotators": "judge.confidence.annotators:AnnotatorsMethod",
    },
)
"""The method classes by name, each in its own module, imported when a request names it."""
PAIRWISE_MODES = frozenset({"compare", "edit_compare"})


def register(name: str) -> Callable[[type[Method]], type[Method]]:
    """Class decorator: register a method under ``name`` at run time."""

    def add(cls: type[Method]) -> type[Method]:
        cls.name = name
        return METHODS.add(name, cls, replace=True)

    return add


def answers_of(out: SkillOutput) -> dict[str, Answer | None]:
    """Every key of a skill output (dimension, checkpoint id, criterion) with its answer.

    Example:
        >>> from skills.types import ScoreValue, VerdictValue
        >>> answers_of(SkillOutput(scores={"d": ScoreValue(4)}, verdicts={"c": VerdictValue()}))
        {'d': 4, 'c': None}
    """
    out_map: dict[str, Answer | None] = {k: v.score for k, v in out.scores.items()}
    out_map.update({k: v.verdict for k, v in out.verdicts.items()})
    out_map.update({k: v.choice for k, v in out.choices.items()})
    return out_map


def first_reason(outputs: list[SkillOutput], key: str) -> str | None:
    """The first reason an output gives for leaving ``key`` unanswered."""
    for o in outputs:
        for table in (o.scores, o.verdicts, o.choices):
            value: Any = table.get(key)
            if value is not None and value.reason:
                return value.reason
    return None


class ItemEstimator:
    """One work item's confidence estimate (subclasses override what they need)."""

    def __init__(self, method: Method, ctx: RunContext, item: WorkItem):
        self.method, self.ctx, self.item = method, ctx, item

    def client(self, model: str) -> ModelClient:
        """The client of the item's ordinary call to ``model``."""
        return self.ctx.client(model)

    async def ballots(
        self, skill: Skill, inp: SkillInput, outputs: list[SkillOutput], merged: Combined
    ) -> dict[str, Ballot]:
        """One ballot per key of ``merged.output`` (``outputs``: each model's own)."""
        raise NotImplementedError


class Method:
    """A registered confidence method; ``spec`` is the parsed option."""

    name: ClassVar[str]
    estimator_class: ClassVar[type[ItemEstimator]] = ItemEstimator

    def __init__(self, spec: ConfidenceSpec):
        self.spec = spec

    def check(self, mode: str, settings: JudgeSettings) -> None:
        """Raise ``ValueError`` (what cannot be done and what to do) when this method cannot
        estimate confidence for ``mode`` under ``settings``."""
        return None

    def estimator(self, ctx: RunContext, item: WorkItem) -> ItemEstimator:
        """The estimator of one work item."""
        return self.estimator_class(self, ctx, item)


def needs_model(spec: ConfidenceSpec, settings: JudgeSettings) -> None:
    """Refuse a method that asks a judge model when the local backend (no model) runs."""
    if settings.resolved_backend() == "local":
        raise ValueError(
            f"{spec} needs a judge model, and the local backend has none (its answers do not "
            "vary); set JUDGE_MODEL (or --model), or use swap for comparisons"
        )
