"""Warm-up: an OpenAI-wire provider's warm-up call makes a whole round trip on loopback."""

from __future__ import annotations

import asyncio
import json

import litellm
import pytest

from benchmarks.support.spans import call_span, parse_marker, record_call_spans
from judge.llm import warmup
from judge.llm.warm_stub import serve_canned_completion
from tests.conftest import png_data_url


async def test_canned_stub_answers_a_litellm_call_with_an_image_part():
    async with serve_canned_completion() as base:
        assert base.startswith("http://127.0.0.1:") and base.endswith("/v1")
        resp = await litellm.acompletion(
            model="openai/warm-test",
            messages=warmup._MESSAGES,
            response_format=warmup._SCHEMA,
            api_base=base,
            api_key="k",
            max_retries=0,
            timeout=60,  # a hang guard, not a speed check
        )
    assert json.loads(resp.choices[0].message.content) == {"ok": True}
    assert resp.usage.prompt_tokens == 1


async def test_stub_stops_listening_when_the_block_ends():
    async with serve_canned_completion() as base:
        port = int(base.rsplit(":", 1)[1].split("/")[0])
    with pytest.raises(OSError):
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.close()


def test_openai_wire_warm_up_makes_a_round_trip(monkeypatch):
    replies: list[str] = []
    real = litellm.acompletion

    async def spy(**kwargs):
        resp = await real(**kwargs)
        replies.append(resp.choices[0].message.content)
        return resp

    monkeypatch.setattr(litellm, "acompletion", spy)
    warmup._warm("openai/warm-test", "openai")
    assert replies == ['{"ok": true}']  # answered, not refused


def test_other_providers_warm_against_a_closed_port(monkeypatch):
    bases: list[str] = []

    async def spy(**kwargs):
        bases.append(kwargs["api_base"])
        raise ConnectionRefusedError

    monkeypatch.setattr(litellm, "acompletion", spy)
    warmup._warm("ollama_chat/llava", "ollama_chat")
    assert len(bases) == 1 and bases[0].startswith("http://127.0.0.1:")


async def test_call_spans_cover_first_start_to_last_end(make_judge):
    with record_call_spans() as spans:
        result = await make_judge().acompare(
            {
                "id": "s1",
                "prompt": "a fox",
                "a": {"image": png_data_url("red")},
                "b": {"image": png_data_url("blue")},
            }
        )
    assert len(spans) == result.usage.llm_calls == 9
    span = call_span(spans)
    assert span is not None and 0 < span <= result.usage.latency_s
    assert call_span([]) is None


def test_marker_is_read_back_from_stderr():
    err = 'some log\nBENCH-SPANS {"calls": 3, "span_s": 0.5}\n'
    assert parse_marker(err) == {"calls": 3, "span_s": 0.5}
    assert parse_marker("nothing here") is None


def test_engine_warm_up_builds_the_answer_schemas_before_any_request(make_judge):
    from judge.llm.gateway import response_format
    from skills.schemas import answer_schemas

    judge = make_judge()
    judge.wait_warm(timeout_s=60)
    schemas = answer_schemas(judge.registry.cards(enabled_only=False))
    assert len(schemas) > 5
    misses = response_format.cache_info().misses
    for schema in schemas:
        response_format(schema)
    assert response_format.cache_info().misses == misses  # every one already built


async def test_warm_up_runs_once_per_provider_and_starts_without_work_on_the_caller() -> None:
    """``start`` only queues (litellm and the provider look-up run on the warm-up thread);
    two models of one provider are warmed once, another provider once more."""
    import threading

    seen: list[tuple[str, str, str]] = []

    def record(model: str, provider: str) -> None:
        seen.append((model, provider, threading.current_thread().name))

    once = warmup.OncePerProvider(record, "test warm-up")
    models = ["openai/a", "openai/b", "anthropic/claude-x", "openai/a"]
    futures = once.start(models)
    assert len(futures) == 4 and futures[0] is futures[3]
    await once.ready(models)
    assert [(m, p) for m, p, _ in seen] == [
        ("openai/a", "openai"),
        ("anthropic/claude-x", "anthropic"),
    ]
    assert all(name.startswith("judge-warmup") for _, _, name in seen)


@pytest.mark.slow
def test_a_local_score_never_imports_litellm(tmp_path) -> None:
    """The local backend calls no model: a whole ``judge score`` leaves litellm unimported
    (its import costs seconds of CPU)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    code = (
        "import sys; from judge.cli.main import main; "
        "rc = main(['score', 'examples/co_106/submission.json', '--compact']); "
        "print('LITELLM', 'litellm' in sys.modules, rc, file=sys.stderr)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=repo, env=env, capture_output=True, text=True
    )
    assert "LITELLM False 0" in proc.stderr, proc.stderr[-2000:]
