"""The Result contract (docs/design.md#submission-and-result-mode-score).

A null ``score`` or ``verdict`` always comes with a ``reason``; unscored items are
reported, counted and excluded from rates, never counted as failures.

Example:
    >>> side = ObjectiveSide.from_items([CheckItem(id="c1", verdict=True),
    ...                                  CheckItem(id="c2", verdict=None, reason="timeout")])
    >>> side.rate, side.scored, side.unscored, side.coverage.model_dump()
    (100.0, 1, 1, {'scored': 1, 'total': 2})
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from judge.domain.rows import result_row

Status = Literal["scored", "partial", "blocked"]
Cause = Literal["no_model", "no_memory", "failed", "not_applicable", "blocked"]
"""Why a value is unscored; only ``not_applicable`` is by design (skills.types.Cause)."""
_CAUSES: dict[str, Cause] = {name: name for name in get_args(Cause)}


def cause_value(cause: str | None) -> Cause | None:
    """A skill's unscored cause (``skills.types.Cause``, a StrEnum of the same names) as the
    result spells it; an unknown name raises ``KeyError``.

    >>> cause_value("no_model"), cause_value(None)
    ('no_model', None)
    """
    return None if cause is None else _CAUSES[cause]


CONFIDENCE_FIELDS = ("confidence", "confidence_method", "confidence_reason")


class ResultModel(BaseModel):
    # the base of every result model (score, edit, compare): unknown keys are refused
    model_config = ConfigDict(extra="forbid")
    #: keys kept even when null and the dump excludes None: a null verdict is information
    _always: ClassVar[tuple[str, ...]] = ()
    #: keys moved to the end of the dump, in this order (a base class's fields that the JSON
    #: has always shown after the subclass's own)
    _tail: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _keep_nulls(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for key in self._tail:
                if key in data:
                    data[key] = data.pop(key)
            for key in self._always:
                data.setdefault(key, getattr(self, key))
            if data.get("confidence_method") is not None:  # asked for: null is information
                data.setdefault("confidence", None)
        return data

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready dict of this value, as the CLI and the service print it."""
        return self.model_dump(mode="json", exclude_none=True)


class JudgedItem(ResultModel):
    """The base of every judged answer (a score, a verdict, a criterion's winner): how sure
    the judge is of it (docs/confidence.md) and what a trust policy made of it
    (docs/trust.md). These keys come last in the JSON, after the subclass's own."""

    _tail: ClassVar[tuple[str, ...]] = (
        "confidence",
        "confidence_method",
        "confidence_reason",
        "trusted",
        "abstained_by",
        "interval",
        "stage",
        "escalate",
    )

    confidence: float | None = None
    """0–1: how sure the judge is of this answer (docs/confidence.md); null when it could not
    be had (``confidence_reason``, or the answer's own ``reason``); absent unless asked for"""
    confidence_method: str | None = None
    """the method that estimated ``confidence`` (``samples:5``, ``swap``, ...)"""
    confidence_reason: str | None = None
    """why an answered item has no confidence (every sample failed, no log-probabilities)"""
    trusted: bool | None = None
    """whether a trust policy's judge was sure enough of this answer (docs/trust.md); absent
    unless a policy was applied"""
    abstained_by: str | None = None
    """when not trusted: the judge (stage) that was not sure enough, or ``policy``"""
    interval: list[float] | None = None
    """ratings under a policy with intervals: ``[lo, hi]`` holding the people's rating"""
    stage: str | None = None
    """a cascade policy: the judge (stage) whose answer this is"""
    escalate: bool | None = None
    """a cascade policy: true when a later judge, not run, may still decide it"""


class ExemplarRef(ResultModel):
    """An exemplar that calibrated a score, with its retrieval similarity."""

    id: str
    similarity: float | None = None


class DimensionScore(JudgedItem):
    """A 1–5 score for one subjective dimension, or null with a reason."""

    _always = ("score",)

    score: int | float | None = None
    rationale: str | None = None
    reason: str | None = None
    cause: Cause | None = None
    raw_score: int | float | None = None
    exemplars: list[ExemplarRef] = Field(default_factory=list)
    skill: str | None = None
    votes: dict[str, int | float | None] | None = None
    agreement: float | None = None


class CheckItem(JudgedItem):
    """A pass/fail verdict on one checkpoint for one modality, or null with a reason."""

    _always = ("verdict",)

    id: str
    verdict: bool | None = None
    rationale: str | None = None
    reason: str | None = None
    cause: Cause | None = None
    primitive: str | None = None
    votes: dict[str, bool | None] | None = None
    agreement: float | None = None


class Coverage(ResultModel):
    """How many of the items a rate or mean is computed over: ``scored`` of ``total``."""

    scored: int
    total: int


