"""Human rows matched to the results' decisions, and the people's answer per decision.

A row is matched to a result by its ``id`` (a result's ``submission_id`` or
``comparison_id``; a vote also by its prompt and its two models, turned round when the
result shows them the other way) and to a decision by its criterion (see
:mod:`judge.trust.items`): exactly, or by its last part when that names one decision of the
result (a campaign's ``appeal`` is the result's ``image.appeal`` when only the image side
has it). A row of an unknown id or criterion, a second row of one annotator for one decision,
or a label of another kind than the decision (a rating for a verdict) is an error naming the
row's file and line.

The people's answer, when several annotators labelled a decision: the **majority** for a
winner (a shared top count is a tie, as everywhere in the project) and for a verdict (an even
split gives no answer: the decision is left out and counted); the **mean** for a rating. The
guarantee of a policy is then agreement with the people's majority (within ``agree_within``
points of their mean for ratings).

Example:
    >>> from eval.trust.human import HumanRow
    >>> results = [{"comparison_id": "c1", "models": {"a": "x", "b": "y"},
    ...             "criteria": {"preference": {"winner": "a"}}}]
    >>> rows = [HumanRow("c1", "preference", "winner", v, w, f"h:{i}")
    ...         for i, (v, w) in enumerate([("a", "p"), ("a", "q"), ("b", "r")], 1)]
    >>> consensus(match(rows, results))
    ({('c1', 'preference'): ('winner.preference', 'a', 3)}, 0)
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from eval.leaderboards.votes import majority
from eval.trust.human import HumanRow
from judge.trust.errors import TrustError
from judge.trust.items import TrustItem, result_id, trust_items

Key = tuple[str, str]  # (result id, criterion)
FLIP = {"a": "b", "b": "a", "tie": "tie"}


class LabelIndex:
    """The results' decisions by id and criterion, and comparisons by prompt and models."""

    def __init__(self, results: Sequence[dict[str, Any]]):
        self.items: dict[str, dict[str, TrustItem]] = {}
        self.pairs: dict[tuple[str, frozenset[str]], tuple[str, str]] = {}
        for r in results:
            rid = result_id(r)
            self.items[rid] = {i.criterion: i for i in trust_items(r)}
            models = r.get("models") or {}
            if isinstance(models, dict) and models.get("a") and models.get("b"):
                prompt = str(r.get("prompt_id") or rid)
                self.pairs[(prompt, frozenset((models["a"], models["b"])))] = (rid, models["a"])

    def locate(self, row: HumanRow) -> tuple[str, bool]:
        """(result id, whether a vote's a/b are the other way round)."""
        if row.id in self.items:
            return row.id, False
        if row.pair is not None:
            prompt, a, b = row.pair
            hit = self.pairs.get((prompt, frozenset((a, b))))
            if hit is not None:
                return hit[0], hit[1] != a
        known = ", ".join(list(self.items)[:5])
        name = row.id or (row.pair[0] if row.pair else "")
        raise TrustError(
            f"{row.where}: field 'id': {name!r} is not an item of the results (they have "
            f"{len(self.items)} items, e.g. {known}); label files must be of the same items"
        )

    def decision(self, rid: str, row: HumanRow) -> TrustItem:
        items = self.items[rid]
        if row.criterion in items:
            return items[row.criterion]
        tail = [c for c in items if c.split(".", 1)[-1] == row.criterion]
        if len(tail) == 1:
            return items[tail[0]]
        options = ", ".join(sorted(items)) or "none"
        hint = " (several sides have it: write side.name)" if len(tail) > 1 else ""
        raise TrustError(
            f"{row.where}: field 'criterion': {row.criterion!r} is not a decision of {rid}"
            f"{hint}; it has: {options}"
        )


Matched = dict[Key, tuple[str, list[HumanRow]]]


def match(rows: Sequence[HumanRow], results: Sequence[dict[str, Any]]) -> Matched:
    """The kind and rows of each decision (see the module), checked; the values oriented like
    the result (a vote's winner turned round when its models are)."""
    index = LabelIndex(results)
    out: Matched = {}
    seen: dict[tuple[str, str, str], str] = {}
    for row in rows:
        rid, flipped = index.locate(row)
        item = index.decision(rid, row)
        if item.kind_type != row.field:
            raise TrustError(
                f"{row.where}: field {row.field!r}: {item.criterion} of {rid} is a "
                f"{item.kind_type} ({item.kind}), not a {row.field}: labels of another kind "
                "than the results"
            )
        key = (rid, item.criterion, row.annotator)
        if key in seen:
            who = f"annotator {row.annotator!r}" if row.annotator else "a row without annotator"
            raise TrustError(
                f"{row.where}: a second label of {who} for {rid} {item.criterion} (the first "
                f"is {seen[key]}); give each row an 'annotator', once per item and criterion"
            )
        seen[key] = row.where
        value = FLIP[row.value] if flipped and row.field == "winner" else row.value  # type: ignore[index]  # the field says which kind of value it is
        fixed = HumanRow(rid, item.criterion, row.field, value, row.annotator, row.where)
        out.setdefault((rid, item.criterion), (item.kind, []))[1].append(fixed)
    return out


def consensus(matched: Matched) -> tuple[dict[Key, tuple[str, Any, int]], int]:
    """Per decision (its kind, the people's answer, how many labelled it), and how many
    verdicts were dropped for an even split."""
    out: dict[Key, tuple[str, Any, int]] = {}
    dropped = 0
    for key, (kind, rows) in matched.items():
        field, values = rows[0].field, [r.value for r in rows]
        if field == "rating":
            out[key] = (kind, statistics.fmean(values), len(rows))  # type: ignore[arg-type]  # the field says which kind of value it is
        elif field == "winner":
            out[key] = (kind, majority(values), len(rows))  # type: ignore[arg-type]  # the field says which kind of value it is
        else:
            yes = sum(bool(v) for v in values)
            if 2 * yes == len(values):
                dropped += 1
                continue
            out[key] = (kind, 2 * yes > len(values), len(rows))
    return out, dropped
