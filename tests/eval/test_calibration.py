"""Calibration maps: fitting (eval.metaeval.calibration) and applying (judge.calibration)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from eval.metaeval.calibration import apply_map, fit_calibration, fit_map, save_calibration
from judge.calibration import Calibration, load_calibration
from judge.errors import ConfigError

PRED = [1.0, 2.0, 2.0, 3.0, 4.0, 5.0, 5.0]
HUMAN = [1.5, 1.8, 2.6, 2.9, 3.1, 3.4, 4.2]


def test_meanvar_matches_the_moments_by_hand() -> None:
    m = fit_map(PRED, HUMAN, "meanvar")
    assert m["method"] == "meanvar" and m["n"] == 7
    assert m["mu_p"] == pytest.approx(22 / 7)
    assert m["mu_h"] == pytest.approx(sum(HUMAN) / 7)
    # population standard deviations (ddof=0)
    assert m["sd_p"] == pytest.approx(np.sqrt(np.mean((np.array(PRED) - 22 / 7) ** 2)))
    assert m["sd_h"] == pytest.approx(np.std(HUMAN))
    # applied, the calibrated predictions have the humans' mean and spread (nothing clipped)
    out = np.array(apply_map(m, PRED))
    assert out.mean() == pytest.approx(m["mu_h"], abs=1e-3)
    assert out.std() == pytest.approx(m["sd_h"], abs=1e-3)


def test_meanvar_with_constant_predictions_does_not_divide_by_zero() -> None:
    m = fit_map([3, 3, 3, 3], [1, 2, 4, 5], "meanvar")
    assert m["sd_p"] == 1.0
    assert apply_map(m, [3.0]) == [3.0]


def test_isotonic_is_monotone_and_within_the_scale() -> None:
    rng = np.random.default_rng(3)
    p = rng.integers(1, 6, 40).astype(float)
    h = np.clip(p * 0.6 + 1 + rng.normal(0, 0.8, 40), 0.0, 6.5)  # labels may leave [1, 5]
    m = fit_map(list(p), list(h), "isotonic")
    assert m["method"] == "isotonic" and m["n"] == 40
    assert m["x"] == sorted(set(m["x"])) and m["x"][0] == 1.0 and m["x"][-1] == 5.0
    assert all(1.0 <= y <= 5.0 for y in m["y"])
    assert all(a <= b for a, b in itertools.pairwise(m["y"]))
    grid = list(np.linspace(0.0, 6.0, 61))
    out = apply_map(m, grid)
    assert all(1.0 <= v <= 5.0 for v in out)
    assert all(a <= b for a, b in itertools.pairwise(out))


def test_isotonic_on_an_increasing_relation_reproduces_it() -> None:
    m = fit_map([1, 2, 3, 4, 5], [1.5, 2.0, 2.5, 3.0, 3.5], "isotonic")
    assert apply_map(m, [1, 3, 5, 2.5]) == pytest.approx([1.5, 2.5, 3.5, 2.25])


def test_fit_map_errors() -> None:
    with pytest.raises(ValueError, match="at least 3"):
        fit_map([1, 2], [1, 2], "meanvar")
    with pytest.raises(ValueError, match="unknown calibration method 'linear'"):
        fit_map([1, 2, 3], [1, 2, 3], "linear")


def test_fit_calibration_keys_maps_by_dimension() -> None:
    pairs = {
        "appeal": (PRED, HUMAN),
        "appeal2": (PRED, list(reversed(HUMAN))),  # the same dimension: the first target wins
        "realism": ([1.0, 2.0], [2.0, 3.0]),  # too few pairs: no map
        "quality": (PRED, HUMAN),
    }
    cal = fit_calibration(
        pairs,
        "meanvar",
        dimension_of={"appeal": "appeal", "appeal2": "appeal", "quality": "quality"},
    )
    assert cal["format"] == 1 and cal["method"] == "meanvar" and "fitted_at" in cal
    assert sorted(cal["maps"]) == ["appeal", "quality"]
    assert cal["maps"]["appeal"]["target"] == "appeal"
    assert cal["maps"]["appeal"]["mu_h"] == pytest.approx(np.mean(HUMAN))


def test_saved_calibration_loads_in_the_engine(tmp_path: Path) -> None:
    cal = fit_calibration({"appeal": (PRED, HUMAN)}, "isotonic", dimension_of={})
    path = tmp_path / "calibration.json"
    save_calibration(cal, path)
    loaded = load_calibration(str(path))
    assert loaded.maps == json.loads(path.read_text())["maps"]
    assert loaded.label.startswith("calibration.json#")
    assert loaded.apply("appeal", 5) == pytest.approx(apply_map(cal["maps"]["appeal"], [5])[0])
    assert loaded.apply("realism", 4) == 4


def test_calibration_apply_by_hand() -> None:
    cal = Calibration(
        {
            "a": {"method": "meanvar", "mu_p": 3.0, "sd_p": 1.0, "mu_h": 2.0, "sd_h": 0.5},
            "b": {"method": "isotonic", "x": [1.0, 3.0, 5.0], "y": [1.2, 2.0, 4.4]},
            "z": {"method": "meanvar", "mu_p": 3.0, "sd_p": 0.0, "mu_h": 3.0, "sd_h": 2.0},
        }
    )
    assert cal.apply("a", 4) == 2.5  # 2 + (4 - 3) * 0.5 / 1
    assert cal.apply("a", 1) == 1.0  # 1.0, not below the scale
    assert cal.apply("b", 2) == pytest.approx(1.6)
    assert cal.apply("b", 4) == pytest.approx(3.2)
    assert cal.apply("b", 0.5) == pytest.approx(1.2)  # clamped to the first breakpoint
    assert cal.apply("z", 5) == 5.0  # sd_p 0 is read as 1; 3 + 2 * 2 = 7 clipped to 5
    assert cal.apply("z", 1) == 1.0
    assert cal.apply("unmapped", 3) == 3  # pass-through, unchanged
    assert isinstance(cal.apply("a", 4), float)


def test_calibration_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown method 'linear'"):
        Calibration({"a": {"method": "linear"}})
    with pytest.raises(ConfigError, match="does not exist"):
        load_calibration(str(tmp_path / "missing.json"))
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": 1}')
    with pytest.raises(ConfigError, match="expected JSON with a 'maps' object"):
        load_calibration(str(bad))
    bad.write_text("not json")
    with pytest.raises(ConfigError, match="expected JSON"):
        load_calibration(str(bad))
