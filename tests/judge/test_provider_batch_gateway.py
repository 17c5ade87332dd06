"""Provider-batch mode of the gateway (judge.llm.batch) through litellm and the fake's batch API:
re-asks across rounds, lines that keep failing, a crash between creating a batch and journaling
it, and a Judge scored in rounds (the API a study runner uses)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import BaseModel

from judge.config import JudgeSettings
from judge.engine import Judge
from judge.llm.batch import (
    BatchPending,
    DeferredCall,
    ItemWaiting,
    ProviderBatch,
    run_in_rounds,
)
from judge.llm.batch.provider import BatchTarget
from judge.llm.gateway import LLMGateway
from judge.llm.usage import UsageMeter
from skills.types import ModelCallError
from tests.conftest import submission
from tests.fakes.provider import FakeProvider

MESSAGES = [{"role": "system", "content": "answer"}, {"role": "user", "content": "hello"}]


class Verdict(BaseModel):
    rationale: str
    verdict: bool


def settings(provider: FakeProvider) -> JudgeSettings:
    return JudgeSettings(model="openai/fake", api_base=provider.base_url, api_key="k")


async def ask_in_rounds(
    gw: LLMGateway, pb: ProviderBatch
) -> tuple[Verdict | Exception, UsageMeter]:
    """Ask once per pass until the answer (or a final error) is there."""
    got: dict = {}

    async def one_pass() -> int:
        pb.begin_pass()
        got["meter"] = meter = UsageMeter()
        with pb.item():
            try:
                got["answer"] = await gw.structured(
                    "openai/fake", MESSAGES, Verdict, tag="t", meter=meter
                )
            except DeferredCall:
                pass
            except ModelCallError as exc:
                got["answer"] = exc
        return pb.waiting_items

    await run_in_rounds(pb, one_pass, wait=True)
    return got["answer"], got["meter"]


async def test_a_reask_goes_out_in_the_next_batch(provider: FakeProvider, tmp_path: Path) -> None:
    provider.on("hello", {"rationale": "x", "verdict": "maybe"}, times=1)  # not a bool
    pb = ProviderBatch(tmp_path / "pb", settings(provider), poll_s=0.01)
    gw = LLMGateway(pb.settings, deferrer=pb)
    answer, meter = await ask_in_rounds(gw, pb)
    assert isinstance(answer, Verdict) and answer.verdict is True
    assert meter.reasks == 1 and meter.llm_calls == 2  # both replies came from batches
    assert provider.calls == 0 and provider.batches.stats()["batches_created"] == 2
    assert pb.summary()["answered_via"] == {"batch": 2}


async def test_a_line_that_keeps_failing_is_given_up_with_its_reason(
    provider: FakeProvider, tmp_path: Path
) -> None:
    provider.batches.fail_lines("hello", status=503, code="overloaded")
    pb = ProviderBatch(tmp_path / "pb", settings(provider), poll_s=0.01, max_attempts=3)
    gw = LLMGateway(pb.settings, deferrer=pb)
    answer, meter = await ask_in_rounds(gw, pb)
    assert isinstance(answer, ModelCallError)
    assert "overloaded" in str(answer) and "HTTP 503" in str(answer)
    assert meter.failed_calls >= 1
    assert provider.batches.stats()["batches_created"] == 3 and provider.calls == 0
    assert pb.summary()["states"] == {"failed": 1}


async def test_a_batch_created_before_a_crash_is_adopted_not_paid_twice(
    provider: FakeProvider, tmp_path: Path
) -> None:
    gw = LLMGateway(settings(provider))

    class CrashAfterCreate(ProviderBatch):
        def _created(self, local_id: str, batch: object) -> str:
            raise KeyboardInterrupt  # the process dies before the batch id is journaled

    pb = CrashAfterCreate(tmp_path / "pb", gw.settings)
    gw = LLMGateway(gw.settings, deferrer=pb)
    with pb.item() as ticket, pytest.raises(DeferredCall):
        await gw.structured("openai/fake", MESSAGES, Verdict, tag="t", meter=UsageMeter())
    assert ticket.waiting == 1
    with pytest.raises(KeyboardInterrupt):
        await pb.submit()
    pb.close()
    assert provider.batches.stats()["batches_created"] == 1

    again = ProviderBatch(tmp_path / "pb", gw.settings, poll_s=0.01)
    gw = LLMGateway(gw.settings, deferrer=again)
    assert again.in_flight()  # journaled as being created
    answer, _ = await ask_in_rounds(gw, again)
    assert isinstance(answer, Verdict)
    assert provider.batches.stats()["batches_created"] == 1  # found by its metadata
    assert provider.batches.stats()["uploads"] == 1


async def test_a_judge_scored_in_rounds_gives_the_direct_result(
    make_judge: Callable[..., Judge], provider: FakeProvider, tmp_path: Path
) -> None:
    sub = submission("CO", n_checks=2, n_images=2)
    direct = await make_judge(speculative_safety=False, safety_on_error="block").ascore(sub)
    direct_calls = provider.calls
    provider.reset()

    plain = make_judge(speculative_safety=False, safety_on_error="block")
    pb = ProviderBatch(tmp_path / "pb", plain.settings, poll_s=0.01)
    judge = make_judge(speculative_safety=False, safety_on_error="block", deferrer=pb)
    results = []

    async def one_pass() -> int:
        pb.begin_pass()
        try:
            results.append(await pb.settle(lambda: judge.ascore(sub)))
        except ItemWaiting as waiting:
            assert waiting.calls > 0
        return pb.waiting_items

    with pytest.raises(BatchPending, match="submitted"):
        await run_in_rounds(pb, one_pass, wait=False)  # round 1 submitted, nothing collected
    assert await run_in_rounds(pb, one_pass, wait=True) == 3  # safety, then the work, then done
    (batched,) = results
    assert batched.model_dump(exclude={"usage"}) == direct.model_dump(exclude={"usage"})
    assert batched.usage.llm_calls == direct.usage.llm_calls == direct_calls
    assert batched.usage.cache_hits == 0  # every call replayed from the journal
    assert provider.calls == 0 and provider.batches.stats()["batches_created"] == 2


def test_line_bodies_take_the_options_the_model_accepts() -> None:
    def body(model: str) -> dict:
        target = BatchTarget.of(model, JudgeSettings(model=model))
        return target.body(MESSAGES, {}, {"temperature": 0.0, "max_tokens": 100})

    assert body("openai/gpt-4o") == {
        "model": "gpt-4o",
        "messages": MESSAGES,
        "temperature": 0.0,
        "max_tokens": 100,
    }
    # a reasoning model: the token cap renamed, the fixed temperature dropped (as drop_params)
    assert body("openai/o3-mini") == {
        "model": "o3-mini",
        "messages": MESSAGES,
        "max_completion_tokens": 100,
    }