class ObjectiveSide(ResultModel):
    """Checklist verdicts for one modality and the satisfaction rate over scored items.

    ``coverage`` says how many checkpoints the rate stands on (always next to it).
    """

    _always = ("rate",)

    rate: float | None = None
    coverage: Coverage | None = None
    scored: int = 0
    unscored: int = 0
    passed: int = 0
    items: list[CheckItem] = Field(default_factory=list)
    reason: str | None = None

    @model_validator(mode="after")
    def _fill_coverage(self) -> ObjectiveSide:
        self.coverage = Coverage(scored=self.scored, total=self.scored + self.unscored)
        return self

    @classmethod
    def from_items(cls, items: list[CheckItem], reason: str | None = None) -> ObjectiveSide:
        """Accumulate ``rate = 100 * passed / scored``; unscored items are excluded."""
        scored = [i for i in items if i.verdict is not None]
        passed = sum(1 for i in scored if i.verdict)
        rate = round(100.0 * passed / len(scored), 1) if scored else None
        if rate is None and reason is None and items:
            reason = "no checkpoint could be scored"
        return cls(
            rate=rate,
            scored=len(scored),
            unscored=len(items) - len(scored),
            passed=passed,
            items=items,
            reason=reason,
        )


class SafetyVerdict(ResultModel):
    """One safety filter's verdict; ``passed`` null means the filter could not decide."""

    _always = ("passed",)

    passed: bool | None = None
    categories: list[str] = Field(default_factory=list)
    rationale: str | None = None
    reason: str | None = None
    cause: Cause | None = None


class SafetyReport(ResultModel):
    """The safety gate: overall pass plus the prompt and (worst) image verdicts.

    ``passed`` is true when every filter passed, false when one flagged (or, with
    ``safety_on_error=block``, could not run), and null when a filter could not run and the
    gate reports that as unknown (the default): an unrun check never reads as passed.
    """

    _always = ("passed",)

    passed: bool | None = True
    prompt: SafetyVerdict | None = None
    image: SafetyVerdict | None = None
    images: list[SafetyVerdict] = Field(default_factory=list)
    blocked_by: str | None = None


class ImageResult(ResultModel):
    """Everything judged about one image of a best-of-n submission."""

    index: int
    subjective: dict[str, DimensionScore] = Field(default_factory=dict)
    objective: ObjectiveSide = Field(default_factory=ObjectiveSide)
    safety: SafetyVerdict | None = None
    selection_key: list[float] = Field(default_factory=list)


class Selection(ResultModel):
    """How the reported image was chosen among several (best-of-n)."""

    rule: str
    n: int
    keys: list[list[float]] = Field(default_factory=list)


class Provenance(ResultModel):
    """What produced the result: judge models, card versions, memories, options."""

    judge_models: list[str] = Field(default_factory=list)
    skills: dict[str, str] = Field(default_factory=dict)
    memories: dict[str, str] = Field(default_factory=dict)
    options: dict[str, str | int | float | bool | None] = Field(default_factory=dict)
    confidence: str | None = None
    """the confidence method every item's ``confidence`` comes from (``samples:5``); its
    options are in ``options``; absent when no confidence was asked for"""


class StageUsage(ResultModel):
    """One judge of a cascade trust policy: what it was asked and what it cost."""

    name: str
    decisions: int = 0
    """the decisions it was asked about (the first judge: all; later ones: those escalated)"""
    llm_calls: int = 0
    cost_usd: float = 0.0


class Usage(ResultModel):
    """Model-call accounting for one submission."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cache_hits: int = 0
    latency_s: float = 0.0
    retries: int = 0
    reasks: int = 0
    failed_calls: int = 0
    confidence_calls: int | None = None
    """the calls a confidence method added (counted in ``llm_calls`` too); absent without one"""
    confidence_cost_usd: float | None = None
    """their cost (part of ``cost_usd``); absent without a confidence method"""
    stages: list[StageUsage] | None = None
    """a cascade trust policy: the calls and cost of each judge run (the totals above add them
    up); absent otherwise"""


def _by_side() -> dict[str, dict[str, DimensionScore]]:
    return {"prompt": {}, "image": {}}


class Result(ResultModel):
    """What the judge returns for one submission."""

    submission_id: str
    status: Status
    task_id: str | None = None
    category: str | None = None
    reason: str | None = None
    safety: SafetyReport = Field(default_factory=SafetyReport)
    subjective: dict[str, dict[str, DimensionScore]] = Field(default_factory=_by_side)
    objective: dict[str, ObjectiveSide] = Field(
        default_factory=lambda: {"prompt": ObjectiveSide(), "image": ObjectiveSide()}
    )
    images: list[ImageResult] = Field(default_factory=list)
    selected_image: int | None = None
    selection: Selection | None = None
    provenance: Provenance = Field(default_factory=Provenance)
    usage: Usage = Field(default_factory=Usage)

    def to_row(self) -> dict[str, Any]:
        """One flat dict (status, rates, each dimension's score, usage) for a dataframe."""
        return result_row(self)
