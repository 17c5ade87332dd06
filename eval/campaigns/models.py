"""The shapes of a campaign (docs/design.md#human-label-campaigns): the admin's request, its
items, and QC settings.

A campaign is a set of items and one task kind — ``pairwise`` (two images, a compare
criterion), ``rating`` (one image, or a source/edited pair with the instruction, on a card's
1–5 scale) or ``ranking`` (k outputs of one prompt, best to worst). Images are ``data:`` URLs
on the wire; the service keeps their bytes once per content hash.

Example:
    >>> c = CampaignCreate.model_validate({"id": "c1", "kind": "pairwise",
    ...     "criterion": "preference", "items": [{"id": "i1",
    ...     "a": {"model": "m1", "image": "data:image/png;base64,AA=="},
    ...     "b": {"model": "m2", "image": "data:image/png;base64,AA=="}}]})
    >>> c.votes_per_item, c.session_size, c.qc.min_validation_accuracy
    (5, 3, 0.8)
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from eval.campaigns.demographics import Reference

CAMPAIGN_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
ITEM_ID = r"^[A-Za-z0-9][A-Za-z0-9_.:/+-]{0,127}$"
MODEL = r"^[^\s\x00-\x1f][^\x00-\x1f]{0,127}$"
ANNOTATOR = r"^[a-z][a-z0-9_-]{0,63}$"
LANG = r"^[a-z]{2,3}(_[A-Z]{2})?$"
MAX_ITEMS = 5_000
MAX_TEXT = 4_000
Kind = Literal["pairwise", "rating", "ranking"]
STORED_WHEN_GIVEN = frozenset({"translate_into", "translation_budget", "judged_by"})
"""Settings added after campaigns were first stored: kept in the record only when the admin
gave them (a record without them reads their defaults), so other campaigns' stored JSON
stays as it was."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Output(_Strict):
    """One model's image."""

    model: str = Field(pattern=MODEL)
    image: str = Field(min_length=5, description="a data: URL")

    @field_validator("image")
    @classmethod
    def _data_url(cls, v: str) -> str:
        if not v.startswith("data:"):
            raise ValueError("images are sent as data: URLs (the CLI encodes files for you)")
        return v


class JudgeAnswer(_Strict):
    """The judge's answer for the same item, when it judged it (for the agreement report)."""

    winner: Literal["a", "b", "tie"] | None = None
    score: float | None = Field(default=None, ge=1, le=5)
    order: list[str] | None = None


class Item(_Strict):
    """One item; which fields it needs depends on the campaign's kind.

    pairwise: ``a`` and ``b``; rating: ``image`` (or ``source_image`` + ``image`` +
    ``instruction``) and ``model``; ranking: ``outputs`` (2–8, distinct models).
    ``expected`` marks an admin validation item (pairwise ``"a"|"b"``, rating ``[lo, hi]``,
    ranking the expected order of models); such items never reach the exports.
    """

    id: str = Field(pattern=ITEM_ID)
    prompt: str | None = Field(default=None, max_length=MAX_TEXT)
    a: Output | None = None
    b: Output | None = None
    image: str | None = None
    source_image: str | None = None
    instruction: str | None = Field(default=None, max_length=MAX_TEXT)
    model: str | None = Field(default=None, pattern=MODEL)
    outputs: list[Output] | None = Field(default=None, min_length=2, max_length=8)
    expected: str | list[float] | list[str] | None = None
    judge: JudgeAnswer | None = None

    @field_validator("image", "source_image")
    @classmethod
    def _data_url(cls, v: str | None) -> str | None:
        if v is not None and not v.startswith("data:"):
            raise ValueError("images are sent as data: URLs (the CLI encodes files for you)")
        return v


class QualityBars(_Strict):
    """The bars below which an annotator is flagged (their labels are then excluded)."""

    min_validation_accuracy: float = Field(default=0.8, ge=0, le=1)
    min_validation_answers: int = Field(default=2, ge=1, description="before accuracy counts")
    max_fast_share: float = Field(
        default=0.25, ge=0, le=1, description="share of answers under min_seconds"
    )
    max_side_share: float = Field(
        default=0.8, ge=0.5, le=1, description="position bias: share of one side"
    )
    min_side_answers: int = Field(default=10, ge=1, description="answers before bias counts")
    min_consensus_r: float = Field(
        default=0.2,
        ge=-1,
        le=1,
        description="raters: Spearman r with the mean of the other raters, below = excluded",
    )
    min_consensus_items: int = Field(default=5, ge=2)


