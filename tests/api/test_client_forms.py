"""One script, in-process and through the service (issue 38, item 15).

``judge.score("a prompt", [image])`` and ``judge.Client(url).score("a prompt", [image])`` take
the same forms (prompt and images as paths, bytes or PIL images, with the same keyword fields,
or the request dict) and return the same types, for ``score``, ``compare`` and ``edit``: the
script below runs unchanged against both, on the fake model through litellm.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from PIL import Image

import judge
from judge.domain.result import Result
from judge.modes.compare.result import ComparisonResult
from judge.modes.edit.result import EditResult
from tests.api.conftest import LiveService
from tests.api.test_service import fake_model_env, unique
from tests.fakes.provider import FakeProvider


def script(score: Any, compare: Any, edit: Any, folder: Path) -> list[Any]:
    """A user's script: every form judge.score/compare/edit take."""
    red, blue = Image.new("RGB", (64, 64), "red"), Image.new("RGB", (64, 64), "blue")
    red.save(folder / "red.png")
    png = (folder / "red.png").read_bytes()
    return [
        score(unique("a red cube"), [folder / "red.png"], checklist=["The cube is red."]),
        score(unique("a red cube"), red),
        score(unique("a red cube"), [png], brief="a cube", category="OE"),
        score({"task": {"id": "t", "category": "OE", "brief": "b", "checklist": []},
               "prompt": unique("a red cube"), "images": [str(folder / "red.png")]}),
        compare(unique("a red square"), red, blue, criteria=["alignment"]),
        edit("Make it blue.", red, [blue]),
    ]


def kinds(results: list[Any]) -> list[tuple[type, str | None]]:
    return [(type(r), getattr(r, "status", None)) for r in results]


def test_one_script_in_process_and_through_the_service(
    open_service: LiveService, provider_session: FakeProvider, tmp_path: Path
) -> None:
    env = fake_model_env(provider_session)
    settings = {"model": env["JUDGE_MODEL"], "api_base": env["JUDGE_API_BASE"],
                "api_key": env["JUDGE_API_KEY"], "backoff_base_s": 0.001}
    local = script(*(functools.partial(f, **settings)
                     for f in (judge.score, judge.compare, judge.edit)), tmp_path)
    with judge.Client(open_service.base_url) as client:
        served = script(client.score, client.compare, client.edit, tmp_path)
    assert [type(r) for r in local] == [Result] * 4 + [ComparisonResult, EditResult]
    assert kinds(served) == kinds(local)
    assert all(sorted(r.to_row()) == sorted(s.to_row()) for r, s in zip(local, served, strict=True))
    assert local[0].to_row()["objective.image.total"] == served[0].to_row()[
        "objective.image.total"] == 1
