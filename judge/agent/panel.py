"""Combine several judge models' outputs: scores averaged, verdicts by majority.

Agreement is the share of models that gave the most common answer. Pairwise choices are
taken by majority too; a split panel answers ``tie`` for that order.

Example:
    >>> from skills.types import SkillOutput, ScoreValue, VerdictValue
    >>> a = SkillOutput(scores={"d": ScoreValue(4, "x")}, verdicts={"c": VerdictValue(True)})
    >>> b = SkillOutput(scores={"d": ScoreValue(2, "y")}, verdicts={"c": VerdictValue(True)})
    >>> out = combine(["m1", "m2"], [a, b])
    >>> out.output.scores["d"].score, out.output.verdicts["c"].verdict, out.agreement["c"]
    (3.0, True, 1.0)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from skills.types import ChoiceValue, ScoreValue, SkillOutput, VerdictValue


@dataclass
class Combined:
    """A panel's combined output with per-model votes and agreement per key."""

    output: SkillOutput
    votes_scores: dict[str, dict[str, int | float | None]] = field(default_factory=dict)
    votes_verdicts: dict[str, dict[str, bool | None]] = field(default_factory=dict)
    votes_choices: dict[str, dict[str, str | None]] = field(default_factory=dict)
    agreement: dict[str, float] = field(default_factory=dict)


def _agreement(values: list) -> float:
    return round(Counter(values).most_common(1)[0][1] / len(values), 3) if values else 0.0


def _first_reason(values: list) -> str:
    reasons = [v.reason for v in values if v.reason]
    return reasons[0] if reasons else "no model produced an answer"


def combine(models: list[str], outputs: list[SkillOutput]) -> Combined:
    """Merge the outputs of ``models`` (same order); a single model passes through."""
    if len(outputs) == 1:
        return Combined(output=outputs[0])
    merged = SkillOutput()
    result = Combined(output=merged)
    for dim in outputs[0].scores:
        vals = [o.scores.get(dim, ScoreValue(reason="missing")) for o in outputs]
        result.votes_scores[dim] = {m: v.score for m, v in zip(models, vals, strict=True)}
        got = [v for v in vals if v.score is not None]
        scores = [v.score for v in vals if v.score is not None]
        if not got:
            merged.scores[dim] = ScoreValue(reason=_first_reason(vals))
            continue
        mean = round(sum(scores) / len(scores), 2)
        merged.scores[dim] = ScoreValue(score=mean, rationale=got[0].rationale)
        result.agreement[dim] = _agreement(scores)
    for cid in outputs[0].verdicts:
        votes = [o.verdicts.get(cid, VerdictValue(reason="missing")) for o in outputs]
        result.votes_verdicts[cid] = {m: v.verdict for m, v in zip(models, votes, strict=True)}
        decided = [v for v in votes if v.verdict is not None]
        if not decided:
            merged.verdicts[cid] = VerdictValue(reason=_first_reason(votes))
            continue
        yes = sum(1 for v in decided if v.verdict)
        no = len(decided) - yes
        result.agreement[cid] = _agreement([v.verdict for v in decided])
        if yes == no:
            merged.verdicts[cid] = VerdictValue(reason=f"panel tied {yes}-{no}")
            continue
        verdict = yes > no
        why = next(v.rationale for v in decided if v.verdict == verdict)
        merged.verdicts[cid] = VerdictValue(verdict=verdict, rationale=why)
    for name in outputs[0].choices:
        _combine_choice(name, models, outputs, merged, result)
    return result


def _combine_choice(
    name: str, models: list[str], outputs: list[SkillOutput], merged: SkillOutput, result: Combined
) -> None:
    vals = [o.choices.get(name, ChoiceValue(reason="missing")) for o in outputs]
    result.votes_choices[name] = {m: v.choice for m, v in zip(models, vals, strict=True)}
    got = [v for v in vals if v.choice is not None]
    if not got:
        merged.choices[name] = ChoiceValue(reason=_first_reason(vals), cause=vals[0].cause)
        return
    counts = Counter(v.choice for v in got).most_common()
    result.agreement[name] = round(counts[0][1] / len(got), 3)
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        split = ", ".join(f"{c}: {n}" for c, n in counts)
        merged.choices[name] = ChoiceValue(choice="tie", rationale=f"panel split ({split})")
        return
    best = counts[0][0]
    why = next(v.rationale for v in got if v.choice == best)
    merged.choices[name] = ChoiceValue(choice=best, rationale=why)
