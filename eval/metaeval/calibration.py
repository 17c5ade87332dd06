"""Fit per-target calibration maps on one labelled split (applied by the engine, see
:mod:`judge.calibration`).

- ``meanvar``: mean–variance matching (the judge's scores are shifted and scaled so their
  mean and standard deviation match the human labels');
- ``isotonic``: a monotone map fitted by isotonic regression, stored as breakpoints.

Example:
    >>> m = fit_map([1.0, 2.0, 3.0], [2.0, 3.0, 4.0], "meanvar")
    >>> round(m["mu_h"] - m["mu_p"], 3)
    1.0
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from sklearn.isotonic import IsotonicRegression

METHODS = ("meanvar", "isotonic")


def fit_map(pred: list[float], human: list[float], method: str) -> dict:
    """One dimension's map from paired (prediction, label) values."""
    p, h = np.asarray(pred, dtype=float), np.asarray(human, dtype=float)
    if len(p) < 3:
        raise ValueError("need at least 3 labelled predictions to fit a calibration")
    if method == "meanvar":
        return {
            "method": "meanvar",
            "mu_p": float(p.mean()),
            "sd_p": float(p.std()) or 1.0,
            "mu_h": float(h.mean()),
            "sd_h": float(h.std()),
            "n": len(p),
        }
    if method == "isotonic":
        iso = IsotonicRegression(y_min=1.0, y_max=5.0, out_of_bounds="clip").fit(p, h)
        xs = np.unique(np.concatenate([[1.0, 5.0], p]))
        return {
            "method": "isotonic",
            "x": [float(x) for x in xs],
            "y": [float(y) for y in iso.predict(xs)],
            "n": len(p),
        }
    raise ValueError(f"unknown calibration method {method!r}; use one of {METHODS}")


def fit_calibration(
    pairs: dict[str, tuple[list[float], list[float]]], method: str, *, dimension_of: dict[str, str]
) -> dict:
    """Maps for every target with enough pairs, keyed by the *dimension* the engine scores.

    Several targets read from one dimension (AVT's appeal and appeal2) would fight over one
    map: the first target listed wins.
    """
    maps: dict[str, dict] = {}
    for target, (pred, human) in pairs.items():
        dim = dimension_of.get(target, target)
        if dim in maps or len(pred) < 3:
            continue
        maps[dim] = fit_map(pred, human, method) | {"target": target}
    return {
        "format": 1,
        "method": method,
        "fitted_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "maps": maps,
    }


def save_calibration(cal: dict, path: Path) -> None:
    """Write the calibration JSON (the engine loads it with ``--calibration``)."""
    path.write_text(json.dumps(cal, indent=2), encoding="utf-8")


def apply_map(m: dict, values: list[float]) -> list[float]:
    """Apply a fitted map to values (for reports; the engine has its own copy)."""
    from judge.calibration import Calibration

    cal = Calibration({"d": m})
    return [cal.apply("d", v) for v in values]
