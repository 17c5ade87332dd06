"""Choosing and fitting a memory's predictor for one dimension, using training rows only.

Given the exemplars a prediction may learn from (the *training* rows: the whole memory when
scoring, the memory minus the item's own group under leave-one-group-out evaluation), every
member predictor is cross-validated by leaving one group of the training rows out at a time.
The candidates are few on purpose: each member alone, and the equal-weight mean of all of
them. The candidate with the best inner Spearman ρ is kept; a straight line fitted on its
out-of-group predictions maps it back to the 1–5 scale. That least-squares slope is ρ times
the ratio of spreads, so a weak signal is pulled toward the training mean (shrinkage), and a
candidate whose ρ is not positive gives no estimate at all.

Because nothing here sees a row outside ``train``, an outer evaluation that leaves a group out
before calling :func:`select` is properly nested: the left-out labels reach neither the
selection nor the fit.

Example::

    choice = select(member_oof(model, "appeal", train), y, train & has)
    choice.usable, choice.spaces, choice.confidence
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from skills.local.code_key import code_key

log = logging.getLogger("judge.local")
#: the code that computes choices: its key (see :mod:`skills.local.code_key`) names the cache
CHOICE_CODE = "skills.local.predictor"
MIN_ROWS = 5

#: a member predictor: (space, training mask, query rows) -> one prediction per query row
Member = Callable[[str, np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Choice:
    """The predictor kept for one dimension: member spaces, their standardisation, and the
    linear map of the mean standardised prediction back to the 1–5 scale."""

    spaces: tuple[str, ...]
    intercept: float
    slope: float
    cv_spearman: float | None
    n: int
    centre: tuple[float, ...] = ()
    scale: tuple[float, ...] = ()
    rmse: float | None = None
    weights: tuple[float, ...] = ()

    @property
    def usable(self) -> bool:
        """False when cross-validation found no positive signal: then nothing is estimated."""
        return self.slope > 0 and self.cv_spearman is not None and self.cv_spearman > 0

    @property
    def confidence(self) -> float:
        """0–1: the inner cross-validated Spearman ρ, floored at 0."""
        return max(0.0, float(self.cv_spearman or 0.0))

    def combine(self, preds: list[float]) -> float:
        """Standardise each member's prediction, average, map to the score scale."""
        z = [(p - c) / s for p, c, s in zip(preds, self.centre, self.scale, strict=True)]
        if self.weights:
            return self.intercept + float(np.dot(self.weights, z))
        return self.intercept + self.slope * float(np.mean(z))

    @property
    def label(self) -> str:
        """Human-readable, e.g. ``memory k-NN + quality ridge``."""
        return self.describe()

    def describe(self, notes: dict[str, str] | None = None) -> str:
        """The label with a note after a member's name, e.g. which scale ``sibling`` used.

        Example:
            >>> Choice(("memory", "sibling"), 3.0, 1.0, 0.5, 9).describe({"sibling": "quality"})
            "k-NN on the memory's embeddings + k-NN on a related scale (quality)"
        """
        notes = notes or {}
        return " + ".join(
            LABELS.get(s, s) + (f" ({notes[s]})" if s in notes else "") for s in self.spaces
        )


LABELS = {
    "memory": "k-NN on the memory's embeddings",
    "prompt": "k-NN on the exemplars' prompts",
    "quality": "ridge regression on image-quality features (incl. BRISQUE, NIQE)",
    "prototype": "generator-look classifier",
    "brisque": "BRISQUE rank",
    "niqe": "NIQE rank",
    "camera": "ridge regression on camera statistics (sensor noise, JPEG grid)",
    "sibling": "k-NN on a related scale",
}


def no_choice(n: int) -> Choice:
    """Nothing could be validated: no estimate (see :attr:`Choice.usable`)."""
    return Choice(("memory",), 3.0, 0.0, None, n, (0.0,), (1.0,))


def member_oof(
    member: Member, spaces: Iterable[str], groups: np.ndarray, rows: np.ndarray
) -> dict[str, np.ndarray]:
    """Out-of-group predictions of every member on ``rows`` (a mask), leaving one of their
    groups out at a time; rows outside ``rows`` stay ``nan``."""
    spaces = list(spaces)
    out = {s: np.full(len(rows), np.nan) for s in spaces}
    for g in np.unique(groups[rows]):
        held = rows & (groups == g)
        allowed = rows & (groups != g)
        if allowed.sum() < 2:
            continue
        q = np.where(held)[0]
        for s in spaces:
            out[s][q] = member(s, allowed, q)
    return out


