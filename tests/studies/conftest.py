"""Fixtures for the task-suite tests: the example suite, small suites in temporary folders,
settings wired to the loopback fake provider and scripted checklist replies."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from judge.config import JudgeSettings
from tests.fakes.provider import FakeProvider

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "study"


def write_lines(path: Path, lines: list[dict | str]) -> Path:
    """A JSONL file from dicts (dumped) and strings (written as they are)."""
    text = "".join((json.dumps(x) if isinstance(x, dict) else x) + "\n" for x in lines)
    path.write_text(text, encoding="utf-8")
    return path


def task(id: str = "t1", category: str = "OE", **extra: object) -> dict:
    """A minimal valid task line (no checklist unless given)."""
    return {"id": id, "category": category, "brief": f"Brief of {id}.", **extra}


def check(id: str, primitive: str = "quantity", parent: str | None = None) -> dict:
    """A paired checkpoint."""
    out = {
        "id": id,
        "primitive": primitive,
        "prompt_check": f"The prompt asks for {id}.",
        "image_check": f"The image shows {id}.",
    }
    if parent:
        out["parent"] = parent
    return out


def reply(checks: list[tuple[str, str]], deps: list[tuple[str, str]] = ()) -> dict:
    """A checklist answer as the model would give it: (id, primitive) checks, (child, parent)."""
    return {
        "checks": [
            {
                "id": cid,
                "primitive": prim,
                "prompt_check": f"The prompt asks for {cid}.",
                "image_check": f"The image shows {cid}.",
            }
            for cid, prim in checks
        ],
        "depends_on": [{"child": c, "parent": p} for c, p in deps],
    }


GOOD = reply(
    [("q1", "quantity"), ("q2", "attribute_binding"), ("q3", "spatial_relation")],
    [("q2", "q1"), ("q3", "q2")],
)


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    """A folder holding a copy of the example targets (``targets/*.png``)."""
    shutil.copytree(EXAMPLE / "targets", tmp_path / "targets")
    return tmp_path


@pytest.fixture
def fake_settings(provider: FakeProvider) -> Callable[..., JudgeSettings]:
    """Settings for checklist generation against the fake provider, fast retries."""

    def make(**overrides: object) -> JudgeSettings:
        values: dict = dict(
            model="openai/fake-writer",
            api_base=provider.base_url,
            api_key="test-key",
            backoff_base_s=0.001,
            backoff_max_s=0.01,
            timeout_s=60.0,  # a hang guard, not a speed check
            max_reasks=1,
            cache=False,
        )
        values.update(overrides)
        return JudgeSettings(**values)

    return make


def is_checklist_call(body: dict) -> bool:
    """Whether a provider request asks for a checklist (by its answer schema)."""
    fmt = body.get("response_format") or {}
    return (fmt.get("json_schema") or {}).get("name", "").startswith("Generated")
