"""The LLM side of probing: inputs, relevance + checklists, topics, reflections, scene graphs.

Every call goes through the project's gateway (structured output, re-asks, retries, usage).
Instructions are the trusted prompt files in ``eval/probing/prompts/``; the topic, generated
inputs, records and reflections reach the model only inside data blocks.

Example::

    writer = ProbeWriter(gateway.client("openai/gpt-4o", UsageMeter()))
    texts = await writer.inputs("counting", parent=None, records=[], reflection=None, count=5)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from string import Template
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from eval.probing import mock_answers  # noqa: F401  (how mock/judge answers these questions)
from eval.probing.scene_graph import SceneGraph
from skills.rendering import data_block

PROMPTS = Path(__file__).parent / "prompts"
MAX_TEXT = 1200


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class InputBatch(_Strict):
    """Generated prompts."""

    inputs: list[str] = Field(min_length=1, max_length=40)


class Reviewed(_Strict):
    """One candidate's relevance and checklist."""

    index: int = Field(ge=0, le=60)
    relevant: bool
    checks: list[str] = Field(default_factory=list, max_length=8)


class ReviewBatch(_Strict):
    """The relevance review of all candidates."""

    results: list[Reviewed]


class TopicBatch(_Strict):
    """Proposed child topics."""

    topics: list[str] = Field(min_length=1, max_length=12)


class Reflection(_Strict):
    """Failure patterns of a node."""

    patterns: list[str] = Field(default_factory=list, max_length=12)
    summary: str = Field(max_length=MAX_TEXT)

    def text(self) -> str:
        """The reflection as stored on the node."""
        points = "\n".join(f"- {p.strip()}" for p in self.patterns if p.strip())
        return f"{self.summary.strip()}\n{points}".strip()


@lru_cache(maxsize=32)
def _template(name: str, folder: Path = PROMPTS) -> Template:
    path = folder / f"{name}.md"
    if not path.is_file():  # a variant folder (prompts/edit/) falls back to the base prompt
        path = PROMPTS / f"{name}.md"
    return Template(path.read_text(encoding="utf-8"))


def system(name: str, folder: Path = PROMPTS, **values: object) -> dict[str, str]:
    """The system message of prompt file ``name`` (trusted numbers substituted), from
    ``folder`` when it has that file (``prompts/edit/`` for editors), else the base one."""
    return {"role": "system", "content": _template(name, folder).substitute(values).strip()}


def records_text(records: list[dict[str, Any]]) -> str:
    """Test records as JSON lines ``{"topic", "input", "result"}``; ``N/A`` when none."""
    return "\n".join(json.dumps(r, ensure_ascii=False) for r in records) or "N/A"


class ProbeWriter:
    """Wraps one gateway client (``skills.types.ModelClient``) for the probe's LLM calls;
    ``prompts`` is the folder of prompt files (``PROMPTS / "edit"`` probes an editor)."""

    def __init__(self, client: Any, prompts: Path = PROMPTS):
        self.client = client
        self.prompts = prompts

    async def _ask(self, name: str, blocks: dict[str, str], schema: type, **values: object):
        user = "\n\n".join(data_block(label, text) for label, text in blocks.items())
        messages = [system(name, self.prompts, **values), {"role": "user", "content": user}]
        return await self.client.structured(messages, schema, tag=f"probe-{name}")

    async def inputs(
        self,
        topic: str,
        *,
        parent: str | None,
        records: list[dict[str, Any]],
        reflection: str | None,
        count: int,
        max_words: int,
        avoid: Sequence[str] = (),
    ) -> list[str]:
        """``count`` new prompts for ``topic`` (may return fewer or more; callers filter)."""
        blocks = {"TOPIC": topic, "PARENT TOPIC": parent or "N/A"}
        blocks["TEST RECORDS"] = records_text(records)
        blocks["REFLECTION"] = reflection or "N/A"
        if avoid:
            blocks["REJECTED CANDIDATES"] = "\n".join(avoid)
        answer = await self._ask("inputs", blocks, InputBatch, count=count, max_words=max_words)
        return [" ".join(t.split()) for t in answer.inputs]

    async def baseline(self, topic: str, *, count: int, max_words: int) -> list[str]:
        """``count`` prompts for ``topic`` written without any feedback."""
        answer = await self._ask(
            "baseline", {"TOPIC": topic}, InputBatch, count=count, max_words=max_words
        )
        return [" ".join(t.split()) for t in answer.inputs]

    async def review(self, topic: str, candidates: list[str]) -> dict[int, Reviewed]:
        """Relevance and a checklist per candidate, by index (missing indexes = not relevant)."""
        listing = "\n".join(f"{i}: {text}" for i, text in enumerate(candidates))
        answer = await self._ask("relevance", {"TOPIC": topic, "CANDIDATES": listing}, ReviewBatch)
        return {r.index: r for r in answer.results if 0 <= r.index < len(candidates)}

    async def topics(
        self, topic: str, *, records: list[dict[str, Any]], reflection: str | None, count: int
    ) -> list[str]:
        """Up to ``count`` child topics (callers de-duplicate)."""
        blocks = {"TOPIC": topic, "TEST RECORDS": records_text(records)}
        blocks["REFLECTION"] = reflection or "N/A"
        answer = await self._ask("topics", blocks, TopicBatch, count=count)
        return [" ".join(t.split())[:200] for t in answer.topics if t.strip()]

    async def reflect(
        self, topic: str, *, records: list[dict[str, Any]], minimal: list[str]
    ) -> str:
        """The node's failure patterns as text."""
        blocks = {"TOPIC": topic, "TEST RECORDS": records_text(records)}
        blocks["MINIMAL FAILING PARTS"] = "\n".join(minimal) or "N/A"
        answer = await self._ask("reflect", blocks, Reflection)
        return answer.text()

    async def scene_graph(self, prompt: str) -> SceneGraph:
        """The scene graph of one input (validated: relations name known entities)."""
        return await self._ask("scene_graph", {"PROMPT": prompt}, SceneGraph)
