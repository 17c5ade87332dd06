"""Meta-evaluation metrics: judge scores against expert labels, each with a bootstrap 95% CI.

Pure functions on lists / numpy arrays; no I/O. Every returned dict is JSON-friendly: an
undefined value (a correlation on fewer than 3 pairs or on a constant side, an F1 with no
positives anywhere, ...) is ``None``, never ``nan``.

* :func:`regression_metrics` -- one subjective target (e.g. ``image/color_lighting``):
  Spearman ρ, Kendall τ-b, Pearson r, MAE, within-1 accuracy (share of items with
  ``|pred - human| <= 1``, the paper's W1-A) and ``n``.
* :func:`macro_average` -- unweighted mean of those over a modality's targets (the paper's
  "macro-averaged" MAE / W1-A / ρ).
* :func:`classification_metrics` / :func:`micro_objective` -- objective checkpoint verdicts:
  accuracy, F1 (positive class = ``True``, "constraint satisfied"), micro-averaged per
  modality and overall by pooling all checkpoints.
* :func:`slice_metrics` -- :func:`regression_metrics` per slice (generator, backend, category).

>>> m = regression_metrics([1, 2, 3, 4, 5], [1, 2, 3, 5, 4], n_boot=200)
>>> m["n"], round(m["mae"], 3), m["within1"], round(m["spearman"], 3)
(5, 0.4, 1.0, 0.9)
>>> c = classification_metrics([True, True, False, None], [True, False, False, True], n_boot=0)
>>> c["tp"], c["fp"], c["tn"], c["fn"], c["unscored"], round(c["accuracy"], 3), round(c["f1"], 3)
(1, 1, 1, 0, 1, 0.667, 0.667)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np
from scipy.stats import rankdata

from eval.kit.stats.bootstrap import bootstrap_ci
from eval.kit.stats.kendall import kendall_tau_b

__all__ = [
    "CLASSIFICATION_KEYS",
    "REGRESSION_KEYS",
    "classification_metrics",
    "macro_average",
    "micro_objective",
    "paired_spearman_margin",
    "regression_metrics",
    "slice_metrics",
]

REGRESSION_KEYS = ("spearman", "kendall", "pearson", "mae", "within1")
CLASSIFICATION_KEYS = ("accuracy", "f1", "precision", "recall")
_CORRELATIONS = ("spearman", "kendall", "pearson")
# |pred - human| <= 1 is tested with a little slack so that means such as 4.666... vs 3.666...
# are not lost to floating-point error.
_W1_TOL = 1e-9


# ---------------------------------------------------------------------------- helpers


def _clean(x: float | np.ndarray | None) -> float | None:
    """``nan``/``inf``/``None`` -> ``None``; numpy scalars -> ``float``."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _as_float(values: Sequence[Any] | np.ndarray) -> np.ndarray:
    return np.array([np.nan if v is None else float(v) for v in values], dtype=float)


def _interval(
    point: float | None,
    fn: Callable[..., Any],
    *arrays: np.ndarray,
    n_boot: int,
    seed: int | None,
    alpha: float,
    vectorized: bool = True,
    clusters: np.ndarray | None = None,
) -> list[float | None]:
    """The bootstrap interval of ``fn(*arrays)``; ``[None, None]`` when the ``point`` is
    undefined or ``n_boot`` is 0 (no bootstrap asked)."""
    if point is None or n_boot <= 0:
        return [None, None]
    lo, hi = bootstrap_ci(
        fn, *arrays, n_boot=n_boot, seed=seed, alpha=alpha, vectorized=vectorized, clusters=clusters
    )
    return [_clean(lo), _clean(hi)]


# Metric kernels. Each works on the last axis, so the same code serves the point estimate
# (1-D input) and a block of bootstrap resamples (2-D input, one resample per row).


def _mae(p: np.ndarray, h: np.ndarray) -> np.ndarray:
    return np.mean(np.abs(p - h), axis=-1)


def _within1(p: np.ndarray, h: np.ndarray) -> np.ndarray:
    return np.mean(np.abs(p - h) <= 1 + _W1_TOL, axis=-1)


