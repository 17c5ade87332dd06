"""Group comparisons of prompters with paired permutation tests over tasks.

Comparisons (each only when both sides have prompters with aggregated items):

* ``human vs mllm`` — by prompter kind;
* ``novice vs skilled`` — by condition, over all prompters, then within each kind present.

For one comparison, measure and scope (one backend, or ``all`` backends) a side's value on a
task is the mean of that measure over the side's prompters (and the scope's backends) on the
task (with one backend only the ``all`` scope is reported). Tasks where both sides have a value
are the pairs; ``difference`` is the mean over pairs of (first side − second side), e.g.
human − mllm, and the p-value comes from a two-sided sign-flip permutation test
(:func:`eval.studies.report.stats.paired_permutation`).

Example:
    >>> from eval.studies.report.load import Item
    >>> mk = lambda t, p, v: Item(t, "OE", p, "b", "scored", None, None, None,
    ...                           {"subjective_prompt": v, "subjective_image": None,
    ...                            "objective_prompt_rate": None, "objective_image_rate": None},
    ...                           [], 1)
    >>> items = [mk(t, "h", 4.0) for t in "abc"] + [mk(t, "m", 3.0) for t in "abc"]
    >>> info = {"h": {"kind": "human", "condition": None}, "m": {"kind": "mllm", "condition": None}}
    >>> row = compare_groups(items, info, n_perm=100, seed=0)[0]
    >>> row["comparison"], row["backend"], row["difference"], row["p_value"], row["n_pairs"]
    ('human vs mllm', 'all', 1.0, 0.25, 3)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from eval.studies.report.load import AGGREGATED, MEASURES, Item
from eval.studies.report.stats import paired_permutations


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), nd)


def comparisons(info: Mapping[str, Mapping[str, str | None]]) -> list[tuple[str, set, set]]:
    """(name, first side's prompters, second side's) for every comparison the study allows."""

    def having(key: str, value: str, pool: set[str]) -> set[str]:
        return {p for p in pool if info[p].get(key) == value}

    everyone = set(info)
    out = [("human vs mllm", having("kind", "human", everyone), having("kind", "mllm", everyone))]
    out.append(
        (
            "novice vs skilled",
            having("condition", "novice", everyone),
            having("condition", "skilled", everyone),
        )
    )
    for kind in ("human", "mllm"):
        pool = having("kind", kind, everyone)
        out.append(
            (
                f"novice vs skilled ({kind})",
                having("condition", "novice", pool),
                having("condition", "skilled", pool),
            )
        )
    seen: set = set()
    keep = []
    for name, a, b in out:
        key = (frozenset(a), frozenset(b))
        if a and b and key not in seen:
            seen.add(key)
            keep.append((name, a, b))
    return keep


def compare_groups(
    items: Sequence[Item],
    info: Mapping[str, Mapping[str, str | None]],
    *,
    n_perm: int,
    seed: int | None,
    backends: Sequence[str] | None = None,
) -> list[dict]:
    """One row per comparison × backend scope × measure (see the module docstring)."""
    items = [it for it in items if it.status in AGGREGATED]
    if not items:
        return []
    tasks = sorted({it.task_id for it in items})
    pos = {t: i for i, t in enumerate(tasks)}
    t_idx = np.array([pos[it.task_id] for it in items])
    backends = list(backends or dict.fromkeys(it.backend for it in items))
    b_idx = np.array([backends.index(it.backend) for it in items])
    vals = np.array(
        [[np.nan if it.values[k] is None else it.values[k] for k in MEASURES] for it in items]
    )
    who = np.array([it.prompter for it in items])
    rows = []
    for name, first, second in comparisons(info):
        side = np.where(np.isin(who, list(first)), 0, np.where(np.isin(who, list(second)), 1, -1))
        for scope in ["all", *(backends if len(backends) > 1 else [])]:
            mask = side >= 0
            if scope != "all":
                mask &= b_idx == backends.index(scope)
            if not mask.any():
                continue
            sums = np.zeros((len(tasks), 2, len(MEASURES)))
            counts = np.zeros_like(sums)
            ok = np.isfinite(vals[mask])
            np.add.at(sums, (t_idx[mask], side[mask]), np.where(ok, vals[mask], 0.0))
            np.add.at(counts, (t_idx[mask], side[mask]), ok)
            with np.errstate(invalid="ignore", divide="ignore"):
                means = sums / counts
            both = np.isfinite(means[:, 0]) & np.isfinite(means[:, 1])  # (tasks, measures)
            diff = means[:, 0] - means[:, 1]
            tests: dict[int, dict] = {}
            for pattern in {both[:, j].tobytes() for j in range(len(MEASURES))}:
                cols = [j for j in range(len(MEASURES)) if both[:, j].tobytes() == pattern]
                sel = both[:, cols[0]]
                res = paired_permutations(diff[sel][:, cols], n_perm=n_perm, seed=seed)
                tests.update(zip(cols, res, strict=True))
            for j, measure in enumerate(MEASURES):
                test = tests[j]
                rows.append(
                    {
                        "comparison": name,
                        "first": sorted(first),
                        "second": sorted(second),
                        "backend": scope,
                        "measure": measure,
                        "difference": _r(test["difference"]),
                        "p_value": _r(test["p_value"], 6),
                        "n_pairs": test["n_pairs"],
                        "exact": test["exact"],
                    }
                )
    return rows
