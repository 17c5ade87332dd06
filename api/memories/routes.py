"""Memory routes: list, inspect, search, add exemplars and repair.

Reading needs any key; adding and repairing need an admin key (``JUDGE_SERVE_ADMIN_KEYS``) when
keys are configured, and are open only on a loopback-only service without keys.

Image exemplars arrive as ``data:`` URLs; they are vetted like submission images and stored
inside the memory's folder (``<store>/<name>/images/<sha256>.img``).
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, ConfigDict, Field

from api.core.deps import AdminKeyDep, JudgeDep, KeyDep
from api.core.errors import error_body
from api.state import StateDep
from judge.io.images import decode_image, read_image_bytes
from judge.io.pixel_budget import PixelBudget, pixel_ledger
from memory.exemplar import ExemplarError, ExemplarRecord
from memory.memory import MemoryDamaged
from memory.store import MemoryStore

router = APIRouter(prefix="/v1/memories", tags=["memories"])
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


def _vetted_bytes(ref: str, field: str, judge: Any, budget: PixelBudget | None) -> bytes:
    # each exemplar image is decoded, checked and dropped: its own ledger, not the request's
    with pixel_ledger(judge.settings.image_max_pixels, budget):
        raw = read_image_bytes(ref, field=field, settings=judge.settings)
        decode_image(raw, field=field, settings=judge.settings)
    return raw


def _decode(ref: str, field: str, judge: Any) -> Any:
    return decode_image(
        read_image_bytes(ref, field=field, settings=judge.settings),
        field=field,
        settings=judge.settings,
    )


class SearchRequest(BaseModel):
    """Exactly one of ``text`` or ``image`` (a data URL)."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = Field(default=None, max_length=20_000)
    image: str | None = None
    k: int = Field(default=3, ge=1, le=100)


class Hit(BaseModel):
    """One search result."""

    id: str
    similarity: float


class AddRequest(BaseModel):
    """Exemplars to add (a memory that does not exist yet is created)."""

    model_config = ConfigDict(extra="forbid")

    exemplars: list[dict[str, Any]] = Field(min_length=1, max_length=10_000)
    encoder: Literal["minilm", "efficientnet-lite0"] | None = Field(
        default=None,
        description="only the packaged encoders; other encoders are built "
        "with `judge memory build` on the server",
    )


class AddResult(BaseModel):
    """The memory after the addition."""

    name: str
    version: str
    count: int
    modality: Literal["prompt", "image"]


def _store(judge: Any) -> MemoryStore:
    return judge.store


def _not_found(store: MemoryStore, name: str) -> HTTPException:
    # no server paths in the message
    return HTTPException(
        404, error_body("not_found", f"unknown memory {name!r}; available: {store.names()}", "name")
    )


def _damaged(exc: MemoryDamaged) -> HTTPException:
    return HTTPException(409, error_body("memory_damaged", str(exc), "name"))


def _scrub(message: str, *folders: Path) -> str:
    """``message`` without server paths (any of ``folders``, resolved or not)."""
    for folder in folders:
        for form in {str(folder.resolve()), str(folder)}:
            if form not in (".", ""):
                message = message.replace(form, "<server>")
    return message


def _load(judge: Any, name: str) -> Any:
    store = _store(judge)
    try:
        return store.load(name)
    except KeyError:
        raise _not_found(store, name) from None
    except MemoryDamaged as exc:
        raise _damaged(exc) from None


def _entry(store: MemoryStore, name: str) -> dict:
    """A manifest with ``status: ok``, or ``{name, status: damaged, version, reason}``."""
    mem, problem = store.status(name)
    if mem is not None:
        return {**mem.manifest.model_dump(mode="json"), "status": "ok"}
    assert problem is not None  # status gives one of the two
    return {"name": name, "status": "damaged", "version": problem.version, "reason": problem.reason}


@router.get("", summary="List memories")
async def list_memories(judge: JudgeDep, _key: KeyDep) -> list[dict]:
    """Every memory's manifest (``status: ok``); a memory whose live version cannot load is
    listed as ``{"name", "status": "damaged", "version", "reason"}``."""
    store = _store(judge)
    return await asyncio.to_thread(lambda: [_entry(store, n) for n in store.names()])