def _pearson(p: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Row-wise Pearson r; ``nan`` for rows where either side is constant or n < 3."""
    p2, h2 = np.atleast_2d(p).astype(float), np.atleast_2d(h).astype(float)
    pc = p2 - p2.mean(axis=-1, keepdims=True)
    hc = h2 - h2.mean(axis=-1, keepdims=True)
    num = np.sum(pc * hc, axis=-1)
    den = np.sqrt(np.sum(pc * pc, axis=-1) * np.sum(hc * hc, axis=-1))
    bad = (np.ptp(p2, axis=-1) == 0) | (np.ptp(h2, axis=-1) == 0) | (p2.shape[-1] < 3)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.clip(num / np.where(bad, 1.0, den), -1.0, 1.0)
    r = np.where(bad, np.nan, r)
    return r if np.ndim(p) > 1 else r[0]


def _spearman(p: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Spearman ρ = Pearson r of average ranks (ties get mid-ranks), row-wise."""
    return _pearson(rankdata(p, axis=-1), rankdata(h, axis=-1))


def _kendall(p: np.ndarray, h: np.ndarray) -> float:
    """Kendall τ-b (:func:`eval.kit.stats.kendall_tau_b`); ``nan`` if n < 3, as Pearson."""
    return float("nan") if len(p) < 3 else kendall_tau_b(p, h)


_REGRESSION_FNS: dict[str, tuple[Callable[..., Any], bool]] = {
    # name: (kernel, vectorised over resamples)
    "spearman": (_spearman, True),
    "kendall": (_kendall, False),
    "pearson": (_pearson, True),
    "mae": (_mae, True),
    "within1": (_within1, True),
}


# ------------------------------------------------------------------------- regression


def regression_metrics(
    pred: Sequence[float | None] | np.ndarray,
    human: Sequence[float | None] | np.ndarray,
    *,
    n_boot: int = 1000,
    seed: int | None = 0,
    alpha: float = 0.05,
    clusters: Sequence[Hashable] | np.ndarray | None = None,
) -> dict[str, Any]:
    """Agreement of predicted scores with human scores on one target.

    Pairs where either side is ``None``/``nan`` are dropped; ``n`` counts the pairs used,
    ``n_total`` the items with a human score and ``coverage`` is ``n / n_total`` (the share the
    judge scored: an abstaining judge is compared on fewer items).
    Returns ``{"spearman", "kendall", "pearson", "mae", "within1", "n", "ci95"}`` where
    ``ci95[name] == [lo, hi]`` is a percentile bootstrap interval over items (all metrics
    share the same resamples for a given ``seed``). ``kendall`` is τ-b. Correlations are
    ``None`` when ``n < 3`` or a side is constant; MAE / within-1 are ``None`` when ``n == 0``.
    ``n_boot=0`` skips the bootstrap (all intervals ``[None, None]``). ``clusters`` (one label
    per input pair, e.g. the item of an (item, rater) pair) switches to a cluster bootstrap.

    >>> m = regression_metrics([3, None, 4, 2], [3, 5, 5, 1], n_boot=0)
    >>> m["n"], round(m["mae"], 3), m["spearman"], m["ci95"]["mae"]
    (3, 0.667, 1.0, [None, None])
    >>> m["n_total"], m["coverage"]
    (4, 0.75)
    >>> regression_metrics([3, 3, 3], [1, 2, 3], n_boot=0)["pearson"] is None
    True
    """
    p, h = _as_float(pred), _as_float(human)
    if p.shape != h.shape:
        raise ValueError(f"pred and human differ in length: {len(p)} != {len(h)}")
    labelled = int(np.isfinite(h).sum())
    keep = np.isfinite(p) & np.isfinite(h)
    p, h = p[keep], h[keep]
    cl = None if clusters is None else np.asarray(list(clusters), dtype=object)[keep]
    n = int(keep.sum())

    out: dict[str, Any] = {}
    ci: dict[str, list[float | None]] = {}
    for name, (fn, vectorized) in _REGRESSION_FNS.items():
        defined = n >= 3 if name in _CORRELATIONS else n >= 1
        point = _clean(fn(p, h)) if defined else None
        out[name] = point
        ci[name] = _interval(
            point,
            fn,
            p,
            h,
            n_boot=n_boot,
            seed=seed,
            alpha=alpha,
            vectorized=vectorized,
            clusters=cl,
        )
    out["n"] = n
    out["n_total"] = labelled
    out["coverage"] = _clean(n / labelled) if labelled else None
    out["ci95"] = ci
    return out


def paired_spearman_margin(
    a: Sequence[float | None] | np.ndarray,
    b: Sequence[float | None] | np.ndarray,
    human: Sequence[float | None] | np.ndarray,
    *,
    n_boot: int = 1000,
    seed: int | None = 0,
    alpha: float = 0.05,
) -> dict[str, Any]:
    """Spearman(a, human) − Spearman(b, human) on the items where all three are known, with a
    paired percentile bootstrap over those items (both sides see the same resamples).

    >>> h = [1, 2, 3, 4, 5, 6]
    >>> r = paired_spearman_margin([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 6, None], h, n_boot=200)
    >>> r["n"], round(r["margin"], 3), r["ci95"][0] >= 0
    (5, 0.2, True)
    """
    x, y, h = _as_float(a), _as_float(b), _as_float(human)
    keep = np.isfinite(x) & np.isfinite(y) & np.isfinite(h)
    x, y, h = x[keep], y[keep], h[keep]
    n = int(keep.sum())

    def diff(p: np.ndarray, q: np.ndarray, t: np.ndarray) -> np.ndarray:
        return _spearman(p, t) - _spearman(q, t)

    point = _clean(diff(x, y, h)) if n >= 3 else None
    ci = _interval(point, diff, x, y, h, n_boot=n_boot, seed=seed, alpha=alpha)
    excludes = None if ci[0] is None or ci[1] is None else bool(ci[0] > 0 or ci[1] < 0)
    return {"margin": point, "n": n, "ci95": ci, "ci_excludes_zero": excludes}


def macro_average(per_target: Mapping[str, Mapping[str, Any]], targets: Sequence[str]) -> dict:
    """Unweighted mean of each regression metric over ``targets`` ("macro average").

    Targets missing from ``per_target`` and ``None`` values are skipped metric by metric; a
    metric with no value at all is ``None``. Correlations are averaged as they are (no Fisher
    z), as in the paper. Returns the keys of :data:`REGRESSION_KEYS` plus ``n_targets``
    (targets found in ``per_target``).

    >>> per = {"a": {"mae": 0.5, "spearman": 0.8}, "b": {"mae": 1.0, "spearman": None}}
    >>> avg = macro_average(per, ["a", "b", "c"])
    >>> avg["mae"], avg["spearman"], avg["kendall"], avg["n_targets"]
    (0.75, 0.8, None, 2)
    """
    present = [per_target[t] for t in targets if t in per_target]
    out: dict[str, Any] = {}
    for key in REGRESSION_KEYS:
        vals = [float(m[key]) for m in present if m.get(key) is not None]
        out[key] = _clean(float(np.mean(vals))) if vals else None
    out["n_targets"] = len(present)
    return out


def slice_metrics(
    pred: Sequence[float | None] | np.ndarray,
    human: Sequence[float | None] | np.ndarray,
    keys: Sequence[Hashable | None],
    *,
    min_n: int = 3,
    n_boot: int = 200,
    seed: int | None = 0,
    **kw: Any,
) -> dict[Hashable, dict[str, Any]]:
    """:func:`regression_metrics` per slice (items grouped by ``keys``, e.g. generator).

    Items whose key is ``None`` are left out; slices with fewer than ``min_n`` usable pairs
    are omitted. Slices come back sorted by ``str(key)``. Fewer resamples by default (200).

    >>> s = slice_metrics([1, 2, 3, 5, 4, 4], [1, 2, 3, 1, 2, 3], ["a", "a", "a", "b", "b", "b"],
    ...                   n_boot=0)
    >>> sorted(s), s["a"]["spearman"], round(s["b"]["spearman"], 3), round(s["b"]["mae"], 3)
    (['a', 'b'], 1.0, -0.866, 2.333)
    """
    p, h = _as_float(pred), _as_float(human)
    if not (len(p) == len(h) == len(keys)):
        raise ValueError("pred, human and keys must have the same length")
    groups: dict[Hashable, list[int]] = {}
    for i, k in enumerate(keys):
        if k is not None:
            groups.setdefault(k, []).append(i)
    out: dict[Hashable, dict[str, Any]] = {}
    for k in sorted(groups, key=str):
        idx = np.array(groups[k])
        usable = int(np.sum(np.isfinite(p[idx]) & np.isfinite(h[idx])))
        if usable < min_n:
            continue
        out[k] = regression_metrics(p[idx], h[idx], n_boot=n_boot, seed=seed, **kw)
    return out


# --------------------------------------------------------------------- classification


def _counts(p: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, ...]:
    tp = np.sum(p & g, axis=-1)
    fp = np.sum(p & ~g, axis=-1)
    fn = np.sum(~p & g, axis=-1)
    tn = np.sum(~p & ~g, axis=-1)
    return tp, fp, tn, fn


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _accuracy(p: np.ndarray, g: np.ndarray) -> np.ndarray:
    return np.mean(p == g, axis=-1)


def _f1(p: np.ndarray, g: np.ndarray) -> np.ndarray:
    tp, fp, _, fn = _counts(p, g)
    return _ratio(2 * tp, 2 * tp + fp + fn)


def _precision(p: np.ndarray, g: np.ndarray) -> np.ndarray:
    tp, fp, _, _ = _counts(p, g)
    return _ratio(tp, tp + fp)


def _recall(p: np.ndarray, g: np.ndarray) -> np.ndarray:
    tp, _, _, fn = _counts(p, g)
    return _ratio(tp, tp + fn)


_CLASSIFICATION_FNS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "accuracy": _accuracy,
    "f1": _f1,
    "precision": _precision,
    "recall": _recall,
}


