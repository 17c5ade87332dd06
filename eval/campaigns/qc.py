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
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from scipy.stats import spearmanr

from eval.campaigns.models import QualityBars


def _annotator_stats(rows: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    accepted = [r for r in rows if r.get("accepted")]
    val = [r for r in accepted if r.get("validation")]
    right = sum(1 for r in val if r.get("correct"))
    sides = [r for r in accepted if kind == "pairwise" and r.get("choice") and r.get("shown_left")]
    left = sum(1 for r in sides if r["choice"] == r["shown_left"])
    seconds = [float(r["seconds"]) for r in accepted if r.get("seconds") is not None]
    return {
        "answers": sum(1 for r in accepted if not r.get("validation")),
        "attempts": len(rows),
        "validation_answers": len(val),
        "validation_accuracy": round(right / len(val), 4) if val else None,
        "median_seconds": round(statistics.median(seconds), 3) if seconds else None,
        "fast_share": round(sum(1 for r in rows if r.get("fast")) / len(rows), 4) if rows else 0.0,
        "left_share": round(left / len(sides), 4) if sides else None,
        "_right": right,
        "_sides": len(sides),
    }


def assess(
    attempts: Iterable[Mapping[str, Any]], kind: str, bars: QualityBars
) -> dict[str, dict[str, Any]]:
    """``{annotator: {figures..., "flagged", "reasons"}}`` from every attempt."""
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in attempts:
        by[str(r["annotator"])].append(dict(r))
    out: dict[str, dict[str, Any]] = {}
    for who, rows in sorted(by.items()):
        s = _annotator_stats(rows, kind)
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
        out[who] = {"id": who, **s, "flagged": bool(reasons), "reasons": reasons}
    return out


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
            r = 0.0  # a constant rater carries no ranking information
        else:
            r = float(spearmanr(mine, others).statistic)
        if r < bars.min_consensus_r:
            out[who] = (round(r, 4), len(mine))
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
