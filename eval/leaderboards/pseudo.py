"""Pseudo-pairwise votes from pointwise judge results (the ECHO recipe).

Input: JSON lines, one per (prompt, model, judge)::

    {"prompt_id": "co_106", "model": "flux", "judge": "gpt-4o", "result": {<Result>}}
    {"prompt_id": "co_106", "model": "sd3", "judge": "gpt-4o", "score": 3.5}

``<Result>`` is a Result (docs/design.md#submission-and-result-mode-score).

``result`` is a score-mode Result; a flat ``score`` may stand in for it (read by
``--metric score``). ``judge`` may be omitted (one judge). For every prompt, every pair of
models and every judge that scored both, the higher value wins and equal values tie; then the
judges vote: the outcome most judges gave wins, and a shared top count (1 a / 1 b, or
1 a / 1 b / 1 tie) is a tie. A judge abstains on a pair when either value is missing (unscored
or blocked); a pair no judge scored gives no vote. Votes name the models in sorted order
(``model_a`` < ``model_b``) and carry ``annotator`` = ``judges=N``.

Metrics (``--metric``): ``objective_image_rate``, ``objective_prompt_rate``,
``subjective_image_mean`` / ``subjective_prompt_mean`` (mean of the scored dimensions),
``image:<dimension>`` / ``prompt:<dimension>`` (one subjective dimension), ``score``.

Example:
    >>> rows = [{"prompt_id": "p", "model": m, "judge": j, "score": s}
    ...         for j, scores in {"j1": (4, 3), "j2": (2, 3), "j3": (5, 1)}.items()
    ...         for m, s in zip(("x", "y"), scores)]
    >>> [(v.model_a, v.model_b, v.winner, v.annotator) for v in pseudo_votes(rows, metric="score")]
    [('x', 'y', 'a', 'judges=3')]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import combinations
from pathlib import Path
from typing import Any

from eval.leaderboards.votes import Vote, VotesError, majority
from memory.io.jsonl import read_jsonl, where

Metric = Callable[[dict[str, Any]], float | None]


def _num(x: Any) -> float | None:
    return float(x) if isinstance(x, int | float) and not isinstance(x, bool) else None


def _rate(modality: str) -> Metric:
    def read(row: dict) -> float | None:
        res = row.get("result") or {}
        return _num(((res.get("objective") or {}).get(modality) or {}).get("rate"))

    return read


def _mean(modality: str) -> Metric:
    def read(row: dict) -> float | None:
        dims = ((row.get("result") or {}).get("subjective") or {}).get(modality) or {}
        vals = [v for d in dims.values() if (v := _num((d or {}).get("score"))) is not None]
        return sum(vals) / len(vals) if vals else None

    return read


def _dimension(modality: str, dim: str) -> Metric:
    def read(row: dict) -> float | None:
        dims = ((row.get("result") or {}).get("subjective") or {}).get(modality) or {}
        return _num((dims.get(dim) or {}).get("score"))

    return read


METRICS: dict[str, Metric] = {
    "objective_image_rate": _rate("image"),
    "objective_prompt_rate": _rate("prompt"),
    "subjective_image_mean": _mean("image"),
    "subjective_prompt_mean": _mean("prompt"),
    "score": lambda row: _num(row.get("score")),
}


def get_metric(name: str) -> Metric:
    """A metric by name, or ``image:<dim>`` / ``prompt:<dim>``."""
    modality, sep, dim = name.partition(":")
    if sep and modality in ("image", "prompt") and dim:
        return _dimension(modality, dim)
    if name not in METRICS:
        raise ValueError(
            f"unknown metric {name!r}; use one of {sorted(METRICS)} or image:<dimension> / "
            "prompt:<dimension>"
        )
    return METRICS[name]


def read_results(path: str | Path) -> list[dict]:
    """Rows of a pseudo-pairwise input file, checked (``file:line`` in errors)."""
    path = Path(path)
    if not path.is_file():
        raise VotesError(f"{path}: no such results file")
    rows: list[dict] = []
    seen: dict[tuple[str, str, str], int] = {}
    numbered = read_jsonl(path, error=VotesError)
    for n, row in numbered:
        at = where(path, n)
        for key in ("prompt_id", "model"):
            if not isinstance(row, dict) or not row.get(key):
                raise VotesError(f"{at}: field {key!r} is missing or empty")
        if "result" not in row and "score" not in row:
            raise VotesError(f"{at}: field 'result' (or a flat 'score') is missing")
        ident = (str(row["prompt_id"]), str(row["model"]), str(row.get("judge") or "judge"))
        if ident in seen:
            raise VotesError(f"{at}: duplicate of line {seen[ident]} for {ident}")
        seen[ident] = n
        rows.append(row)
    return rows


def pseudo_votes(rows: Iterable[dict], *, metric: str, criterion: str | None = None) -> list[Vote]:
    """One vote per (prompt, model pair) that at least one judge scored on both sides."""
    read = get_metric(metric)
    table: dict[str, dict[str, dict[str, float | None]]] = {}  # prompt -> judge -> model -> v
    for row in rows:
        judge = str(row.get("judge") or "judge")
        prompt = table.setdefault(str(row["prompt_id"]), {})
        prompt.setdefault(judge, {})[str(row["model"])] = read(row)
    votes = []
    name = criterion or metric
    for prompt_id in sorted(table):
        judges = table[prompt_id]
        models = sorted({m for per in judges.values() for m in per})
        if len(judges) == 1:  # one judge: its outcome is the vote (fast path, same result)
            (per,) = judges.values()
            scored = {m: v for m in models if (v := per[m]) is not None}
            for ma, mb in combinations(scored, 2):
                va, vb = scored[ma], scored[mb]
                winner = "a" if va > vb else "b" if vb > va else "tie"
                votes.append(Vote(prompt_id, ma, mb, winner, name, "judges=1"))
            continue
        for ma, mb in combinations(models, 2):
            outcomes = []
            for per in judges.values():
                sa, sb = per.get(ma), per.get(mb)
                if sa is None or sb is None:
                    continue
                outcomes.append("a" if sa > sb else "b" if sb > sa else "tie")
            decided = majority(outcomes)
            if decided is not None:
                label = f"judges={len(outcomes)}"
                votes.append(Vote(prompt_id, ma, mb, decided, name, label))
    return votes