def classification_metrics(
    pred: Sequence[bool | None],
    gold: Sequence[bool | None],
    *,
    n_boot: int = 1000,
    seed: int | None = 0,
    alpha: float = 0.05,
) -> dict[str, Any]:
    """Checkpoint verdicts against gold verdicts; positive class ``True`` (satisfied).

    A ``None`` prediction is *unscored*: it is excluded from every rate and counted in
    ``unscored`` (never as a failure). Items whose gold label is ``None`` are dropped
    entirely and counted in ``unlabeled``. Returns ``accuracy, f1, precision, recall`` (each
    ``None`` when its denominator is 0, e.g. F1 with no positive prediction nor gold), the
    confusion counts ``tp, fp, tn, fn``, ``n`` (scored items), ``unscored``, ``unlabeled`` and
    ``ci95`` (bootstrap over scored items; ``[None, None]`` where undefined).

    >>> c = classification_metrics([False, False], [False, False], n_boot=0)
    >>> c["accuracy"], c["f1"], c["precision"], c["recall"]
    (1.0, None, None, None)
    """
    if len(pred) != len(gold):
        raise ValueError(f"pred and gold differ in length: {len(pred)} != {len(gold)}")
    labeled = [(q, g) for q, g in zip(pred, gold, strict=True) if g is not None]
    unlabeled = len(pred) - len(labeled)
    unscored = sum(1 for q, _ in labeled if q is None)
    pairs = [(bool(q), bool(g)) for q, g in labeled if q is not None]
    p = np.array([a for a, _ in pairs], dtype=bool)
    g = np.array([b for _, b in pairs], dtype=bool)
    n = len(pairs)

    tp, fp, tn, fn = (int(v) for v in _counts(p, g))
    out: dict[str, Any] = {}
    ci: dict[str, list[float | None]] = {}
    for name, fn_ in _CLASSIFICATION_FNS.items():
        point = _clean(fn_(p, g)) if n else None
        out[name] = point
        ci[name] = _interval(point, fn_, p, g, n_boot=n_boot, seed=seed, alpha=alpha)
    out.update(n=n, tp=tp, fp=fp, tn=tn, fn=fn, unscored=unscored, unlabeled=unlabeled, ci95=ci)
    return out


