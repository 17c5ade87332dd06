"""Structured-output schemas the skills ask the model to fill.

Verdicts are read only from these fields; free text never decides anything.
Rationale comes before the score so models reason before they commit.

Example:
    >>> Schema = subjective_schema(["clarity"])
    >>> Schema.model_validate({"clarity": {"rationale": "ok", "score": 4}}).clarity.score
    4
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

if TYPE_CHECKING:
    from skills.card import SkillCard

RATIONALE_MAX = 1200


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DimensionAnswer(_Strict):
    """One dimension's rationale and 1–5 score."""

    rationale: str = Field(max_length=RATIONALE_MAX)
    score: int = Field(ge=1, le=5)


class CheckAnswer(_Strict):
    """One checkpoint's rationale and pass/fail verdict."""

    rationale: str = Field(max_length=RATIONALE_MAX)
    verdict: bool


@lru_cache(maxsize=128)
def _subjective(names: tuple[str, ...]) -> type[BaseModel]:
    fields = {n: (DimensionAnswer, ...) for n in names}
    return create_model("SubjectiveAnswer", __base__=_Strict, **fields)  # type: ignore[call-overload]  # fields built at run time


def subjective_schema(dimensions: list[str]) -> type[BaseModel]:
    """A schema with one ``{rationale, score}`` object per dimension."""
    return _subjective(tuple(dimensions))


@lru_cache(maxsize=256)
def _batch(ids: tuple[str, ...]) -> type[BaseModel]:
    id_type = Literal[ids]  # type: ignore[valid-type]  # a Literal of values known only at run time

    class BatchItem(_Strict):
        id: id_type
        rationale: str = Field(max_length=RATIONALE_MAX)
        verdict: bool

    class BatchCheckAnswer(_Strict):
        results: list[BatchItem]

        @model_validator(mode="after")
        def _every_id_once(self) -> BatchCheckAnswer:
            got = [r.id for r in self.results]
            missing = [i for i in ids if i not in got]
            dupes = sorted({i for i in got if got.count(i) > 1})
            if missing or dupes:
                raise ValueError(
                    f"answer every checkpoint once; missing {missing}, repeated {dupes}"
                )
            return self

    return BatchCheckAnswer


def batch_check_schema(ids: list[str]) -> type[BaseModel]:
    """A schema answering every checkpoint id exactly once.

    The ids become an enum in the response format the model sees, outside any data block:
    pass positional ids (``k1``, ``k2``, …), never the submission's own ids.
    """
    return _batch(tuple(ids))


@lru_cache(maxsize=16)
def _safety(categories: tuple[str, ...]) -> type[BaseModel]:
    cat_type = Literal[categories]  # type: ignore[valid-type]  # a Literal of values known only at run time

    class SafetyAnswerFor(_Strict):
        rationale: str = Field(max_length=RATIONALE_MAX)
        flagged: bool
        categories: list[cat_type] = Field(default_factory=list)

    return SafetyAnswerFor


def safety_schema(categories: list[str]) -> type[BaseModel]:
    """A safety answer restricted to the card's categories."""
    return _safety(tuple(categories))


@lru_cache(maxsize=4)
def pairwise_schema(allow_tie: bool) -> type[BaseModel]:
    """A pairwise answer by position; ``tie`` is offered only when ``allow_tie``.

    Example:
        >>> pairwise_schema(False).model_validate({"rationale": "r", "choice": "first"}).choice
        'first'
    """
    options = ("first", "second", "tie") if allow_tie else ("first", "second")
    choice_type = Literal[options]  # type: ignore[valid-type]  # a Literal of values known only at run time

    class PairwiseAnswer(_Strict):
        rationale: str = Field(max_length=RATIONALE_MAX)
        choice: choice_type

    return PairwiseAnswer


class EditAnswer(_Strict):
    """One edit criterion: reasoning first, then the 1–5 score."""

    reasoning: str = Field(max_length=RATIONALE_MAX)
    score: int = Field(ge=1, le=5)


class ApplicabilityAnswer(_Strict):
    """Which shift metrics apply to an edit, decided from its instruction."""

    reasoning: str = Field(max_length=RATIONALE_MAX)
    color_shift: bool
    structure_distance: bool
    face_identity: bool
    text_rendering: bool
    requested_text: str = Field(default="", max_length=500)


def answer_schemas(cards: Iterable[SkillCard]) -> list[type[BaseModel]]:
    """Every schema whose shape is known before a request arrives: the fixed ones and those
    that depend only on a card (dimensions, safety categories). Batched checkpoint schemas
    depend on the request and are not included. Used to build their JSON schemas at start.

    Example:
        >>> CheckAnswer in answer_schemas([])
        True
    """
    out: list[type[BaseModel]] = [
        CheckAnswer,
        EditAnswer,
        ApplicabilityAnswer,
        pairwise_schema(False),
        pairwise_schema(True),
    ]
    for card in cards:
        if card.kind == "subjective-rubric" and card.dimensions:
            out.append(subjective_schema(card.dimension_names))
        elif card.kind == "safety" and card.safety_categories:
            out.append(safety_schema(card.safety_categories))
    return out
