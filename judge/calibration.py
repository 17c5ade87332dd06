"""Per-dimension score calibration maps, fitted on labelled data and applied at scoring time.

Two methods (fitted by :mod:`eval.metaeval.calibration`):
- ``meanvar``: mean–variance matching, ``h = mu_h + (p - mu_p) * sd_h / sd_p``;
- ``isotonic``: a monotone piecewise-linear map through fitted points.
Calibrated scores are clipped to [1, 5]; the raw score stays in the result.

File format::

    {"format": 1, "fitted_on": "...", "maps": {
        "appeal": {"method": "meanvar", "mu_p": 3.1, "sd_p": 0.6, "mu_h": 2.7, "sd_h": 0.8},
        "realism": {"method": "isotonic", "x": [1.0, 3.0, 5.0], "y": [1.2, 2.5, 4.1]}}}

Example:
    >>> cal = Calibration({"a": {"method": "meanvar", "mu_p": 3, "sd_p": 1, "mu_h": 2, "sd_h": 2}})
    >>> cal.apply("a", 4), cal.apply("b", 4)
    (4.0, 4)
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from judge.errors import ConfigError


class Calibration:
    """Maps keyed by dimension name; dimensions without a map pass through."""

    def __init__(self, maps: dict[str, dict[str, Any]], label: str = "inline"):
        for dim, m in maps.items():
            if m.get("method") not in ("meanvar", "isotonic"):
                raise ConfigError(f"calibration for {dim!r}: unknown method {m.get('method')!r}")
        self.maps = maps
        self.label = label

    def apply(self, dimension: str, score: float) -> float:
        """The calibrated score (clipped to 1–5), or ``score`` unchanged without a map."""
        m = self.maps.get(dimension)
        if m is None:
            return score
        if m["method"] == "meanvar":
            sd_p = m["sd_p"] or 1.0
            value = m["mu_h"] + (score - m["mu_p"]) * m["sd_h"] / sd_p
        else:
            value = float(np.interp(score, m["x"], m["y"]))
        return round(min(5.0, max(1.0, float(value))), 4)


@lru_cache(maxsize=16)
def _load(path: str, mtime: float) -> Calibration:
    raw = Path(path).read_bytes()
    try:
        data = json.loads(raw)
        maps = data["maps"]
    except (ValueError, KeyError, TypeError):
        raise ConfigError(f"calibration file {path}: expected JSON with a 'maps' object") from None
    return Calibration(maps, label=f"{Path(path).name}#{hashlib.sha256(raw).hexdigest()[:8]}")


def load_calibration(path: str) -> Calibration:
    """Load (and cache until the file changes) a calibration file."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"calibration file {path} does not exist")
    return _load(str(p.resolve()), p.stat().st_mtime)
