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
from typing import TypedDict, Unpack

import numpy as np
from PIL import Image

from judge.config import JudgeSettings
from judge.io.images import to_payload
from memory.exemplar import ExemplarError, ExemplarRecord
from memory.memory import Hit, Memory, open_image
from memory.retrieval import retrieve
from memory.store import MemoryStore
from skills.card import SkillCard
from skills.extras import needs
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


class ExemplarQuery(TypedDict):
    """What a work item asks a memory with: the task's category, the evaluated prompt, the
    image it sees (None for a prompt item) and that image's index (one query vector per
    image and memory)."""

    category: str
    prompt: str
    image: Image.Image | None
    image_key: int | None


def _embed(mem: Memory, query: str | Image.Image) -> np.ndarray:
    with needs("local", f"exemplar memory {mem.name!r}"):  # its encoder: torch, transformers
        return mem.embed_query(query)


class ExemplarProvider:
    """Per-request memo of retrievals; records which memory versions were used."""

    def __init__(self, store: MemoryStore, settings: JudgeSettings):
        self.store = store
        self.settings = settings
        self.used: dict[str, str] = {}
        self._vectors: dict[tuple, asyncio.Task[np.ndarray]] = {}
        self._loads: dict[str, asyncio.Task[Memory | None]] = {}

    async def memory(self, name: str) -> Memory | None:
        """Memory ``name`` (loaded once per request; None when there is none), recorded in
        provenance like the memories retrieval reads."""
        return await self._memory(name)

    def excluded(self, mem: Memory) -> set[str]:
        """The ids of ``mem`` that ``exclude_exemplars`` keeps out (leave-one-out runs)."""
        return self._excluded(mem)

    def record_exemplar(self, mem: Memory, rec: ExemplarRecord) -> Exemplar:
        """A memory record as an exemplar with every score it has (its image read and sized
        like retrieved exemplars' images); blocking (it may read the image file)."""
        return self._exemplar(mem, Hit(record=rec, similarity=None, row=-1), list(rec.scores))

    def _load(self, name: str) -> Memory | None:
        if not self.store.exists(name):
            return None
        with needs("local", f"exemplar memory {name!r}"):  # FAISS
            return self.store.load(name)

    async def _memory(self, name: str) -> Memory | None:
        """The memory (file reads and the FAISS load run in a thread, once per request)."""
        if name not in self._loads:
            self._loads[name] = asyncio.create_task(asyncio.to_thread(self._load, name))
        mem = await self._loads[name]
        self.used[name] = ABSENT if mem is None else mem.manifest.version_label
        return mem

    async def for_card(
        self, card: SkillCard, **query: Unpack[ExemplarQuery]
    ) -> tuple[Exemplar, ...]:
        """The exemplars that calibrate ``card`` for this submission (may be empty)."""
        s = self.settings
        name = card.memory_for(query["category"], s.memories)
        if not name or s.retrieval == "none" or s.retrieval_k == 0:
            return ()
        found = await self._asked(name, query)
        if found is None:
            return ()
        mem, asked = found
        dims = [d for d in card.dimension_names if d in mem.manifest.dimensions]
        if not dims:
            log.warning("memory %s scores none of %s", name, card.dimension_names)
            return ()
        if s.retrieval == "fixed":  # the same set for every query: nothing to encode
            vector: np.ndarray | str = ""
        else:
            vector = await self._vector(mem, asked, query["image_key"])
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
            self._vectors[key] = asyncio.create_task(asyncio.to_thread(_embed, mem, query))
        return await self._vectors[key]

    async def memory_context(
        self, card: SkillCard, **query: Unpack[ExemplarQuery]
    ) -> MemoryContext | None:
        """The memory, query vector and exclusions a local predictor needs (None: no memory)."""
        name = card.memory_for(query["category"], self.settings.memories)
        found = await self._asked(name, query) if name else None
        if found is None:
            return None
        mem, asked = found
        vector = await self._vector(mem, asked, query["image_key"])
        return MemoryContext(
            memory=mem, vector=vector, image=query["image"], exclude=frozenset(self._excluded(mem))
        )

    async def _asked(
        self, name: str, query: ExemplarQuery
    ) -> tuple[Memory, str | Image.Image] | None:
        """Memory ``name`` and what to ask it (the prompt, or the image for an image memory);
        None when the memory is missing or is of images and the item sees none."""
        mem = await self._memory(name)
        if mem is None or (mem.manifest.modality == "image" and query["image"] is None):
            return None
        asked = query["prompt"] if mem.manifest.modality == "prompt" else query["image"]
        return None if asked is None else (mem, asked)

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
