"""A short human-readable summary of a Result (``judge score --format text``).

It says what was decided and why, how much of the checklist and the rubric each figure
stands on (coverage), and — for an offline run — what a judge model would add.

Example:
    >>> from judge.domain import Result
    >>> r = Result(submission_id="s1", status="scored", category="OE")
    >>> summary(r).splitlines()[0]
    'Submission s1 (OE): scored'
"""

from __future__ import annotations

import textwrap
from collections import Counter

from judge.domain.result import DimensionScore, ObjectiveSide, Result

WIDTH = 100
MARK = {True: "pass", False: "FAIL", None: "----"}


LOCAL_PREFIX = "Local estimate, no judge model: "


def _short(text: str | None, width: int = 72) -> str:
    """``text`` on one line, at most ``width`` characters, cut after a whole word.

    Example:
        >>> _short("model call failed: judge model openai/x: rate limited", 30)
        'model call failed: judge…'
    """
    text = " ".join((text or "").split()).removeprefix(LOCAL_PREFIX)
    if len(text) <= width:
        return text
    cut = text[: width - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > width // 2 else cut).rstrip(" ,;:") + "…"


def _wrap(line: str, indent: int = 9) -> str:
    """One logical line, wrapped to :data:`WIDTH` with a hanging indent."""
    return textwrap.fill(line, WIDTH, subsequent_indent=" " * indent, break_on_hyphens=False)


def _rate_line(side: ObjectiveSide) -> str:
    total = side.scored + side.unscored
    if not total:
        return "no checkpoints"
    rate = "n/a" if side.rate is None else f"{side.rate:.1f}%"
    return f"{rate} passed, on {side.scored} of {total} checkpoints scored"


def _objective(name: str, side: ObjectiveSide) -> list[str]:
    lines = [f"  {name:7}{_rate_line(side)}"]
    for item in side.items:
        if item.verdict is not None:
            prim = f" [{item.primitive}]" if item.primitive else ""
            why = _short(item.rationale, 200)
            lines.append(_wrap(f"    {MARK[item.verdict]} {item.id}{prim}: {why}"))
    unscored = Counter(_short(i.reason, 300) for i in side.items if i.verdict is None)
    for reason in unscored:
        ids = [i.id for i in side.items if i.verdict is None and _short(i.reason, 300) == reason]
        lines.append(_wrap(f"    ---- unscored ({reason}): {', '.join(ids)}"))
    return lines


def _subjective(name: str, dims: dict[str, DimensionScore]) -> list[str]:
    if not dims:
        return []
    scored = {d: v for d, v in dims.items() if v.score is not None}
    lines = [f"  {name:7}{len(scored)} of {len(dims)} dimensions scored (1–5)"]
    for d, v in scored.items():
        lines.append(_wrap(f"    {v.score:4.2f} {d}: {_short(v.rationale, 240)}"))
    unscored = Counter(_short(v.reason, 300) for v in dims.values() if v.score is None)
    for reason in unscored:
        names = [d for d, v in dims.items() if v.score is None and _short(v.reason, 300) == reason]
        lines.append(_wrap(f"    ---- unscored ({reason}): {', '.join(names)}"))
    return lines


def _model_would_add(result: Result) -> list[str]:
    checks = sum(
        1
        for side in result.objective.values()
        for i in side.items
        if i.verdict is None and "vision-language model" in (i.reason or "")
    )
    dims = sum(
        1
        for mod in result.subjective.values()
        for v in mod.values()
        if v.score is None and "vision-language model" in (v.reason or "")
    )
    if not (checks or dims):
        return []
    return [
        "",
        _wrap(
            f"What a judge model would add: the {checks} checkpoint verdicts and {dims} rubric "
            "scores left unscored above (set JUDGE_MODEL, e.g. JUDGE_MODEL=openai/gpt-4o "
            "JUDGE_API_KEY=…; build the exemplar memories named above for local rubric "
            "estimates).",
            2,
        ),
    ]


def safety_verdict(passed: bool | None, blocked_by: str | None) -> str:
    """The safety line's verdict; a filter that could not run is never called a block.

    Example:
        >>> safety_verdict(None, None)
        'UNKNOWN (a filter could not run; nothing was blocked)'
        >>> safety_verdict(False, "image")
        'BLOCKED by the image filter'
    """
    if passed:
        return "passed"
    if passed is None:
        return "UNKNOWN (a filter could not run; nothing was blocked)"
    return f"BLOCKED by the {blocked_by or 'safety'} filter"


def summary(result: Result) -> str:
    """The Result as a few dozen lines of text (the JSON stays the contract)."""
    head = f"Submission {result.submission_id} ({result.category or '?'}): {result.status}"
    lines = [head + (f" — {result.reason}" if result.reason else "")]
    models = ", ".join(result.provenance.judge_models) or "none"
    u = result.usage
    lines.append(
        f"Judge: {models}; {u.llm_calls} model calls, {u.cache_hits} cache hits, "
        f"{u.latency_s:.1f} s"
    )
    s = result.safety
    why = "; ".join(
        f"{k}: {_short(v.rationale or v.reason, 96)}"
        for k, v in (("prompt", s.prompt), ("image", s.image))
        if v is not None
    )
    verdict = safety_verdict(s.passed, s.blocked_by)
    lines.append(_wrap(f"Safety: {verdict}" + (f" ({why})" if why else ""), 4))
    if result.status == "blocked":
        return "\n".join(lines) + "\n"
    lines += ["", "Checklist (objective, rate over scored checkpoints):"]
    for name in ("prompt", "image"):
        if name in result.objective:
            lines += _objective(name, result.objective[name])
    lines += ["", "Rubric (subjective):"]
    for name in ("prompt", "image"):
        lines += _subjective(name, result.subjective.get(name, {}))
    if result.selection and result.selection.n > 1:
        lines.append(f"Best of {result.selection.n}: image {result.selected_image}")
    if "local" in result.provenance.judge_models:
        lines += _model_would_add(result)
    return "\n".join(lines) + "\n"
