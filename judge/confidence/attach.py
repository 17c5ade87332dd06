"""Putting confidence on a result: the fields of one item, from the ballots of the work
outcomes that answered it, and the stamp every other item and the provenance get.

Example:
    >>> from judge.confidence.ballot import Ballot
    >>> fields_of("samples:4", [Ballot.of([True, True, False, True])], True)
    {'confidence': 0.75, 'confidence_method': 'samples:4'}
    >>> fields_of(None, [], True)
    {}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from judge.confidence.ballot import Answer, Ballot, confidence_of

if TYPE_CHECKING:
    from judge.agent.context import RunContext
    from judge.agent.work import WorkOutcome

NOT_ESTIMATED = "no confidence was estimated for this item"


def fields_of(method: str | None, ballots: Iterable[Ballot], answer: Any) -> dict[str, Any]:
    """``confidence``, ``confidence_method`` and, for an answered item without a
    confidence, ``confidence_reason``; nothing without a method."""
    if method is None:
        return {}
    est = confidence_of(ballots, answer)
    out: dict[str, Any] = {"confidence": est.value, "confidence_method": method}
    if est.value is None and answer is not None and est.reason:
        out["confidence_reason"] = est.reason
    return out


def item_fields(
    ctx: RunContext,
    outcomes: Iterable[WorkOutcome],
    key: str,
    answer: Any,
    mapper: Callable[[WorkOutcome, Ballot], Ballot] | None = None,
) -> dict[str, Any]:
    """The confidence fields of the item ``key`` that ``outcomes`` answered (a comparison's
    two orders, an edit's samples: their ballots averaged). ``mapper`` turns an outcome's
    ballot into the result's terms (a position into a contender)."""
    method = ctx.settings.confidence
    if method is None:
        return {}
    ballots = []
    for o in outcomes:
        b = o.ballots.get(key) or Ballot.unavailable(NOT_ESTIMATED)
        ballots.append(mapper(o, b) if mapper else b)
    return fields_of(method, ballots, answer)


def position_mapper(
    to_contender: Callable[[str, str], str],
) -> Callable[[WorkOutcome, Ballot], Ballot]:
    """A mapper of a pairwise order's votes (``first``/``second``/``tie``) to contenders,
    with ``to_contender(choice, first)``; other votes (probability left over) stay."""

    def mapped(o: WorkOutcome, b: Ballot) -> Ballot:
        first = o.item.tag_map["first"]

        def one(v: Answer) -> Answer:
            return to_contender(v, first) if v in ("first", "second", "tie") else v

        return b.mapped(one)

    return mapped


def stamp(result: BaseModel, method: str) -> None:
    """Give every item of ``result`` that has confidence fields but none set (an item no
    work answered: no image, not scored for the category) its method, so each item says
    how its null confidence came about; record the method in the provenance."""
    for model in _models(result):
        fields = type(model).model_fields
        if "confidence_method" in fields and model.confidence_method is None:  # type: ignore[attr-defined]  # the field is checked by name first
            model.confidence_method = method  # type: ignore[attr-defined]  # the field is checked by name first
    provenance = getattr(result, "provenance", None)
    if provenance is not None:
        provenance.confidence = method


def _models(value: Any) -> Iterable[BaseModel]:
    if isinstance(value, BaseModel):
        yield value
        for name in type(value).model_fields:
            yield from _models(getattr(value, name))
    elif isinstance(value, dict):
        for v in value.values():
            yield from _models(v)
    elif isinstance(value, list):
        for v in value:
            yield from _models(v)


def confidences(data: dict[str, Any]) -> dict[str, float | None]:
    """Every item's confidence in a result's JSON, by its path (``subjective.prompt.DIM``,
    ``objective.image.ID``, ``criteria.NAME``); empty for a result without confidence.

    Example:
        >>> confidences({"criteria": {"preference": {"winner": "a", "confidence": 1.0,
        ...                                          "confidence_method": "swap"}}})
        {'criteria.preference': 1.0}
    """
    out: dict[str, float | None] = {}
    for side, dims in (data.get("subjective") or {}).items():
        for dim, v in dims.items():
            if v.get("confidence_method"):
                out[f"subjective.{side}.{dim}"] = v.get("confidence")
    for side, part in (data.get("objective") or {}).items():
        for item in part.get("items") or []:
            if item.get("confidence_method"):
                out[f"objective.{side}.{item['id']}"] = item.get("confidence")
    for name, v in (data.get("criteria") or {}).items():
        if v.get("confidence_method"):
            out[f"criteria.{name}"] = v.get("confidence")
    return out
