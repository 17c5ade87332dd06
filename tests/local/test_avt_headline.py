"""The documented AVT table, pinned (issue 22): the local backend, nested leave-one-prompt-out
over the whole AVT dev split (75 items; ``judge meta-eval --dataset avt --data
../shared/data/avt-dev --cv lopo``), against the best of the six IQA models per scale.

One run for the module (about 6 CPU-minutes on a cold private cache: the one headline figure
worth that). Judge ρ is compared at ±0.02: float32 encoder kernels differ in their last bits
across CPUs (see test_shipped_choices.py), which moves ρ by far less, and a change that moves ρ
by more makes the documented table wrong. The IQA baselines are fixed scores shipped with the
data, compared at ±0.005.
"Ahead of the best published model on every scale" is checked as a positive paired margin on
every scale, and the two scales whose paired CI excludes zero (appeal, appeal2) are checked too;
the other three CIs' status straddles zero and is not pinned."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eval.metaeval.meta_eval import MetaEvalConfig, run_meta_eval
from tests.eval.conftest import require_dev

pytestmark = pytest.mark.slow  # minutes of work: make test-fast leaves it out (docs/testing.md)

#: scale -> (judge ρ, best IQA model, its ρ, paired CI excludes zero or None if not pinned)
DOCUMENTED = {
    "prompt_matching": (0.493, "MANIQA", 0.245, None),
    "appeal": (0.692, "NIQE", 0.441, True),
    "realism": (0.403, "BRISQUE", 0.268, None),
    "quality": (0.628, "MANIQA", 0.475, None),
    "appeal2": (0.671, "NIQE", 0.471, True),
}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    dev = require_dev()
    out = tmp_path_factory.mktemp("avt-lopo")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JUDGE_CACHE_DIR", str(out / "cache"))  # computed here, nothing reused
        for var in ("JUDGE_MODEL", "JUDGE_LOCAL_MEMBERS", "JUDGE_LOCAL_WEIGHTS"):
            mp.delenv(var, raising=False)
        mp.delenv("JUDGE_LOCAL_SELECTION", raising=False)
        cfg = MetaEvalConfig(
            dataset="avt", data=Path(dev), out=out / "run", cv="lopo", progress=False
        )
        return run_meta_eval(cfg)


@pytest.mark.timeout(1800)  # a cold nested run: ~6 CPU-minutes, longer on a busy host
@pytest.mark.parametrize("scale", list(DOCUMENTED))
def test_documented_avt_figures(report: dict[str, Any], scale: str) -> None:
    rho, model, iqa_rho, excludes_zero = DOCUMENTED[scale]
    judge = report["targets"][scale]
    assert judge["n"] == 75  # coverage 75/75
    assert judge["spearman"] == pytest.approx(rho, abs=0.02)
    best = report["baselines"]["best_iqa"][scale]
    assert best["model"] == model and best["spearman"] == pytest.approx(iqa_rho, abs=0.005)
    margin = report["baselines"]["margin"][scale]
    assert margin["margin"] > 0, "the judge is no longer ahead of the best IQA model here"
    if excludes_zero is not None:
        assert margin["ci_excludes_zero"] is excludes_zero