@router.get("/{name}", summary="A memory's manifest")
async def get_memory(name: str, judge: JudgeDep, _key: KeyDep) -> dict:
    """One manifest (or the damaged entry, as in the list); 404 for an unknown memory."""
    store = _store(judge)
    if not store.exists(name):
        raise _not_found(store, name)
    return await asyncio.to_thread(_entry, store, name)


@router.post("/{name}/search", response_model=list[Hit], summary="Nearest exemplars")
async def search(name: str, req: SearchRequest, judge: JudgeDep, _key: KeyDep) -> list[Hit]:
    """Top-k exemplars by cosine similarity to a text or an image."""
    if (req.text is None) == (req.image is None):
        raise HTTPException(
            400, error_body("invalid_input", "send exactly one of text or image", "text")
        )
    mem = _load(judge, name)
    want, field = ("prompt", "text") if req.text is not None else ("image", "image")
    if mem.manifest.modality != want:
        raise HTTPException(
            400,
            error_body(
                "invalid_input", f"memory {name!r} holds {mem.manifest.modality} exemplars", field
            ),
        )
    if req.image is not None:
        query: Any = await asyncio.to_thread(_decode, req.image, "image", judge)
    else:
        query = req.text
    hits = await asyncio.to_thread(mem.search, query, req.k)
    return [Hit(id=h.record.id, similarity=round(h.similarity or 0.0, 4)) for h in hits]


def _check_name(name: str) -> None:
    if not NAME.match(name):
        raise HTTPException(
            400,
            error_body(
                "invalid_input",
                "memory names use letters, digits, '-', '_' and '.', starting "
                "with a letter or digit",
                "name",
            ),
        )


@router.post(
    "/{name}/exemplars",
    response_model=AddResult,
    summary="Add exemplars (admin)",
    responses={403: {"description": "not an admin key"}, 409: {"description": "damaged"}},
)
async def add_exemplars(
    name: str,
    req: AddRequest,
    state: StateDep,
    _key: AdminKeyDep,
) -> AddResult:
    """Validate everything, then store images, encode and add — creating the memory when it
    is new, atomically (concurrent adds never lose exemplars). A refused add changes nothing:
    no new version, no image files. Needs an admin key when keys are configured."""
    _check_name(name)
    judge, settings, budget = state.judge, state.settings, state.pixel_budget
    store = _store(judge)
    records, images = [], {}
    for i, row in enumerate(req.exemplars):
        row = dict(row)
        if isinstance(row.get("image"), str):
            field = f"exemplars[{i}].image"
            raw = await asyncio.to_thread(_vetted_bytes, row["image"], field, judge, budget)
            rel = f"images/{hashlib.sha256(raw).hexdigest()}.img"
            images[rel] = raw
            row["image"] = rel
        try:
            records.append(ExemplarRecord.model_validate(row))
        except ValueError as exc:
            raise HTTPException(
                400, error_body("invalid_input", f"exemplars[{i}]: {exc}", f"exemplars[{i}]")
            ) from None
    try:
        mem = await asyncio.to_thread(
            store.extend,
            name,
            records,
            base_dir=store.root / name,
            encoder=req.encoder,
            images=images,
        )
    except MemoryDamaged as exc:
        raise _damaged(exc) from None
    except (ExemplarError, ValueError) as exc:
        message = _scrub(str(exc), store.root, settings.data_dir)
        raise HTTPException(400, error_body("invalid_input", message, "exemplars")) from None
    m = mem.manifest
    return AddResult(name=m.name, version=m.version_label, count=m.count, modality=m.modality)


@router.post(
    "/{name}/repair",
    summary="Repair a damaged memory (admin)",
    responses={403: {"description": "not an admin key"}, 409: {"description": "no intact version"}},
)
async def repair_memory(name: str, judge: JudgeDep, _key: AdminKeyDep) -> dict:
    """Make the newest intact stored version live again (a no-op for a healthy memory);
    409 when no version is intact (rebuild it with ``judge memory build``)."""
    store = _store(judge)
    if not store.exists(name):
        raise _not_found(store, name)
    try:
        await asyncio.to_thread(store.repair, name)
    except MemoryDamaged as exc:
        raise _damaged(exc) from None
    return await asyncio.to_thread(_entry, store, name)
