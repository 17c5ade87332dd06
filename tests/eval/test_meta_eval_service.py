"""``judge meta-eval --url`` against a real service on loopback (issue 22): the HTTP client
(:class:`eval.kit.client.ServiceJudge`), its ``JUDGE_SERVICE_KEY``, and ``exclude_exemplars``
sent over HTTP — the leave-one-prompt-out guarantee when scoring goes through the service."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from eval.datasets.avt import AvtDataset
from eval.kit.client import ServiceJudge
from judge.cli.main import main
from judge.domain.result import Result
from memory.store import MemoryStore
from tests.api.conftest import LiveService, copy_shipped_memory, live_service
from tests.eval.conftest import AVT_SKILLS
from tests.fakes.provider import FakeProvider

SERVICE_KEY = "meta-eval-service-key"


@pytest.fixture(scope="module")
def service(
    tmp_path_factory: pytest.TempPathFactory, provider_session: FakeProvider
) -> Iterator[LiveService]:
    """The service with the shipped ``avt-image`` memory (built from the dev split's labels:
    exactly what must be left out when the dev split is scored through it), keys required."""
    data = tmp_path_factory.mktemp("meta-eval-service")
    copy_shipped_memory("avt-image", data / "memories")
    env = {
        "JUDGE_MODEL": "openai/fake-judge",
        "JUDGE_API_BASE": provider_session.base_url,
        "JUDGE_API_KEY": "provider-key",
        "JUDGE_SERVE_API_KEYS": SERVICE_KEY,
        "JUDGE_SAFETY": "false",
        "JUDGE_BACKOFF_BASE_S": "0.001",
        "JUDGE_BACKOFF_MAX_S": "0.01",
        "JUDGE_MEMORY_DIR": str(data / "memories"),
    }
    with live_service(env, data) as svc:
        yield svc


def read_preds(out: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines() if x]


@pytest.mark.slow
def test_meta_eval_through_the_service_sends_the_service_key(
    service: LiveService,
    provider: FakeProvider,
    split_a: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the slow lopo test of this module runs first (slow tests lead the run) and may have left
    # these items' answers in the service's response cache: empty it, so scoring calls the model
    with redis.Redis.from_url(service.redis_url) as r:
        r.flushdb()
    args = ["meta-eval", "--dataset", "avt", "--data", str(split_a), "--url", service.base_url]
    args += ["--limit", "3", "--n-boot", "0"]
    monkeypatch.delenv("JUDGE_SERVICE_KEY", raising=False)
    assert main([*args, "--out", str(tmp_path / "keyless")]) == 4  # nothing scored: exit 4
    refused = read_preds(tmp_path / "keyless")
    assert len(refused) == 3 and all("401" in p["error"] for p in refused), refused
    assert provider.calls == 0  # refused at the door: no model call was made

    monkeypatch.setenv("JUDGE_SERVICE_KEY", SERVICE_KEY)
    assert main([*args, "--out", str(tmp_path / "keyed")]) == 0
    preds = read_preds(tmp_path / "keyed")
    assert len(preds) == 3 and not [p for p in preds if "error" in p], preds
    assert all(p["exemplars"] for p in preds)  # scored with the service's own memory
    assert provider.calls > 0
    # the service's provider key never came from this side: the service used its own
    assert not [r for r in provider.requests if "provider-key" in json.dumps(r)]


def exemplar_ids(result: Result) -> set[str]:
    return {
        e.id for side in result.subjective.values() for dim in side.values() for e in dim.exemplars
    }


def test_exclude_exemplars_over_http_leaves_the_items_prompt_out(
    service: LiveService, provider: FakeProvider, split_a: Path
) -> None:
    memory = MemoryStore(service.data_dir / "memories").load("avt-image")
    prompt_of = {r.id: r.meta.get("prompt_id") for r in memory.records}
    item = AvtDataset().load(split_a)[0]
    assert item.group and item.group in prompt_of.values()
    client = ServiceJudge(service.base_url, api_key=SERVICE_KEY, retries=0)

    async def both() -> tuple[Result, Result]:
        try:
            opts: dict[str, Any] = {"skills": AVT_SKILLS}
            open_ = await client.score(item.submission, item.base_dir, opts)
            left_out = {**opts, "exclude_exemplars": {"prompt_id": item.group}}
            return open_, await client.score(item.submission, item.base_dir, left_out)
        finally:
            await client.aclose()

    with_own, without_own = asyncio.run(both())
    own = {i for i, p in prompt_of.items() if p == item.group}
    # without the option the item's own prompt calibrates it (its own image is in the memory)
    assert exemplar_ids(with_own) & own, "the check below would prove nothing"
    # sent over HTTP, the option leaves every exemplar of the item's prompt out
    assert exemplar_ids(without_own) and not exemplar_ids(without_own) & own


@pytest.mark.slow
def test_lopo_through_the_service_leaves_each_group_out_and_a_leak_is_reported(
    service: LiveService, split_a: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """Issue 38 item 13: ``--cv lopo --url`` is allowed (the client sends each item's group as
    ``exclude_exemplars``), and a run without it, whose service memory holds the scored split,
    names the items calibrated on their own labels."""
    monkeypatch.setenv("JUDGE_SERVICE_KEY", SERVICE_KEY)
    args = ["meta-eval", "--dataset", "avt", "--data", str(split_a), "--url", service.base_url]
    args += ["--limit", "3", "--n-boot", "0", "--skills", ",".join(AVT_SKILLS)]
    assert main([*args, "--out", str(tmp_path / "open")]) == 0
    leaked = json.loads((tmp_path / "open" / "report.json").read_text())["own_group_exemplars"]
    assert leaked, "the shipped memory is the dev split: without lopo each item sees its own"
    assert "calibrated on their own labels" in capsys.readouterr().err

    assert main([*args, "--cv", "lopo", "--out", str(tmp_path / "lopo")]) == 0
    report = json.loads((tmp_path / "lopo" / "report.json").read_text())
    assert report["own_group_exemplars"] == [] and report["config"]["cv"] == "lopo"
    preds = read_preds(tmp_path / "lopo")
    assert len(preds) == 3 and all(p["exemplars"] for p in preds)
    assert "own labels" not in capsys.readouterr().err
