"""The service's errors name what is true and every fault (issue 48, item 22): a misspelt option
gets "did you mean"; several faults are all named; an image's error is named as the client
wrote it (``submission.images[0]`` in the wrapped form, as ``submission.prompt`` is); the 401
of a service with only admin keys does not send people to an empty
``JUDGE_SERVE_API_KEYS``."""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from PIL import Image

from tests.api.conftest import LiveService, assert_error, live_service
from tests.api.test_service import fake_model_env
from tests.conftest import submission
from tests.fakes.provider import FakeProvider

ADMIN = "aZ4-nK7_rB3yH6cE-admin"


@pytest.fixture(scope="module")
def svc(module_tmp: Path, provider_session: FakeProvider) -> Iterator[LiveService]:
    env = {**fake_model_env(provider_session), "JUDGE_SERVE_ADMIN_KEYS": ADMIN,
           "JUDGE_IMAGE_MAX_BYTES": "2048"}  # fmt: skip
    with live_service(env, module_tmp / "svc") as s:
        yield s


@pytest.fixture
def client(svc: LiveService) -> Iterator[httpx.Client]:
    with svc.client(headers={"Authorization": f"Bearer {ADMIN}"}) as c:
        yield c


def test_the_401_with_only_admin_keys_names_what_is_set(svc: LiveService) -> None:
    with svc.client() as anon:
        err = assert_error(anon.post("/v1/score", json={}), 401, "Authorization")
    assert "JUDGE_SERVE_ADMIN_KEYS" in err["message"], err
    assert "from JUDGE_SERVE_API_KEYS" not in err["message"], err


def test_a_misspelt_option_gets_did_you_mean(client: httpx.Client) -> None:
    body = {"submission": submission(), "options": {"skils": ["@default"]}}
    err = assert_error(client.post("/v1/score", json=body), 400, "options.skils")
    assert "did you mean 'skills'?" in err["message"], err


def test_several_faults_are_all_named(client: httpx.Client) -> None:
    body = {"submission": {"task": {"id": "t"}, "prompt": 5}}
    err = assert_error(client.post("/v1/score", json=body), 400, "submission.task.category")
    for named in ("submission.task.brief", "submission.prompt"):
        assert named in err["message"], err


def big_png() -> str:
    buf = io.BytesIO()
    Image.effect_noise((64, 64), 64).convert("RGB").save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def test_an_image_fault_is_named_as_the_client_wrote_it(client: httpx.Client) -> None:
    sub = submission(prompt="images named")
    sub["images"] = [big_png()]
    err = assert_error(client.post("/v1/score", json={"submission": sub}), 400,
                       "submission.images[0]")  # fmt: skip
    assert "JUDGE_IMAGE_MAX_BYTES raises it" in err["message"], err
    assert_error(client.post("/v1/score", json=sub), 400, "images[0]")  # bare: as written
