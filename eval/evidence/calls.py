"""Journalled model calls: an answer is paid for once, then read from the journal.

Every stage's answer is appended (fsynced) to ``DIR/journal/events.jsonl`` under the key
(stage@version, item) before the pipeline uses it, so a run killed at any point (even
``kill -9``) and run again asks the model only for what is not yet recorded. Stage wording
and versions are data (``templates/evidence.toml`` and the ``*.md`` files next to it).

Example:
    >>> card = load_card()
    >>> card.stage("relevance").tag
    'relevance@1'
"""

from __future__ import annotations

import asyncio
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field

from eval.kit.journal import Journal
from eval.kit.journal import key as journal_key
from skills.types import ModelCallError, ModelClient

TEMPLATES = Path(__file__).parent / "templates"
STAGES = ("relevance", "extract", "image_role", "template_fill", "screenshot", "feedback")
T = TypeVar("T", bound=BaseModel)


class StageCard(BaseModel):
    """One stage's template and version."""

    model_config = ConfigDict(extra="forbid")

    name: str = ""
    version: str
    template: str

    @property
    def tag(self) -> str:
        """``name@version``: recorded in journal keys and provenance."""
        return f"{self.name}@{self.version}"

    def system(self) -> str:
        """The stage's instructions (trusted text from the package)."""
        return (TEMPLATES / self.template).read_text(encoding="utf-8").strip()


class EvidenceCard(BaseModel):
    """All stages plus the relevance threshold."""

    model_config = ConfigDict(extra="forbid")

    relevance_threshold: int = Field(ge=1, le=5)
    stages: dict[str, StageCard]

    def stage(self, name: str) -> StageCard:
        """A stage by name."""
        card = self.stages[name]
        return card.model_copy(update={"name": name})


@lru_cache(maxsize=1)
def load_card(path: Path = TEMPLATES / "evidence.toml") -> EvidenceCard:
    """The stage card (read once)."""
    card = EvidenceCard.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
    missing = set(STAGES) - set(card.stages)
    if missing:
        raise ValueError(f"{path}: stages missing: {sorted(missing)}")
    return card


@dataclass
class CallStats:
    """Per stage: model calls made, answers replayed from the journal, answers shared with
    an identical question in flight, and calls that gave no valid answer."""

    made: dict[str, int]
    replayed: dict[str, int]
    failed: dict[str, int]
    shared: dict[str, int]


class JournalledCalls:
    """Structured calls through a client, each recorded in a journal once answered."""

    def __init__(self, journal: Journal, client: ModelClient, limits: dict[str, int]):
        self.journal = journal
        self.client = client
        self._gates = {s: asyncio.Semaphore(max(1, limits.get(s, 8))) for s in STAGES}
        self._running: dict[tuple[str, str], asyncio.Future] = {}
        self.stats = CallStats(*({s: 0 for s in STAGES} for _ in range(4)))

    async def ask(
        self, stage: StageCard, key: str, messages: list[dict], schema: type[T]
    ) -> T | None:
        """The answer for ``key`` (from the journal when recorded); ``None`` if the model
        gave no valid answer (the failure is counted, not raised)."""
        jkey = (stage.tag, key)
        done = self.journal.get(journal_key("call", *jkey))
        if done is not None:
            self.stats.replayed[stage.name] += 1
            return schema.model_validate(done)
        running = self._running.get(jkey)
        if running is not None:  # the same question is being asked: share its answer
            self.stats.shared[stage.name] += 1
            return await asyncio.shield(running)
        task = asyncio.ensure_future(self._ask(stage, jkey, messages, schema))
        self._running[jkey] = task
        try:
            return await asyncio.shield(task)
        finally:
            self._running.pop(jkey, None)

    async def _ask(
        self, stage: StageCard, jkey: tuple[str, str], messages: list[dict], schema: type[T]
    ) -> T | None:
        async with self._gates[stage.name]:
            try:
                answer = await self.client.structured(messages, schema, tag=stage.tag)
            except ModelCallError:
                self.stats.failed[stage.name] += 1
                return None
        self.stats.made[stage.name] += 1
        await self.journal.aput(journal_key("call", *jkey), answer.model_dump(mode="json"))
        return answer
