"""Per-request work done once: the content fingerprint (it hashes every image) and each view's
encoding for the model, however many calls the request makes."""

from __future__ import annotations

import judge.io.images
from judge.modes.compare.request import Comparison
from judge.modes.edit.request import EditSubmission
from tests.conftest import png_data_url


def counting(monkeypatch, cls: type, name: str) -> list[int]:
    """Replace the property ``cls.name`` with one that counts its evaluations."""
    calls: list[int] = []
    original = getattr(cls, name)

    def counted(self):
        calls.append(1)
        return original.fget(self)

    monkeypatch.setattr(cls, name, property(counted))
    return calls


async def test_comparison_fingerprint_is_computed_once_per_request(make_judge, monkeypatch):
    calls = counting(monkeypatch, Comparison, "comparison_id")
    comparison = {  # no "id": the fingerprint of the content identifies it
        "prompt": "a red fox in the snow",
        "a": {"image": png_data_url("red"), "model": "x"},
        "b": {"image": png_data_url("blue"), "model": "y"},
    }
    result = await make_judge().acompare(comparison)
    assert result.usage.llm_calls == 9  # 3 criteria x 2 orders + 3 safety screens
    assert len(calls) == 1
    assert result.comparison_id == Comparison.model_validate(comparison).comparison_id


async def test_edit_fingerprint_is_computed_once_per_request(make_judge, monkeypatch):
    calls = counting(monkeypatch, EditSubmission, "submission_id")
    edit = {
        "mode": "edit",
        "instruction": "make the cube blue",
        "source_image": png_data_url("red"),
        "images": [png_data_url("blue")],
    }
    result = await make_judge().arun_request(edit)
    assert result.usage.llm_calls > 1
    assert len(calls) == 1


async def test_each_view_is_encoded_once_per_request(make_judge, monkeypatch):
    encodes: list[tuple[int, int]] = []
    original = judge.io.images.to_payload

    def counted(img, max_side):
        encodes.append(img.size)
        return original(img, max_side)

    monkeypatch.setattr(judge.io.images, "to_payload", counted)
    comparison = {
        "id": "c1",
        "prompt": "a red fox in the snow",
        "a": {"image": png_data_url("red", (64, 48)), "model": "x"},
        "b": {"image": png_data_url("blue", (48, 64)), "model": "y"},
    }
    result = await make_judge().acompare(comparison)
    assert result.usage.llm_calls == 9  # each image is shown in 6 calls
    assert sorted(encodes) == [(48, 64), (64, 48)]  # yet encoded once each


async def test_views_are_downscaled_once_to_the_max_side(make_judge, provider):
    big = png_data_url("red", (300, 200))
    comparison = {
        "id": "c2",
        "prompt": "a fox",
        "a": {"image": big},
        "b": {"image": png_data_url("blue")},
    }
    await make_judge(image_max_side=150).acompare(comparison)
    sizes = {info.width for call in provider.wire_calls for info in call.images}
    assert 150 in sizes and 300 not in sizes
