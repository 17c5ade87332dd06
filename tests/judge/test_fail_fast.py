"""Errors no retry can fix fail at once, are said once, and `judge score` exits 4."""

from __future__ import annotations

import asyncio
import json
import logging
import socket

import litellm
import pytest
from pydantic import BaseModel

from judge.config import JudgeSettings
from judge.engine import Judge
from judge.llm.gateway import LLMGateway
from judge.llm.retry import fatal_cause, is_transient
from judge.llm.usage import UsageMeter
from skills.types import ModelCallError
from tests.conftest import submission
from tests.judge.test_cli import run_cli, write_submission

MESSAGES = [{"role": "system", "content": "answer"}, {"role": "user", "content": "hello"}]
# the defaults' backoff: the old behaviour spent ~30 s retrying a closed port
SLOW_BACKOFF = dict(backoff_base_s=0.5, backoff_max_s=20.0, max_retries=6)


class Verdict(BaseModel):
    rationale: str
    verdict: bool


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def retry_warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "judge.llm"]


async def test_connection_refused_is_not_retried(caplog):
    base = f"http://127.0.0.1:{closed_port()}/v1"
    judge = Judge(JudgeSettings(model="openai/refused", api_base=base, api_key="k", **SLOW_BACKOFF))
    caplog.set_level(logging.WARNING, "judge.llm")
    result = await judge.ascore(submission("CO", n_checks=3))
    assert result.usage.latency_s < 10.0, result.usage  # was ~30 s of backoff
    assert result.status == "partial" and result.usage.retries == 0
    assert result.safety.passed is None
    reasons = [d.reason for d in result.subjective["prompt"].values()]
    assert reasons and all("connection refused" in r and "JUDGE_API_BASE" in r for r in reasons)
    said = [m for m in retry_warnings(caplog) if "connection refused" in m]
    assert len(said) == 1, said  # said once, not once per call


@pytest.mark.parametrize(
    ("fault", "expected"),
    [("401", "JUDGE_API_KEY"), ("403", "may use this model"), ("404", "JUDGE_MODEL")],
)
async def test_auth_and_unknown_model_fail_at_once(provider, fault, expected, monkeypatch):
    provider.fail_next([fault])
    settings = JudgeSettings(
        model="openai/fake", api_base=provider.base_url, api_key="k", **SLOW_BACKOFF
    )
    gw, meter = LLMGateway(settings), UsageMeter()
    waits: list[float] = []
    real_sleep = asyncio.sleep

    async def recorded(delay: float, *args: object) -> object:
        if delay:
            waits.append(delay)
        return await real_sleep(delay, *args)

    monkeypatch.setattr(asyncio, "sleep", recorded)  # "at once": no backoff wait, counted
    with pytest.raises(ModelCallError) as err:
        await gw.structured("openai/fake", MESSAGES, Verdict, tag=f"t{fault}", meter=meter)
    monkeypatch.undo()
    assert not [w for w in waits if w >= SLOW_BACKOFF["backoff_base_s"] / 2], waits
    assert provider.calls == 1 and meter.retries == 0 and meter.failed_calls == 1
    assert f"HTTP {fault}" in str(err.value) and expected in str(err.value)


async def test_transient_errors_are_retried_and_said_once(provider, caplog):
    provider.fail_next(["429", "429", "429"])
    settings = JudgeSettings(
        model="openai/fake", api_base=provider.base_url, api_key="k", backoff_base_s=0.001
    )
    gw, meter = LLMGateway(settings), UsageMeter()
    caplog.set_level(logging.WARNING, "judge.llm")
    for i in range(3):
        msgs = [MESSAGES[0], {"role": "user", "content": f"hello {i}"}]
        await gw.structured("openai/said-once", msgs, Verdict, tag="t", meter=meter)
    assert meter.retries == 3
    said = [m for m in retry_warnings(caplog) if "openai/said-once" in m]
    assert len(said) == 1 and "rate limited (HTTP 429)" in said[0] and "retrying" in said[0]


def test_unknown_host_is_fatal_and_server_errors_are_not():
    dns = litellm.InternalServerError("Connection error.", "openai", "m")
    dns.__cause__ = socket.gaierror(-2, "Name or service not known")
    assert fatal_cause(dns) == "unknown host" and not is_transient(dns)
    busy = litellm.InternalServerError("overloaded", "openai", "m")
    assert fatal_cause(busy) is None and is_transient(busy)
    refused = litellm.APIConnectionError("Connection error.", "openai", "m")
    refused.__context__ = ConnectionRefusedError(111, "Connect call failed")
    assert fatal_cause(refused) == "connection refused" and not is_transient(refused)


@pytest.mark.slow
def test_cli_exits_4_fast_when_nothing_could_be_scored(tmp_path):
    """The README's wrong set-up (a closed port) ends quickly, says why once, exits 4."""
    path = write_submission(tmp_path)
    proc = run_cli(
        "score", str(path), "--model", "openai/gpt-4o",
        "--api-base", f"http://127.0.0.1:{closed_port()}/v1", "--compact",
    )  # fmt: skip
    assert proc.returncode == 4, proc.stderr
    assert "Traceback" not in proc.stderr
    warned = [x for x in proc.stderr.splitlines() if x.startswith("WARNING judge.llm")]
    assert len(warned) == 1 and "connection refused; not retried" in warned[0], proc.stderr
    assert "judge: nothing could be scored" in proc.stderr
    data = json.loads(proc.stdout)
    assert data["status"] == "partial" and data["safety"]["passed"] is None
    # the run itself (process start aside) ends at once instead of ~30 s of backoff
    assert data["usage"]["retries"] == 0 and data["usage"]["latency_s"] < 10.0