class CampaignCreate(_Strict):
    """``POST /v1/campaigns``."""

    id: str = Field(pattern=CAMPAIGN_ID)
    kind: Kind
    criterion: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    items: list[Item] = Field(min_length=1, max_length=MAX_ITEMS)
    votes_per_item: int = Field(default=5, ge=1, le=100)
    extra_votes: int = Field(
        default=0, ge=0, le=100, description="more votes on the most disputed items"
    )
    session_size: int = Field(default=3, ge=1, le=50)
    min_seconds: float = Field(default=2.0, ge=0, le=600)
    penalty_s: float = Field(default=5.0, ge=0, le=600)
    validation: Literal["auto", "none"] = "auto"
    validation_every: int = Field(
        default=4, ge=2, le=100, description="about one validation task in this many"
    )
    lease_seconds: float = Field(
        default=600.0,
        ge=1,
        le=86_400,
        description="a served task stays reserved this long, then its item returns to the pool",
    )
    translate_prompts: bool = Field(
        default=False,
        description="show each task's prompt in the annotator's language, translated once per "
        "prompt by the configured model (the original one click away)",
    )
    prompt_language: str = Field(default="en", pattern=LANG, description="the prompts' language")
    translate_into: list[Annotated[str, Field(pattern=LANG)]] | None = Field(
        default=None,
        min_length=1,
        max_length=20,
        description="the only languages texts are translated into (default: the languages "
        "of the label page); a page asking for another language gets the originals",
    )
    translation_budget: int | None = Field(
        default=None,
        ge=0,
        le=100_000,
        description="the most translation calls the campaign may make, failed ones "
        "included (default: two per text and language)",
    )
    demographics: bool = Field(
        default=False,
        description="offer annotators an optional form: age band, gender, country",
    )
    demographics_reference: Reference | None = Field(
        default=None, description="shares the report compares the crowd with"
    )
    compared: str = Field(
        default="",
        max_length=200,
        description="what the items' model names stand for (the report says so)",
    )
    judged_by: str = Field(
        default="",
        max_length=600,
        description="who gave the items' judge answers (a model, the local backend, the mock "
        "with its made-up numbers); the report says so beside the judge–human agreement",
    )
    title: str = Field(default="", max_length=200)
    instructions: str = Field(default="", max_length=MAX_TEXT)
    qc: QualityBars = Field(default_factory=QualityBars)
    seed: int = 0

    @field_validator("translate_into")
    @classmethod
    def _each_once(cls, langs: list[str] | None) -> list[str] | None:
        if langs is not None and len(set(langs)) != len(langs):
            raise ValueError("each language once")
        return langs

    @model_validator(mode="after")
    def _items_fit(self) -> CampaignCreate:
        seen: set[str] = set()
        for i, item in enumerate(self.items):
            where = f"items[{i}]"
            if item.id in seen:
                raise ValueError(f"{where}.id: item {item.id!r} appears more than once")
            seen.add(item.id)
            problem = item_problem(self.kind, item)
            if problem:
                raise ValueError(f"{where}: {problem}")
        return self


def _score_range(expected: object) -> bool:
    """Whether ``expected`` is ``[low, high]``: two finite numbers, low first."""
    if not isinstance(expected, list) or len(expected) != 2:
        return False
    low, high = expected
    numbers = all(isinstance(x, int | float) and math.isfinite(x) for x in (low, high))
    return numbers and low <= high


def item_problem(kind: str, item: Item) -> str | None:
    """What an item lacks for ``kind`` (None when it fits)."""
    if kind == "pairwise":
        if item.a is None or item.b is None:
            return "a pairwise item needs 'a' and 'b' ({model, image})"
        if item.a.model == item.b.model:
            return f"'a' and 'b' are both model {item.a.model!r}"
        if item.expected is not None and item.expected not in ("a", "b"):
            return "'expected' of a pairwise item is 'a' or 'b'"
    elif kind == "rating":
        if item.image is None:
            return "a rating item needs 'image' (and 'model')"
        if item.source_image is not None and not item.instruction:
            return "an edit rating item ('source_image') needs its 'instruction'"
        ok = item.expected is None or _score_range(item.expected)
        if not ok:
            return "'expected' of a rating item is [lowest, highest] acceptable rating"
    else:
        if not item.outputs:
            return "a ranking item needs 'outputs' (2–8 {model, image})"
        models = [o.model for o in item.outputs]
        if len(set(models)) != len(models):
            return "the models of 'outputs' must be distinct"
        if item.expected is not None and sorted(map(str, item.expected)) != sorted(models):
            return "'expected' of a ranking item lists every output's model, best first"
    return None


class CampaignCreated(BaseModel):
    """The answer to ``POST /v1/campaigns``."""

    id: str
    status: str
    kind: str
    criterion: str
    n_items: int
    n_validation: int
    n_images: int
    target_votes: int


class Invitations(_Strict):
    """``POST /v1/campaigns/{id}/invitations``."""

    count: int = Field(default=1, ge=1, le=1_000)
    prefix: str = Field(default="a", pattern=r"^[a-z][a-z0-9_-]{0,15}$")
    names: list[Annotated[str, Field(pattern=ANNOTATOR)]] | None = Field(
        default=None,
        min_length=1,
        max_length=1_000,
        description="invite these annotators by name instead of count/prefix; a name invited "
        "before gets a new link and its old one stops working",
    )

    @field_validator("names")
    @classmethod
    def _distinct(cls, names: list[str] | None) -> list[str] | None:
        if names is not None and len(set(names)) != len(names):
            raise ValueError("each name once")
        return names


class Revocation(_Strict):
    """``POST /v1/campaigns/{id}/invitations/revoke``."""

    names: list[Annotated[str, Field(pattern=ANNOTATOR)]] = Field(min_length=1, max_length=5_000)


class Answer(_Strict):
    """``POST /v1/label/{token}/answers``: exactly one of choice, rating, order."""

    task: str = Field(pattern=r"^t[0-9a-f]{16}$")
    choice: Literal["a", "b"] | None = None
    rating: int | None = Field(default=None, ge=1, le=5)
    order: list[int] | None = Field(default=None, min_length=2, max_length=8)
    reason: str | None = Field(default=None, max_length=1_000)
    lang: str | None = Field(default=None, pattern=LANG, description="the page's language")
    prompt_language: str | None = Field(
        default=None, pattern=LANG, description="the language the prompt was shown in"
    )

    @model_validator(mode="after")
    def _one(self) -> Answer:
        given = [x for x in (self.choice, self.rating, self.order) if x is not None]
        if len(given) != 1:
            raise ValueError("send exactly one of 'choice', 'rating' or 'order'")
        return self
