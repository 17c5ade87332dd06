"""``options.trust`` on the service: policies installed by an admin in
``JUDGE_SERVE_TRUST_POLICIES`` and named by clients on ``POST /v1/score``, ``/v1/compare`` and
batches, against a live service and the fake provider; a cascade's second judge runs only
where the first abstained and ``usage.stages`` counts each; unknown names and policies of
another judge are 400 before any model call."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from api.judging.trust import load_policies
from judge.engine import Judge
from judge.errors import ConfigError
from judge.trust.fingerprint import Fingerprint, fingerprint
from tests.api.conftest import (
    LiveService,
    assert_error,
    batch_results,
    fake_judge_env,
    live_service,
    patched_env,
)
from tests.api.test_compare_api import comparison
from tests.conftest import submission
from tests.fakes.provider import FakeProvider
from tests.modes.test_compare import is_pairwise, prefers_red

CHEAP, STRONG = "openai/fake-judge", "openai/fake-strong"


def _stage(env: dict[str, str], model: str, body: dict, mode: str = "score") -> dict:
    """The fingerprint of ``model`` with samples:3, from a result judged in this process with
    the service's environment (the cards and memories the service will use)."""
    with patched_env(env):
        judge = Judge(model=model, confidence="samples:3", cache=False)
        result = judge.score(body) if mode == "score" else judge.compare(body)
    return {"name": model, "fingerprint": fingerprint(result.to_dict()).model_dump()}


def _kind(thresholds: list) -> dict:
    return {"certified": True, "thresholds": thresholds, "n": 200, "kept": 150,
            "coverage": 0.75, "agreement": 0.95}  # fmt: skip


def _write(folder: Path, name: str, stages: list[dict], kinds: dict) -> None:
    policy = {"target": 0.9, "delta": 0.1, "stages": stages, "kinds": kinds}
    (folder / f"{name}.json").write_text(json.dumps(policy))


@pytest.fixture(scope="module")
def service(module_tmp: Path, provider_session: FakeProvider) -> Iterator[LiveService]:
    provider_session.reset()
    provider_session.on(is_pairwise, prefers_red)
    env = fake_judge_env(provider_session, JUDGE_SERVE_MAX_CONFIDENCE_K="3")
    env["JUDGE_MEMORY_DIR"] = str(module_tmp / "data" / "memories")
    folder = module_tmp / "policies"
    folder.mkdir()
    sub, pair = submission("CO", n_checks=1), comparison()
    cheap, strong = _stage(env, CHEAP, sub), _stage(env, STRONG, sub)
    _write(folder, "checks", [cheap], {"verdict": _kind([0.5])})
    _write(folder, "cascade", [cheap, strong], {"verdict": _kind([None, 0.5])})
    _write(folder, "pairs", [_stage(env, CHEAP, pair, "compare")],
           {"winner.preference": _kind([0.5])})  # fmt: skip
    other = Fingerprint.model_validate({**cheap["fingerprint"], "digest": "", "options": {
        **cheap["fingerprint"]["options"], "image_max_side": 512}})  # fmt: skip
    _write(folder, "elsewhere", [{"name": CHEAP, "fingerprint": other.model_dump()}],
           {"verdict": _kind([0.5])})  # fmt: skip
    env["JUDGE_SERVE_TRUST_POLICIES"] = str(folder)
    with live_service(env, module_tmp / "data") as svc:
        yield svc


@pytest.fixture
def client(service: LiveService, provider_session: FakeProvider) -> Iterator[httpx.Client]:
    provider_session.reset()
    provider_session.on(is_pairwise, prefers_red)
    with service.client() as c:
        yield c


def test_score_under_a_policy(client: httpx.Client) -> None:
    body = {"submission": submission("CO", n_checks=1), "options": {"trust": "checks"}}
    r = client.post("/v1/score", json=body)
    assert r.status_code == 200, r.text
    got = r.json()
    item = got["objective"]["image"]["items"][0]
    assert item["confidence_method"] == "samples:3"  # the policy's judge, not asked for
    assert item["trusted"] is (item["confidence"] >= 0.5)
    assert "stages" not in got["usage"]  # one judge: no breakdown
    # the same request without the option reads as before: no trust fields at all
    plain = client.post("/v1/score", json=submission("CO", n_checks=1, prompt="untrusted"))
    assert plain.status_code == 200 and "trusted" not in plain.text


def test_a_cascade_escalates_to_the_strong_judge(
    client: httpx.Client, provider_session: FakeProvider
) -> None:
    body = {"submission": submission("CO", n_checks=1, prompt="cascade"),
            "options": {"trust": "cascade", "cache": False}}  # fmt: skip
    r = client.post("/v1/score", json=body)
    assert r.status_code == 200, r.text
    got = r.json()
    item = got["objective"]["image"]["items"][0]
    assert item["stage"] == STRONG and item["trusted"] is True  # the cheap judge never decides
    stages = got["usage"]["stages"]
    assert [s["name"] for s in stages] == [CHEAP, STRONG]
    verdicts = [i for side in got["objective"].values() for i in side["items"]]
    assert stages[1]["decisions"] == len(verdicts) == 2  # the verdicts (prompt, image) went on
    assert stages[0]["decisions"] > 2  # the first judge: every decision, ratings too
    assert got["usage"]["llm_calls"] == sum(s["llm_calls"] for s in stages)
    models = {b.get("model") for b in provider_session.requests}
    assert {"fake-judge", "fake-strong"} <= {str(m).split("/")[-1] for m in models}


def test_compare_and_batches(client: httpx.Client) -> None:
    r = client.post("/v1/compare", json={"comparison": comparison(), "options": {"trust": "pairs"}})
    assert r.status_code == 200, r.text
    crit = r.json()["criteria"]["preference"]
    assert crit["winner"] == "b" and crit["trusted"] is True
    items = [{"mode": "compare", **comparison("batch, trusted")}]
    lines = batch_results(client, {"items": items, "options": {"trust": "pairs"}})
    assert lines[0]["result"]["criteria"]["preference"]["trusted"] is True
    own = [{"comparison": comparison("own"), "options": {"trust": "pairs"}, "mode": "compare"}]
    assert batch_results(client, {"items": own})[0]["result"]["criteria"]["preference"]["trusted"]


def test_unknown_and_mismatched_policies_are_400(
    client: httpx.Client, provider_session: FakeProvider
) -> None:
    body = {"submission": submission("CO", n_checks=1), "options": {"trust": "chekcs"}}
    err = assert_error(client.post("/v1/score", json=body), 400, "options.trust")
    assert "did you mean 'checks'?" in err["message"]
    assert "cascade, checks, elsewhere, pairs" in err["message"]
    body["options"]["trust"] = "elsewhere"
    err = assert_error(client.post("/v1/score", json=body), 400, "options.trust")
    assert "image_max_side=512" in err["message"] and "image_max_side=1536" in err["message"]
    assert "options that differ: image_max_side" in err["message"]
    body["options"]["trust"] = 3
    assert_error(client.post("/v1/score", json=body), 400, "options.trust")
    bad = {"items": [submission("OE", n_checks=1)], "options": {"trust": "nope"}}
    assert_error(client.post("/v1/batches", json=bad), 400, "options.trust")
    assert provider_session.calls == 0


def test_a_bad_policy_file_stops_the_start(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text('{"target": 2}')
    with pytest.raises(ConfigError, match=r"broken.json: target"):
        load_policies(tmp_path)
    assert load_policies(None) == {}
    with pytest.raises(ConfigError, match="not a folder"):
        load_policies(tmp_path / "missing")
