"""Quality control: per-annotator figures, flags with reasons, and which labels are kept.

Input is the campaign's record of attempts — every answer an annotator sent, one dict each::

    {"annotator": "a01", "item": "i1", "accepted": True, "fast": False, "seconds": 3.2,
     "validation": False, "correct": None, "choice": "a", "shown_left": "b"}

(``choice``/``shown_left`` for pairwise; ``rating`` for ratings; ``order`` for rankings).

Rules (bars in :class:`eval.campaigns.models.QualityBars`), each flag naming its reason:

* ``validation``: accuracy on validation tasks below ``min_validation_accuracy`` once the
  annotator answered ``min_validation_answers`` of them;
* ``too_fast``: more than ``max_fast_share`` of their attempts came under the time floor;
* ``position``: (pairwise) one screen side chosen in more than ``max_side_share`` of at least
  ``min_side_answers`` answers;
* ``consensus``: (ratings, after collection) the rater's Spearman correlation with the mean
  of the other raters, over at least ``min_consensus_items`` shared items, is below
  ``min_consensus_r``. Computed among raters not already flagged, once (no iteration).

A flagged annotator's labels are excluded from exports' kept set and from every figure built
on kept labels; nothing is deleted.

Example:
    >>> rows = [{"annotator": "x", "item": f"v{i}", "accepted": True, "fast": False,
    ...          "seconds": 3.0, "validation": True, "correct": i == 0} for i in range(3)]
    >>> assess(rows, "rating", QualityBars())["x"]["reasons"]
    ['validation: 1 of 3 validation tasks right (33%, bar 80%)']
"""

from __future__ import annotations

import statistics
from array import array
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from scipy.stats import spearmanr

from eval.campaigns.models import QualityBars


class _Tally:
    """One annotator's running figures: what :func:`assess` needs from their attempts,
    without keeping the attempts (only the accepted answers' seconds, for the median)."""

    def __init__(self) -> None:
        self.attempts = self.fast = self.answers = self.val = self.right = 0
        self.sides = self.left = 0
        self.seconds = array("d")

    def add(self, r: Mapping[str, Any], kind: str) -> None:
        self.attempts += 1
        self.fast += bool(r.get("fast"))
        if not r.get("accepted"):
            return
        if r.get("validation"):
            self.val += 1
            self.right += bool(r.get("correct"))
        else:
            self.answers += 1
        if kind == "pairwise" and r.get("choice") and r.get("shown_left"):
            self.sides += 1
            self.left += r["choice"] == r["shown_left"]
        if r.get("seconds") is not None:
            self.seconds.append(float(r["seconds"]))

    def stats(self) -> dict[str, Any]:
        return {
            "answers": self.answers,
            "attempts": self.attempts,
            "validation_answers": self.val,
            "validation_accuracy": round(self.right / self.val, 4) if self.val else None,
            "median_seconds": round(statistics.median(self.seconds), 3) if self.seconds else None,
            "fast_share": round(self.fast / self.attempts, 4) if self.attempts else 0.0,
            "left_share": round(self.left / self.sides, 4) if self.sides else None,
            "_right": self.right,
            "_sides": self.sides,
        }


def assess(
    attempts: Iterable[Mapping[str, Any]], kind: str, bars: QualityBars
) -> dict[str, dict[str, Any]]:
    """``{annotator: {figures..., "flagged", "reasons"}}`` from every attempt."""
    assessor = Assessor(kind, bars)
    assessor.add(attempts)
    return assessor.result()


class Assessor:
    """:func:`assess` over attempts that arrive in parts (a log read in chunks): each part
    is folded into per-annotator tallies and not kept.

    Example::

        assessor = Assessor("pairwise", QualityBars())
        for chunk in chunks:
            assessor.add(chunk)
        people = assessor.result()
    """

    def __init__(self, kind: str, bars: QualityBars):
        self.kind, self.bars = kind, bars
        self.by: dict[str, _Tally] = defaultdict(_Tally)

    def add(self, attempts: Iterable[Mapping[str, Any]]) -> None:
        for r in attempts:
            self.by[str(r["annotator"])].add(r, self.kind)

    def result(self) -> dict[str, dict[str, Any]]:
        """``{annotator: {figures..., "flagged", "reasons"}}`` of the attempts so far."""
        return {who: self._judged(who, tally) for who, tally in sorted(self.by.items())}

    def _judged(self, who: str, tally: _Tally) -> dict[str, Any]:
        bars = self.bars
        s = tally.stats()
        reasons: list[str] = []
        acc, n_val = s["validation_accuracy"], s["validation_answers"]
        if (
            acc is not None
            and n_val >= bars.min_validation_answers
            and acc < bars.min_validation_accuracy
        ):
            reasons.append(
                f"validation: {s['_right']} of {n_val} validation tasks right "
                f"({acc:.0%}, bar {bars.min_validation_accuracy:.0%})"
            )
        if s["fast_share"] > bars.max_fast_share:
            reasons.append(
                f"too_fast: {s['fast_share']:.0%} of attempts under the time floor "
                f"(bar {bars.max_fast_share:.0%})"
            )
        ls = s["left_share"]
        if ls is not None and s["_sides"] >= bars.min_side_answers:
            side_share = max(ls, 1 - ls)
            if side_share > bars.max_side_share:
                side = "left" if ls >= 0.5 else "right"
                reasons.append(
                    f"position: chose the {side} image in {side_share:.0%} of {s['_sides']} "
                    f"answers (bar {bars.max_side_share:.0%})"
                )
        s = {k: v for k, v in s.items() if not k.startswith("_")}
        return {"id": who, **s, "flagged": bool(reasons), "reasons": reasons}


def consensus_exclusions(
    ratings: Iterable[Mapping[str, Any]], bars: QualityBars, skip: set[str]
) -> dict[str, tuple[float, int]]:
    """Raters below the consensus bar: ``{rater: (spearman r, shared items)}``.

    ``ratings`` are accepted, non-validation rating rows (``annotator``, ``item``,
    ``rating``); raters in ``skip`` (already flagged) neither count nor get judged.
    """
    table: dict[str, dict[str, float]] = defaultdict(dict)
    for r in ratings:
        if r["annotator"] not in skip:
            table[str(r["item"])][str(r["annotator"])] = float(r["rating"])
    raters = sorted({a for per in table.values() for a in per})
    out: dict[str, tuple[float, int]] = {}
    for who in raters:
        mine, others = [], []
        for per in table.values():
            rest = [v for a, v in per.items() if a != who]
            if who in per and rest:
                mine.append(per[who])
                others.append(sum(rest) / len(rest))
        if len(mine) < bars.min_consensus_items:
            continue
        if len(set(mine)) < 2 or len(set(others)) < 2:
            rho = 0.0  # a constant rater carries no ranking information
        else:
            rho = float(spearmanr(mine, others).statistic)
        if rho < bars.min_consensus_r:
            out[who] = (round(rho, 4), len(mine))
    return out


def apply_consensus(
    annotators: dict[str, dict[str, Any]], excluded: Mapping[str, tuple[float, int]], bar: float
) -> None:
    """Flag the raters of :func:`consensus_exclusions` (in place), with the reason."""
    for who, (r, n) in excluded.items():
        entry = annotators[who]
        entry["flagged"] = True
        entry["reasons"].append(
            f"consensus: Spearman r = {r:.2f} with the other raters' mean over {n} items "
            f"(bar {bar:.2f})"
        )
