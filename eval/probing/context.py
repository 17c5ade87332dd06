"""What a probe run needs, in one object: parameters, the LLM writer, the renderer, the judge,
the journal, the image sink, the overrides source, progress and per-stage call counts.

Example::

    ctx = ProbeContext(params, writer, render, labeller, MemoryJournal(), MemoryImages())
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from eval.probing.journal import Journal, step
from eval.probing.labelling import Labeller
from eval.probing.params import ProbeParams
from eval.probing.storage import ImageSink
from eval.probing.tree import Override
from eval.probing.writer import ProbeWriter


class Rendered(Protocol):
    """What a renderer answers (``judge.llm.images.Generation`` fits)."""

    status: str
    reason: str | None
    images: list[bytes]


RenderFn = Callable[[str, int], Awaitable[Rendered]]
"""``(prompt, n) -> Rendered``: the model under test."""


async def no_overrides() -> dict[str, Override]:
    """The overrides source of a run nobody corrects."""
    return {}


@dataclass
class ProbeContext:
    """Shared by every node of one run."""

    params: ProbeParams
    writer: ProbeWriter
    render: RenderFn
    labeller: Labeller
    journal: Journal
    images: ImageSink
    overrides: Callable[[], Awaitable[dict[str, Override]]] = no_overrides
    progress: Callable[[str, int], None] = lambda stage, n: None
    calls: Counter[str] = field(default_factory=Counter)

    async def step(self, key: str, make: Callable[[], Awaitable[Any]]) -> Any:
        """A journaled step (see :mod:`eval.probing.journal`)."""
        return await step(self.journal, key, make)

    async def call(self, stage: str, key: str, make: Callable[[], Awaitable[Any]]) -> Any:
        """A journaled model call, counted under ``stage`` only when it really runs."""

        async def counted() -> Any:
            self.count(stage)
            return await make()

        return await self.step(key, counted)

    def count(self, stage: str, n: int = 1) -> None:
        """Count a model request issued for ``stage`` (cached steps are not counted)."""
        self.calls[stage] += n


def text_key(text: str) -> str:
    """A short stable key of a text (journal keys of sub-prompts)."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]