def select(
    oof: dict[str, np.ndarray], y: np.ndarray, rows: np.ndarray, w: np.ndarray | None = None
) -> Choice:
    """Keep the best of: each member alone, the mean of all members (inner Spearman ρ); the
    map to the score scale is fitted with the row weights ``w`` (default: equal)."""
    w = np.ones(len(y)) if w is None else w
    spaces = list(oof)
    stats = {}
    for s in spaces:
        v = oof[s][rows & ~np.isnan(oof[s])]
        stats[s] = (float(v.mean()) if v.size else 0.0, float(v.std()) if v.size else 1.0)
        if not stats[s][1]:
            stats[s] = (stats[s][0], 1.0)
    zs = {s: (oof[s] - stats[s][0]) / stats[s][1] for s in spaces}
    candidates = [(s,) for s in spaces] + ([tuple(spaces)] if len(spaces) > 1 else [])
    best: tuple[float, tuple[str, ...], np.ndarray] | None = None
    for combo in candidates:
        pred = np.mean([zs[s] for s in combo], axis=0)
        ok = rows & ~np.isnan(pred)
        if ok.sum() < MIN_ROWS or np.std(pred[ok]) == 0:
            continue
        rho = float(spearmanr(pred[ok], y[ok])[0])
        if np.isfinite(rho) and (best is None or rho > best[0] + 1e-9):
            best = (rho, combo, pred)
    if best is None:
        return no_choice(int(rows.sum()))
    rho, combo, pred = best
    ok = rows & ~np.isnan(pred)
    slope, intercept = np.polyfit(pred[ok], y[ok], 1, w=np.sqrt(w[ok]))
    if slope <= 0:  # never invert a ranking: a flat map says "no signal"
        slope, intercept = 0.0, float(np.average(y[ok], weights=w[ok]))
    resid = y[ok] - (intercept + slope * pred[ok])
    return Choice(
        combo,
        float(intercept),
        float(slope),
        round(rho, 4),
        int(ok.sum()),
        tuple(stats[s][0] for s in combo),
        tuple(stats[s][1] for s in combo),
        round(float(np.sqrt(np.mean(resid**2))), 4),
    )


def stack(
    oof: dict[str, np.ndarray], y: np.ndarray, rows: np.ndarray, w: np.ndarray | None = None
) -> Choice:
    """Non-negative least squares of the label on the members' standardised out-of-group
    predictions, rows weighted by ``w`` (default: equal): each member gets a weight ≥ 0
    (0 drops it), and weak members get small weights, so a weak signal stays near the
    training mean."""
    from scipy.optimize import nnls

    w = np.ones(len(y)) if w is None else w
    spaces = [s for s in oof if np.isfinite(oof[s][rows]).sum() >= MIN_ROWS]
    ok = rows.copy()
    for s in spaces:
        ok &= np.isfinite(oof[s])
    if not spaces or ok.sum() < MIN_ROWS:
        return no_choice(int(rows.sum()))
    centre = [float(oof[s][ok].mean()) for s in spaces]
    scale = [float(oof[s][ok].std()) or 1.0 for s in spaces]
    z = np.column_stack(
        [(oof[s][ok] - c) / sc for s, c, sc in zip(spaces, centre, scale, strict=True)]
    )
    ybar = float(np.average(y[ok], weights=w[ok]))
    root = np.sqrt(w[ok])
    coef, _ = nnls(z * root[:, None], (y[ok] - ybar) * root)
    keep = [i for i, v in enumerate(coef) if v > 1e-9]
    if not keep:
        return no_choice(int(ok.sum()))
    pred = z[:, keep] @ coef[keep]
    rho = float(spearmanr(pred, y[ok])[0]) if np.std(pred) > 0 else float("nan")
    if not np.isfinite(rho):
        return no_choice(int(ok.sum()))
    resid = y[ok] - ybar - pred
    return Choice(
        tuple(spaces[i] for i in keep),
        ybar,
        float(coef[keep].sum()),
        round(rho, 4),
        int(ok.sum()),
        tuple(centre[i] for i in keep),
        tuple(scale[i] for i in keep),
        round(float(np.sqrt(np.mean(resid**2))), 4),
        tuple(float(coef[i]) for i in keep),
    )


# ------------------------------------------------------------------------------ disk cache


def exclusion_key(excluded: Iterable[str]) -> str:
    """A short stable key of the excluded exemplar ids (``all`` when none is excluded)."""
    ids = sorted(set(excluded))
    if not ids:
        return "all"
    return hashlib.sha256("\n".join(ids).encode()).hexdigest()[:16]


def cache_path(root: Path, checksum: str, key: str) -> Path:
    """Where the choices of one memory version and one exclusion are kept; the name carries
    the key of the code that computes them, so a code change never reads older choices."""
    return root / f"choices-{code_key(CHOICE_CODE)}-{checksum[:24]}-{key}.json"


def load_choices(path: Path) -> dict[str, Choice] | None:
    """Choices cached at ``path``, or None."""
    try:
        raw = json.loads(path.read_text())
        return {
            d: Choice(
                **{
                    **c,
                    **{k: tuple(c.get(k, ())) for k in ("spaces", "centre", "scale", "weights")},
                }
            )
            for d, c in raw.items()
        }
    except (OSError, ValueError, TypeError, KeyError):
        return None


def save_choices(path: Path, choices: dict[str, Choice]) -> None:
    """Write atomically; a read-only cache only costs the recomputation next time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({d: asdict(c) for d, c in choices.items()}))
        os.replace(tmp, path)
    except OSError as exc:
        log.info("could not cache predictor choices: %s", exc)
