"""A request is validated once: the service checks it (``check_body``) and the engine runs the
checked request without parsing or checking it again; ``Judge.score`` from Python still
validates what it is given."""

from __future__ import annotations

from typing import Any

import pytest

from api.core.settings import ServiceSettings
from api.judging.requests import check_body
from judge.errors import InputError
from judge.modes.score.mode import ScoreMode
from tests.conftest import submission


def counting(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """Count the calls of ``ScoreMode.<name>``."""
    calls: list[int] = []
    original = getattr(ScoreMode, name)

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(ScoreMode, name, counted)
    return calls


async def test_the_service_path_parses_and_checks_a_request_once(
    make_judge: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    parses, checks = counting(monkeypatch, "parse"), counting(monkeypatch, "check")
    judge = make_judge()
    body = {"submission": submission("OE", n_checks=1), "options": {"retrieval": "none"}}
    checked = check_body(body, judge, ServiceSettings())
    assert checked.settings.retrieval == "none" and checked.overrides == {"retrieval": "none"}
    result = await judge.arun_checked(checked)
    assert result.status in ("scored", "partial")
    assert (len(parses), len(checks)) == (1, 1)


async def test_python_entry_points_still_validate(
    make_judge: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge = make_judge()
    bad = {**submission("OE", n_checks=1), "prompt": 7}
    with pytest.raises(InputError) as exc:
        await judge.ascore(bad)
    assert exc.value.field == "prompt"
    with pytest.raises(InputError) as exc:
        await judge.ascore(submission("OE", n_checks=1), skills=["no_such_card"])
    assert exc.value.field == "skills"
    checks = counting(monkeypatch, "check")
    result = await judge.ascore(submission("OE", n_checks=1))
    assert result.status in ("scored", "partial") and len(checks) == 1
