"""The judge's litellm settings are applied when litellm is first loaded and survive a
benchmark's swap."""

from __future__ import annotations

import os

import litellm
import pytest

from benchmarks import llm_call as call_bench
from judge.llm import litellm_settings

litellm_settings.load()  # what the warm-up thread does before a process's first model call


def test_loading_litellm_applies_the_judge_settings() -> None:
    for name, value in litellm_settings.TUNED.items():
        current = os.environ.get(name) if name.isupper() else getattr(litellm, name)
        assert current == value, name
    assert litellm.turn_off_message_logging is True
    assert litellm.suppress_debug_info is True


def test_logging_payload_never_sees_the_images() -> None:
    """With message logging off, litellm redacts the messages it logs: the data URLs are
    neither copied nor scanned."""
    from litellm.litellm_core_utils.redact_messages import redact_message_input_output_from_logging

    url = "data:image/png;base64," + "A" * 5000
    messages = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}]
    details = {"messages": messages, "standard_logging_object": {"messages": messages}}
    redact_message_input_output_from_logging(details, result=None)
    assert url not in str(details["messages"])
    assert url not in str(details["standard_logging_object"]["messages"])
    assert messages[0]["content"][0]["image_url"]["url"] == url  # the caller's list is intact


def test_defaults_cover_the_same_names_and_differ() -> None:
    assert set(litellm_settings.DEFAULTS) == set(litellm_settings.TUNED)
    assert litellm_settings.DEFAULTS != litellm_settings.TUNED


def test_applied_swaps_in_and_restores() -> None:
    handler = litellm_settings.OPENAI_HTTP_HANDLER
    before = os.environ.get(handler)
    with litellm_settings.applied(litellm_settings.DEFAULTS):
        assert litellm.turn_off_message_logging is False
        assert litellm.suppress_debug_info is False
        assert handler not in os.environ  # litellm's default: the variable is unset
    assert litellm.turn_off_message_logging is True
    assert litellm.suppress_debug_info is True
    assert os.environ.get(handler) == before


def test_unknown_setting_is_refused_with_a_hint() -> None:
    with pytest.raises(AttributeError, match="no setting 'no_such_switch'"):
        litellm_settings.apply({"no_such_switch": True})


def test_call_bench_parses_set_values() -> None:
    assert call_bench.parse_set(["disable_aiohttp_transport=true", "x=abc", "n=3"]) == {
        "disable_aiohttp_transport": True,
        "x": "abc",
        "n": 3,
    }
    with pytest.raises(SystemExit, match="NAME=VALUE"):
        call_bench.parse_set(["oops"])


@pytest.mark.slow
def test_call_bench_runs_against_the_fake_provider(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--calls", "2", "--set", "disable_aiohttp_transport=true"]
    assert call_bench.main([*argv, "--route", "hosted_vllm/fake-judge"]) == 0
    out = capsys.readouterr().out
    for row in ("litellm-defaults", "judge ", "judge+set", "judge hosted_vllm/"):
        assert row in out
    # the benchmark leaves the judge's settings in place
    assert litellm.turn_off_message_logging is True
    assert litellm.disable_aiohttp_transport is False


def test_call_bench_refuses_zero_calls() -> None:
    with pytest.raises(SystemExit) as exc:
        call_bench.main(["--calls", "0"])
    assert exc.value.code == 2


@pytest.mark.slow
def test_any_litellm_import_through_the_judge_is_offline_first() -> None:
    """Whichever module of ``judge.llm`` imports litellm first (here the image path, before the
    gateway), litellm's bundled price map is used, never a fetch from GitHub."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM_LOCAL")}
    code = (
        "import os, eval.t2i.pricing as p, litellm; "
        "print(os.environ['LITELLM_LOCAL_MODEL_COST_MAP'], "
        "os.environ['LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS'], bool(litellm.model_cost))"
    )
    repo = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=repo, env=env, capture_output=True, text=True
    )
    assert out.stdout.split() == ["True", "True", "True"], out.stderr[-2000:]
