"""Memory routes: list, inspect, search, and add exemplars.

Image exemplars arrive as ``data:`` URLs; they are vetted like submission images and stored
under the service's data folder.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field

from api.deps import JudgeDep, KeyDep, SettingsDep
from api.errors import error_body
from judge.images import decode_image, read_image_bytes
from memory.exemplar import ExemplarError, ExemplarRecord
from memory.store import MemoryStore

router = APIRouter(prefix="/v1/memories", tags=["memories"])


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
    encoder: str | None = None


class AddResult(BaseModel):
    """The memory after the addition."""

    name: str
    version: str
    count: int
    modality: Literal["prompt", "image"]


def _store(judge: Any) -> MemoryStore:
    return judge.store


def _not_found(exc: KeyError) -> HTTPException:
    return HTTPException(404, error_body("not_found", str(exc.args[0]), "name"))


@router.get("", summary="List memories")
async def list_memories(judge: JudgeDep, _key: KeyDep) -> list[dict]:
    """Every memory's manifest."""
    store = _store(judge)
    return [store.load(n).manifest.model_dump(mode="json") for n in store.names()]


@router.get("/{name}", summary="A memory's manifest")
async def get_memory(name: str, judge: JudgeDep, _key: KeyDep) -> dict:
    """One manifest; 404 for an unknown memory."""
    try:
        return _store(judge).load(name).manifest.model_dump(mode="json")
    except KeyError as exc:
        raise _not_found(exc) from None


@router.post("/{name}/search", response_model=list[Hit], summary="Nearest exemplars")
async def search(name: str, req: SearchRequest, judge: JudgeDep, _key: KeyDep) -> list[Hit]:
    """Top-k exemplars by cosine similarity to a text or an image."""
    if (req.text is None) == (req.image is None):
        raise HTTPException(
            422, error_body("invalid_input", "send exactly one of text or image", "text")
        )
    try:
        mem = _store(judge).load(name)
    except KeyError as exc:
        raise _not_found(exc) from None
    want = "prompt" if req.text is not None else "image"
    if mem.manifest.modality != want:
        raise HTTPException(
            422,
            error_body(
                "invalid_input", f"memory {name!r} holds {mem.manifest.modality} exemplars", want
            ),
        )
    if req.image is not None:
        query: Any = decode_image(
            read_image_bytes(req.image, field="image", settings=judge.settings),
            field="image",
            settings=judge.settings,
        )
    else:
        query = req.text
    hits = await asyncio.to_thread(mem.search, query, req.k)
    return [Hit(id=h.record.id, similarity=round(h.similarity or 0.0, 4)) for h in hits]


@router.post("/{name}/exemplars", response_model=AddResult, summary="Add exemplars")
async def add_exemplars(
    name: str,
    req: AddRequest,
    request: Request,
    judge: JudgeDep,
    settings: SettingsDep,
    _key: KeyDep,
) -> AddResult:
    """Validate, store images, encode and add; creates the memory when it is new."""
    folder = settings.data_dir / "exemplar-images"
    records = []
    for i, row in enumerate(req.exemplars):
        row = dict(row)
        if isinstance(row.get("image"), str):
            field = f"exemplars[{i}].image"
            raw = read_image_bytes(row["image"], field=field, settings=judge.settings)
            decode_image(raw, field=field, settings=judge.settings)  # vet before storing
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{hashlib.sha256(raw).hexdigest()}.img"
            path.write_bytes(raw)
            row["image"] = str(path.resolve())
        try:
            records.append(ExemplarRecord.model_validate(row))
        except ValueError as exc:
            raise HTTPException(
                422, error_body("invalid_input", f"exemplars[{i}]: {exc}", f"exemplars[{i}]")
            ) from None
    store = _store(judge)
    try:
        if store.exists(name):
            mem = await asyncio.to_thread(store.add, name, records, base_dir=folder)
        else:
            mem = await asyncio.to_thread(
                store.build, name, records, base_dir=folder, encoder=req.encoder
            )
    except (ExemplarError, ValueError) as exc:
        raise HTTPException(422, error_body("invalid_input", str(exc), "exemplars")) from None
    except KeyError as exc:
        raise HTTPException(422, error_body("invalid_input", str(exc.args[0]), "encoder")) from None
    m = mem.manifest
    return AddResult(name=m.name, version=m.version_label, count=m.count, modality=m.modality)
