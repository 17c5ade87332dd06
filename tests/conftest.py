"""Shared fixtures: a fake OpenAI-compatible provider on loopback, submissions, images."""

from __future__ import annotations

import base64
import io
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
for _var in ("JUDGE_MODEL", "JUDGE_API_BASE", "JUDGE_API_KEY", "JUDGE_PANEL"):
    os.environ.pop(_var, None)

from PIL import Image

from judge.config import JudgeSettings
from judge.engine import Judge
from tests.fakes.provider import FakeProvider

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "co_106" / "submission.json"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the tests marked ``slow`` first (a stable sort: otherwise collection order), so
    that under ``make test`` (pytest-xdist, ``--dist loadfile``: a worker takes a whole file,
    so its module fixtures are built once) no file of minutes starts last and leaves the
    other worker idle at the end. The mark is the only list: no order to keep by hand."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session", autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every test runs on a cache of its own session (``JUDGE_CACHE_DIR``, inherited by the
    subprocesses tests start): nothing a user's cache holds can hide a regression, and the
    tests write nothing into it. Tests that need an empty cache set their own."""
    cache = tmp_path_factory.mktemp("judge-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JUDGE_CACHE_DIR", str(cache))
        yield cache


SESSION_TIMING = {"latency": 0.0, "jitter": 0.0, "hang_s": 3.0}
"""The session provider's timing; :func:`pristine` puts it back (``reset`` keeps timing)."""


def pristine(fp: FakeProvider) -> FakeProvider:
    """``fp`` reset (calls, scripts, faults, gate) and with the session's timing again."""
    fp.reset()
    for name, value in SESSION_TIMING.items():
        setattr(fp, name, value)
    return fp


@pytest.fixture(scope="session")
def provider_session() -> Iterator[FakeProvider]:
    with FakeProvider(**SESSION_TIMING) as fp:
        yield fp


@pytest.fixture
def provider(provider_session: FakeProvider) -> Iterator[FakeProvider]:
    """The session's fake provider, pristine before each test and left pristine after it: a
    test that slows it down (``latency = 30.0`` to make calls time out) must not slow down
    the next test on the same worker, which may use ``provider_session`` directly."""
    yield pristine(provider_session)
    pristine(provider_session)


@pytest.fixture
def make_judge(provider: FakeProvider) -> Callable[..., Judge]:
    """A Judge wired to the fake provider through litellm, with fast retries."""

    def factory(**overrides: object) -> Judge:
        settings = JudgeSettings(
            model="openai/fake-judge",
            api_base=provider.base_url,
            api_key="test-key",
            backoff_base_s=0.001,
            backoff_max_s=0.01,
            timeout_s=60.0,  # a hang guard, not a speed check
        )
        return Judge(settings, **overrides)

    return factory


def png_data_url(color: str = "red", size: tuple[int, int] = (32, 32)) -> str:
    """A small solid-colour PNG as a data URL."""
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def submission(
    category: str = "CO", n_checks: int = 3, n_images: int = 1, prompt: str = "a red cube"
) -> dict:
    """A valid submission with ``n_checks`` paired checkpoints and ``n_images`` images."""
    colors = ["red", "green", "blue", "yellow", "white", "black", "gray", "orange"]
    return {
        "task": {
            "id": f"{category.lower()}_1",
            "category": category,
            "brief": "Render a red cube on a white table.",
            "target_image": png_data_url("purple") if category == "IM" else None,
            "checklist": [
                {
                    "id": f"c{k + 1}",
                    "primitive": "attribute_binding",
                    "prompt_check": f"The prompt states requirement {k + 1}.",
                    "image_check": f"The image shows requirement {k + 1}.",
                }
                for k in range(n_checks)
            ],
        },
        "prompt": prompt,
        "images": [png_data_url(colors[i % len(colors)]) for i in range(n_images)],
        "prompter": {"id": "tester", "kind": "human"},
        "backend": "test-backend",
    }
