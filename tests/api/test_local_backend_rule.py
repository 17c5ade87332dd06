"""One rule for the local backend on the service (issue 48, item 16): it runs only by the
operator's choice. A service started without a judge model runs it for every request (its
start says so), so a request may name it; one asking for ``llm`` there gets ``409
no_judge_model`` naming what the operator sets, not a CLI hint. On a service with a model, a
request may ask for the local backend only where ``JUDGE_SERVE_ALLOW_LOCAL_BACKEND=true``.
Before, a model-less service ran the local backend for every request yet refused a request
that named it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from api.cli import judge_lines
from api.core.settings import ServiceSettings
from api.judging.policy import check_overrides
from judge.config import JudgeSettings
from judge.errors import ConfigError, InputError
from tests.api.conftest import LiveService, assert_error, live_service
from tests.conftest import submission

MODELLESS, WITH_MODEL = JudgeSettings(), JudgeSettings(model="openai/fake-judge")
CLOSED, OPEN = ServiceSettings(), ServiceSettings(allow_local_backend=True)


def test_a_modelless_service_takes_local_and_auto_and_refuses_llm() -> None:
    check_overrides({"backend": "local"}, CLOSED, MODELLESS)  # what it runs anyway
    check_overrides({"backend": "auto"}, CLOSED, MODELLESS)
    with pytest.raises(ConfigError, match=r"no judge model.*JUDGE_MODEL") as caught:
        check_overrides({"backend": "llm"}, CLOSED, MODELLESS)
    assert caught.value.field == "options.backend"  # type: ignore[attr-defined]


def test_a_service_with_a_model_takes_local_only_when_the_operator_allows() -> None:
    with pytest.raises(InputError, match="JUDGE_SERVE_ALLOW_LOCAL_BACKEND=true"):
        check_overrides({"backend": "local"}, CLOSED, WITH_MODEL)
    check_overrides({"backend": "local"}, OPEN, WITH_MODEL)
    check_overrides({"backend": "llm"}, CLOSED, WITH_MODEL)


def test_the_start_says_which_judge_answers_and_the_rule() -> None:
    modelless = " ".join(judge_lines(MODELLESS, CLOSED))
    assert "the local backend (no judge model" in modelless, modelless
    assert "requests asking for backend 'llm' get 409" in modelless, modelless
    with_model = " ".join(judge_lines(WITH_MODEL, CLOSED))
    assert "the judge model openai/fake-judge" in with_model, with_model
    assert "not the local backend" in with_model and "ALLOW_LOCAL_BACKEND" in with_model
    assert "may also ask for the local backend" in " ".join(judge_lines(WITH_MODEL, OPEN))
    mock = " ".join(judge_lines(JudgeSettings(model="mock/judge"), CLOSED))
    assert "made up" in mock, mock


@pytest.fixture(scope="module")
def modelless(module_tmp: Path) -> Iterator[LiveService]:
    with live_service({}, module_tmp / "modelless", wait_warm=False) as svc:
        yield svc


def test_an_llm_request_on_a_modelless_service_is_409(modelless: LiveService) -> None:
    body = {"submission": submission(), "options": {"backend": "llm"}}
    with modelless.client() as c:
        err = assert_error(c.post("/v1/score", json=body), 409, "options.backend")
        assert err["code"] == "no_judge_model", err
        assert "JUDGE_MODEL" in err["message"] and "--model" not in err["message"], err
        r = c.post("/v1/batches", json={"items": [submission()], "options": {"backend": "llm"}})
        assert_error(r, 409, "options.backend")
        # asking for what it runs is no fault: the request passes the policy and meets the
        # next check (the card it names), where it used to be refused as options.backend
        options = {"backend": "local", "skills": ["no_such_card"]}
        r = c.post("/v1/score", json={"submission": submission(), "options": options})
        assert_error(r, 400, "options.skills")