def micro_objective(
    groups: Mapping[str, tuple[Sequence[bool | None], Sequence[bool | None]]],
    *,
    n_boot: int = 1000,
    seed: int | None = 0,
    alpha: float = 0.05,
) -> dict[str, dict[str, Any]]:
    """Micro-averaged objective metrics per modality and ``overall``.

    ``groups`` maps a modality (``"prompt"``, ``"image"``) to ``(pred, gold)`` verdict lists,
    one entry per checkpoint. Each modality gets :func:`classification_metrics` on its pooled
    checkpoints; ``overall`` pools every checkpoint of every modality (micro average).

    >>> r = micro_objective({"prompt": ([True, False], [True, True]),
    ...                      "image": ([True, None], [True, False])}, n_boot=0)
    >>> sorted(r), r["prompt"]["accuracy"], r["overall"]["n"], r["overall"]["unscored"]
    (['image', 'overall', 'prompt'], 0.5, 3, 1)
    """
    if "overall" in groups:
        raise ValueError("'overall' is reserved for the pooled result")
    out: dict[str, dict[str, Any]] = {}
    all_p: list[bool | None] = []
    all_g: list[bool | None] = []
    for name, (p, g) in groups.items():
        out[name] = classification_metrics(p, g, n_boot=n_boot, seed=seed, alpha=alpha)
        all_p.extend(p)
        all_g.extend(g)
    out["overall"] = classification_metrics(all_p, all_g, n_boot=n_boot, seed=seed, alpha=alpha)
    return out
