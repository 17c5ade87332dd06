"""What a probe run needs, in one object: parameters, the LLM writer, the renderer, the judge,
the journal, the image sink, the overrides source, progress and per-stage call counts.

Example::

    ctx = ProbeContext(params, writer, render, labeller, Journal(), MemoryImages())
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

from eval.kit.journal import StepStore, step
from eval.probing.labelling import Labels
from eval.probing.localise import Composer
from eval.probing.params import ProbeParams
from eval.probing.scene_graph import compose
from eval.probing.storage import ImageSink
from eval.probing.tree import Override
from eval.probing.writer import ProbeWriter


class Rendered(Protocol):
    """What a renderer answers (``eval.t2i.Generation`` fits)."""

    status: str
    reason: str | None
    images: list[bytes]


RenderFn = Callable[[str, int], Awaitable[Rendered]]
"""``(prompt, n) -> Rendered``: the model under test."""

LOCALISING: ContextVar[str | None] = ContextVar("probe_localising", default=None)
"""The input whose localisation sub-inputs the current task is testing (None elsewhere).
Set per task, so concurrent localisations never see each other's: an editor probe edits
every sub-instruction on the source picture of the instruction it came from, even when two
instructions split into the same sub-instruction."""


def _quiet(task: asyncio.Future[Any]) -> None:
    """Retrieve an unused task's error so it is not logged as never retrieved."""
    if not task.cancelled():
        task.exception()


async def no_overrides() -> dict[str, Override]:
    """The overrides source of a run nobody corrects."""
    return {}


@dataclass
class ProbeContext:
    """Shared by every node of one run."""

    params: ProbeParams
    writer: ProbeWriter
    render: RenderFn
    labeller: Labels
    journal: StepStore
    images: ImageSink
    overrides: Callable[[], Awaitable[dict[str, Override]]] = no_overrides
    progress: Callable[[str, int], None] = lambda stage, n: None
    meter: Callable[[str, int], None] | None = None
    """Called with ``(stage, n)`` before requests are made; may raise to refuse them (the
    service's budget, :mod:`api.probes.meter`)."""
    compose: Composer = compose
    """How a set of scene-graph atoms reads as an input (localisation's sub-inputs)."""
    calls: Counter[str] = field(default_factory=Counter)
    renders: dict[str, asyncio.Task[Any]] = field(default_factory=dict)
    graphs: dict[str, asyncio.Task[Any]] = field(default_factory=dict)

    def render_ahead(self, prompts: list[str]) -> None:
        """Start rendering candidate inputs while the relevance review runs (a rejected one
        wastes its render; an accepted one saves a round trip)."""
        for prompt in prompts:
            if prompt not in self.renders:
                self.count("test_render")
                task = asyncio.ensure_future(self.render(prompt, self.params.images))
                task.add_done_callback(_quiet)
                self.renders[prompt] = task

    def parse_ahead(self, prompt: str) -> None:
        """Ask for an input's scene graph while its images are judged (used if it is a bug)."""
        if self.params.localise and prompt not in self.graphs:
            self.count("scene_graph")
            task = asyncio.ensure_future(self.writer.scene_graph(prompt))
            task.add_done_callback(_quiet)
            self.graphs[prompt] = task

    def drop_ahead(self) -> None:
        """Cancel work started ahead that nobody used (renders of rejected candidates, scene
        graphs of inputs that passed)."""
        for task in [*self.renders.values(), *self.graphs.values()]:
            task.cancel()
        self.renders.clear()
        self.graphs.clear()

    async def step(self, key: str, make: Callable[[], Awaitable[Any]]) -> Any:
        """A journaled step (see :mod:`eval.kit.journal`)."""
        return await step(self.journal, key, make)

    async def call(self, stage: str, key: str, make: Callable[[], Awaitable[Any]]) -> Any:
        """A journaled model call, counted under ``stage`` only when it really runs."""

        async def counted() -> Any:
            self.count(stage)
            return await make()

        return await self.step(key, counted)

    def count(self, stage: str, n: int = 1) -> None:
        """Count a model request issued for ``stage`` (cached steps are not counted); the
        ``meter``, when set, is charged first and may refuse it."""
        if self.meter is not None:
            self.meter(stage, n)
        self.calls[stage] += n


def text_key(text: str) -> str:
    """A short stable key of a text (journal keys of sub-prompts)."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]
