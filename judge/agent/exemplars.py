"""Calibration exemplars for subjective skills, retrieved once per request and memory.

Each subjective card names its memory (``prompt-{category}``, ``image-{category}``, or a
dataset's own). The query is the evaluated prompt (prompt memories) or the evaluated image
(image memories). A missing memory means zero-shot scoring, recorded in provenance.

Example::

    provider = ExemplarProvider(store, settings)
    exemplars = await provider.for_card(card, category="CO", prompt=p, image=img, image_key=0)
"""

from __future__ import annotations

import asyncio
import logging
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image

from judge.config import JudgeSettings
from judge.io.images import to_payload
from memory.exemplar import ExemplarError
from memory.memory import Hit, Memory, open_image
from memory.retrieval import retrieve
from memory.store import MemoryStore
from skills.card import SkillCard
from skills.types import Exemplar, ImagePayload, MemoryContext

log = logging.getLogger("judge.memory")
ABSENT = "absent (zero-shot)"


@lru_cache(maxsize=512)
def _exemplar_image(path: str, max_side: int) -> ImagePayload | None:
    try:
        return to_payload(open_image(Path(path)), max_side)
    except ExemplarError as exc:
        log.warning("exemplar image unavailable: %s", exc)
        return None


class ExemplarProvider:
    """Per-request memo of retrievals; records which memory versions were used."""

    def __init__(self, store: MemoryStore, settings: JudgeSettings):
        self.store = store
        self.settings = settings
        self.used: dict[str, str] = {}
        self._vectors: dict[tuple, asyncio.Task[np.ndarray]] = {}
        self._loads: dict[str, asyncio.Task[Memory | None]] = {}

    def _load(self, name: str) -> Memory | None:
        if not self.store.exists(name):
            return None
        return self.store.load(name)

    async def _memory(self, name: str) -> Memory | None:
        """The memory (file reads and the FAISS load run in a thread, once per request)."""
        if name not in self._loads:
            self._loads[name] = asyncio.create_task(asyncio.to_thread(self._load, name))
        mem = await self._loads[name]
        self.used[name] = ABSENT if mem is None else mem.manifest.version_label
        return mem

    async def for_card(
        self,
        card: SkillCard,
        *,
        category: str,
        prompt: str,
        image: Image.Image | None,
        image_key: int | None,
    ) -> tuple[Exemplar, ...]:
        """The exemplars that calibrate ``card`` for this submission (may be empty)."""
        name = card.memory_for(category, self.settings.memories)
        s = self.settings
        if not name or s.retrieval == "none" or s.retrieval_k == 0:
            return ()
        mem = await self._memory(name)
        if mem is None:
            return ()
        if mem.manifest.modality == "image" and image is None:
            return ()
        query: str | Image.Image = prompt if mem.manifest.modality == "prompt" else image
        dims = [d for d in card.dimension_names if d in mem.manifest.dimensions]
        if not dims:
            log.warning("memory %s scores none of %s", name, card.dimension_names)
            return ()
        if s.retrieval == "fixed":  # the same set for every query: nothing to encode
            vector: np.ndarray | str = ""
        else:
            vector = await self._vector(mem, query, image_key)
        # FAISS search and exemplar image reads run in a thread, off the event loop
        return await asyncio.to_thread(self._search, mem, vector, dims)

    def _search(self, mem: Memory, vector: np.ndarray | str, dims: list[str]) -> tuple:
        s = self.settings
        hits = retrieve(
            mem,
            vector,
            k=s.retrieval_k,
            strategy="fixed" if s.retrieval == "fixed" else s.retrieval,
            dimensions=dims,
            exclude_ids=self._excluded(mem),
        )
        return tuple(self._exemplar(mem, h, dims) for h in hits)

    async def _vector(
        self, mem: Memory, query: str | Image.Image, image_key: int | None
    ) -> np.ndarray:
        """The query embedded with the memory's encoder, once per memory and query."""
        key = (mem.name, image_key if mem.manifest.modality == "image" else None)
        if key not in self._vectors:  # shared by every card of the request
            self._vectors[key] = asyncio.create_task(asyncio.to_thread(mem.embed_query, query))
        return await self._vectors[key]

    async def memory_context(
        self,
        card: SkillCard,
        *,
        category: str,
        prompt: str,
        image: Image.Image | None,
        image_key: int | None,
    ) -> MemoryContext | None:
        """The memory, query vector and exclusions a local predictor needs (None: no memory)."""
        name = card.memory_for(category, self.settings.memories)
        mem = await self._memory(name) if name else None
        if mem is None or (mem.manifest.modality == "image" and image is None):
            return None
        query: str | Image.Image = prompt if mem.manifest.modality == "prompt" else image
        vector = await self._vector(mem, query, image_key)
        return MemoryContext(
            memory=mem, vector=vector, image=image, exclude=frozenset(self._excluded(mem))
        )

    def _excluded(self, mem: Memory) -> set[str]:
        """Ids whose meta matches ``exclude_exemplars`` (all keys must match)."""
        want = self.settings.exclude_exemplars
        if not want:
            return set()
        return {
            r.id for r in mem.records if all(str(r.meta.get(k)) == str(v) for k, v in want.items())
        }

    def _exemplar(self, mem: Memory, hit: Hit, dims: list[str]) -> Exemplar:
        rec = hit.record
        image = None
        if rec.modality == "image":
            image = _exemplar_image(str(mem.image_path(rec)), self.settings.exemplar_image_side)
        return Exemplar(
            id=rec.id,
            similarity=None if hit.similarity is None else round(hit.similarity, 4),
            scores={d: rec.scores[d] for d in dims},
            rationales={d: rec.rationales[d] for d in dims if d in rec.rationales},
            task_brief=rec.task_brief,
            prompt=rec.prompt,
            image=image,
        )
