"""``judge meta-eval --provider-batch``: the judge calls go through the fake provider's batch API
(``/v1/files``, ``/v1/batches``) by litellm; results, resume, fallbacks and a killed collect."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from judge.cli.main import main
from judge.llm.batch import EXIT_BATCH_PENDING
from tests.eval.conftest import EXPERT, cli_args
from tests.fakes.provider import FakeProvider, OllamaFake

pytestmark = pytest.mark.slow  # minutes of work: make test-fast leaves it out (docs/testing.md)

REPO = Path(__file__).resolve().parents[2]
# safety first, and nothing else until it has passed: two rounds of batches
TWO_ROUNDS = {"safety": True, "speculative_safety": False, "safety_on_error": "block"}
FAST = {"provider_batch": True, "batch_wait": True, "batch_poll_s": 0.01}


def read_preds(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]


def metrics(report: dict) -> dict:
    """Everything the report measured (not where it ran or how it was paid)."""
    return {k: v for k, v in report.items() if k not in ("out", "config", "provider_batch")}


_DIRECT: dict[str, tuple[dict, int]] = {}


def direct_run(
    meta_eval: Callable[..., dict], provider: FakeProvider, out: Path
) -> tuple[dict, int]:
    """The plain expert run in direct mode and how many distinct requests it sent (once per
    module: the fake answers deterministically), leaving the provider's records reset.

    Distinct, not calls: two items of the set ask one identical question, and identical calls
    in flight at once are not merged, so the call count depends on timing (a batch holds each
    distinct request once)."""
    if "plain" not in _DIRECT:
        report = meta_eval(EXPERT, out, dataset="expert-jsonl")
        _DIRECT["plain"] = (report, distinct_requests(provider))
    provider.reset()
    return _DIRECT["plain"]


def distinct_requests(provider: FakeProvider) -> int:
    """How many different request bodies the provider received."""
    return len({json.dumps(body, sort_keys=True) for body in provider.requests})


def without_usage(preds: list[dict]) -> list[dict]:
    return [{k: v for k, v in p.items() if k != "usage"} for p in preds]


def expert_cli(provider: FakeProvider, out: Path, *extra: str) -> list[str]:
    args = cli_args(provider, "--dataset", "expert-jsonl", "--data", EXPERT, "--out", out)
    return [*args, *extra]


def test_batch_mode_gives_the_direct_modes_metrics_without_a_direct_call(
    meta_eval: Callable[..., dict], provider: FakeProvider, tmp_path: Path
) -> None:
    direct = meta_eval(EXPERT, tmp_path / "d", dataset="expert-jsonl", overrides=TWO_ROUNDS)
    direct_calls = provider.calls
    assert direct_calls > 0
    provider.reset()
    batched = meta_eval(
        EXPERT, tmp_path / "b", dataset="expert-jsonl", overrides=TWO_ROUNDS, **FAST
    )
    assert provider.calls == 0  # not one direct chat completion
    stats = provider.batches.stats()
    assert stats["batches_created"] == 2  # round 1: the safety screens; round 2: the skills
    assert stats["lines_answered"] == direct_calls
    assert metrics(batched) == metrics(direct)
    assert without_usage(read_preds(tmp_path / "b")) == without_usage(read_preds(tmp_path / "d"))
    pb = batched["provider_batch"]
    assert pb["batches"] == 2 and pb["answered_via"] == {"batch": direct_calls}
    assert pb["states"] == {"answered": direct_calls}


def test_resume_across_invocations(
    provider: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    provider.batches.configure(polls=1)  # the first poll sees it running, the second done
    args = expert_cli(provider, out, "--provider-batch")
    assert main(args) == EXIT_BATCH_PENDING
    err = capsys.readouterr().err
    assert "batch batch_fake" in err and "submitted" in err and "Re-run the same command" in err
    assert not (out / "report.json").exists()
    assert not (out / "predictions.jsonl").read_text().strip()  # nothing recorded as done
    assert main(args) == EXIT_BATCH_PENDING  # the batch is still running
    assert "still running" in capsys.readouterr().err
    assert main(args) == 0  # collected, every item scored from the answers
    report = json.loads((out / "report.json").read_text())
    assert report["provider_batch"]["batches"] == 1
    assert provider.calls == 0 and provider.batches.stats()["batches_created"] == 1
    assert len(read_preds(out)) == 4 and all("error" not in p for p in read_preds(out))
    assert "provider batch: 1 batch(es)" in capsys.readouterr().out


def test_failed_and_expired_lines_go_into_a_new_batch(
    meta_eval: Callable[..., dict], provider: FakeProvider, tmp_path: Path
) -> None:
    direct, n_calls = direct_run(meta_eval, provider, tmp_path / "d")
    provider.batches.expire_next(keep=0)  # batch 1 expires unanswered
    provider.batches.fail_lines("Exactly three seagulls are in the sky.", status=500, times=1)
    batched = meta_eval(EXPERT, tmp_path / "b", dataset="expert-jsonl", **FAST)
    assert metrics(batched) == metrics(direct)
    assert provider.calls == 0
    stats = provider.batches.stats()
    # batch 2 resends all; one of its lines fails with a 500 and goes out in batch 3
    assert stats["batches_created"] == 3
    assert stats["lines_failed"] == n_calls + 1
    pb = batched["provider_batch"]
    assert pb["requests_with_failed_lines"] == n_calls
    assert pb["answered_via"] == {"batch": n_calls}


def test_failed_lines_can_fall_back_to_direct_calls(
    meta_eval: Callable[..., dict], provider: FakeProvider, tmp_path: Path
) -> None:
    direct, n_calls = direct_run(meta_eval, provider, tmp_path / "d")
    provider.batches.expire_next(keep=3)
    out = tmp_path / "b"
    wait = ("--provider-batch", "--wait", "--batch-poll-s", "0.01")
    assert main(expert_cli(provider, out, *wait, "--provider-batch-fallback", "direct")) == 0
    batched = json.loads((out / "report.json").read_text())
    assert metrics(batched) == metrics(direct)
    assert provider.batches.stats()["batches_created"] == 1
    # the expired lines went out directly, each distinct request once (see direct_run)
    assert distinct_requests(provider) == n_calls - 3 <= provider.calls <= n_calls - 1
    assert batched["provider_batch"]["answered_via"] == {"batch": 3, "direct": n_calls - 3}
    assert batched["provider_batch"]["fallback"] == "direct"


def test_a_line_the_provider_refuses_fails_only_its_own_check(
    meta_eval: Callable[..., dict], provider: FakeProvider, tmp_path: Path
) -> None:
    provider.batches.fail_lines("Exactly three seagulls are in the sky.", status=400)
    meta_eval(EXPERT, tmp_path / "b", dataset="expert-jsonl", **FAST)
    preds = {p["id"]: p for p in read_preds(tmp_path / "b")}
    assert preds["co_501-human"]["objective"]["image"]["c1"] is None  # unscored, not guessed
    assert preds["co_501-human"]["objective"]["prompt"]["c1"] is True
    assert provider.batches.stats()["batches_created"] == 1  # a 400 is not sent again
    assert provider.calls == 0


def test_batch_price_is_recorded_beside_the_list_price(
    provider: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = expert_cli(provider, out, "--provider-batch", "--wait", "--batch-poll-s", "0.01")
    args[args.index("openai/fake")] = "openai/gpt-4o-mini"  # a model litellm can price
    assert main([*args, "--limit", "2"]) == 0
    pb = json.loads((out / "report.json").read_text())["provider_batch"]
    assert pb["prompt_tokens"] > 0 and pb["cost_usd"] > 0
    assert pb["list_price_usd"] == pytest.approx(2 * pb["cost_usd"], rel=1e-3)
    assert pb["saved_usd"] == pytest.approx(pb["cost_usd"], rel=1e-3)
    assert f"${pb['cost_usd']} (list price ${pb['list_price_usd']})" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--wait"], "apply to --provider-batch"),
        (["--provider-batch-fallback", "direct"], "apply to --provider-batch"),
        (["--provider-batch", "--url", "http://127.0.0.1:9"], "with --url the service"),
        (["--provider-batch", "--batch-poll-s", "0"], "--batch-poll-s must be positive"),
    ],
)
def test_bad_batch_options_exit_2(
    provider: FakeProvider,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    assert main(expert_cli(provider, tmp_path / "o", *extra)) == 2
    assert message in capsys.readouterr().err


def test_a_provider_without_a_batch_api_is_refused(
    provider: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = expert_cli(provider, tmp_path / "o", "--provider-batch")
    args[args.index("openai/fake")] = "ollama/llava"
    assert main(args) == 2
    assert "no batch API in litellm" in capsys.readouterr().err
    assert provider.calls == 0


def test_a_process_killed_mid_collect_resumes_without_resubmitting(
    provider: FakeProvider, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    args = expert_cli(provider, out, "--provider-batch")
    assert main(args) == EXIT_BATCH_PENDING  # submitted
    provider.batches.configure(polls=0, content_delay_s=60)  # done, but downloads hang
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "judge.cli.main", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while provider.batches.stats().get("content_started", 0) == 0:
            assert proc.poll() is None, "the collecting run ended before it downloaded"
            assert time.monotonic() < deadline, "the collecting run never downloaded"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)  # killed in the middle of collecting
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    provider.batches.configure(content_delay_s=0)
    assert main(args) == 0
    stats = provider.batches.stats()
    assert stats["batches_created"] == 1 and stats["uploads"] == 1  # nothing sent twice
    assert provider.calls == 0
    preds = read_preds(out)
    assert len(preds) == 4 and all("error" not in p for p in preds)


def test_an_endpoint_without_a_batch_api_exits_2_with_advice(
    provider: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with OllamaFake() as other:  # answers chat, has no /v1/files
        args = expert_cli(provider, tmp_path / "o", "--provider-batch")
        args[args.index(provider.base_url)] = other.base_url.rstrip("/") + "/v1"
        assert main(args) == 2
    err = capsys.readouterr().err
    assert "provider batch API" in err and "upload" in err and "without --provider-batch" in err
