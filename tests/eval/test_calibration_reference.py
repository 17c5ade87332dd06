"""Isotonic calibration checked against references: a worked pool-adjacent-violators example
by hand, and scikit-learn's ``IsotonicRegression`` on random data, through the engine's own
apply (``judge.calibration``), which does not use scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.isotonic import IsotonicRegression

from eval.metaeval.calibration import apply_map, fit_map

ROUNDING = 5e-5 + 1e-12  # the engine rounds calibrated scores to 4 decimals


def test_isotonic_worked_example_by_hand() -> None:
    # per prediction the mean label is 3 (x2), 1, 3 (x2), 2, 5; pooling the violators:
    # {3, 3, 1} -> 7/3 at 1 and 2, {3, 3, 2} -> 8/3 at 3 and 4, 5 stays at 5
    m = fit_map([1, 1, 2, 3, 3, 4, 5], [2, 4, 1, 3, 3, 2, 5], "isotonic")
    assert m["x"] == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert m["y"] == pytest.approx([7 / 3, 7 / 3, 8 / 3, 8 / 3, 5.0])
    # between breakpoints the map is linear; outside the fitted range it is clamped; the
    # engine reports calibrated scores to 4 decimals
    out = apply_map(m, [4.5, 3.5, 0.5, 6.0])
    assert out == pytest.approx([23 / 6, 8 / 3, 7 / 3, 5.0], abs=ROUNDING)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_isotonic_matches_scikit_learn_through_the_engine(seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = np.round(rng.uniform(1, 5, 60), 1)
    h = np.clip(0.7 * p + rng.normal(0.8, 0.9, 60), 0.0, 6.0)  # labels may leave [1, 5]
    m = fit_map(list(p), list(h), "isotonic")
    reference = IsotonicRegression(y_min=1.0, y_max=5.0, out_of_bounds="clip").fit(p, h)
    grid = np.linspace(0.5, 5.5, 201)
    np.testing.assert_allclose(apply_map(m, list(grid)), reference.predict(grid), atol=ROUNDING)
