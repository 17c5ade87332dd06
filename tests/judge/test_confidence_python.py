"""Confidence from Python: ``judge.score(..., confidence=...)``, ``judge.compare`` and
``Judge``, offline with the mock model (whose samples vary) and with the fake provider."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

import judge
from judge.engine import Judge
from tests.conftest import png_data_url, submission
from tests.modes.test_compare import is_pairwise, prefers_red


def test_score_with_samples_offline_on_the_mock_model():
    r = judge.score("a red cube on a white table", [png_data_url("red")],
                    checklist=["The cube is red.", "The table is white."],
                    model="mock/judge", confidence="samples:5")  # fmt: skip
    items = r.objective["image"].items
    assert all(i.confidence_method == "samples:5" for i in items)
    dims = [d.confidence for side in r.subjective.values() for d in side.values()]
    got = [i.confidence for i in items] + [c for c in dims if c is not None]
    assert all(0 <= c <= 1 for c in got)
    assert any(c < 1 for c in got)  # the mock's samples vary: not trivially certain
    checked = [i for side in r.objective.values() for i in side.items if i.verdict is not None]
    assert r.usage.confidence_calls == 5 * (len(checked) + len(dims))  # 5 per call made
    row = r.to_row()
    assert row["subjective.prompt.instructional_clarity.confidence"] == (
        r.subjective["prompt"]["instructional_clarity"].confidence
    )
    plain = judge.score("a red cube", [], checklist=["The cube is red."], model="mock/judge")
    assert not any(k.endswith(".confidence") for k in plain.to_row())


def test_compare_with_swap(provider):
    provider.on(is_pairwise, prefers_red)
    r = judge.compare("a red kite", png_data_url("blue"), png_data_url("red"),
                      criteria=["preference"], model="openai/fake-judge",
                      api_base=provider.base_url, api_key="k", confidence="swap")  # fmt: skip
    assert r.criteria["preference"].winner == "b"
    assert r.criteria["preference"].confidence == 1.0
    assert r.to_row()["criteria.preference.confidence"] == 1.0


async def test_judge_object_with_logprobs(provider):
    provider.token_probabilities = {"true": 0.75}
    j = Judge(model="openai/fake-judge", api_base=provider.base_url, api_key="k",
              confidence="logprobs")  # fmt: skip
    r = await j.ascore(submission("CO", n_checks=1))
    assert r.objective["prompt"].items[0].confidence == 0.75


def test_a_misspelt_method_is_refused_with_the_nearest_name():
    with pytest.raises(ValidationError, match="did you mean 'annotators'"):
        judge.score("a cube", [], checklist=["x"], model="mock/judge", confidence="annotator:3")
