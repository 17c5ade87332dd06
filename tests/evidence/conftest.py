"""Fixtures: the synthetic posts export and the fake provider answering as a correct LLM."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.evidence.export import KEYWORDS, Truth, build_export
from tests.fakes.provider import FakeProvider


@pytest.fixture
def export(tmp_path: Path) -> tuple[Path, Truth]:
    """(posts.jsonl, truth) in a fresh folder, with the test's keyword file next to it."""
    folder = tmp_path / "export"
    folder.mkdir()
    truth = build_export(folder)
    (folder / "keywords.toml").write_text(KEYWORDS, encoding="utf-8")
    return folder / "posts.jsonl", truth


@pytest.fixture
def correct_llm(provider: FakeProvider, export: tuple[Path, Truth]) -> FakeProvider:
    """The fake provider scripted to answer every from-posts stage correctly."""
    truth = export[1]
    provider.on(lambda body: "response_format" in body, truth.answer)
    return provider
