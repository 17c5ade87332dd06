"""Memory routes: list, inspect, search, and add exemplars.

Image exemplars arrive as ``data:`` URLs; they are vetted like submission images and stored
under the service's data folder.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field

from api.deps import JudgeDep, KeyDep, SettingsDep
from api.errors import error_body
from judge.images import decode_image, read_image_bytes
from memory.exemplar import ExemplarError, ExemplarRecord
from memory.store import MemoryStore

router = APIRouter(prefix="/v1/memories", tags=["memories"])
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


def _vetted_bytes(ref: str, field: str, judge: Any) -> bytes:
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


def _load(judge: Any, name: str) -> Any:
    store = _store(judge)
    try:
        return store.load(name)
    except KeyError:
        raise _not_found(store, name) from None


@router.get("", summary="List memories")
async def list_memories(judge: JudgeDep, _key: KeyDep) -> list[dict]:
    """Every memory's manifest."""
    store = _store(judge)
    return [store.load(n).manifest.model_dump(mode="json") for n in store.names()]


@router.get("/{name}", summary="A memory's manifest")
async def get_memory(name: str, judge: JudgeDep, _key: KeyDep) -> dict:
    """One manifest; 404 for an unknown memory."""
    return _load(judge, name).manifest.model_dump(mode="json")


@router.post("/{name}/search", response_model=list[Hit], summary="Nearest exemplars")
async def search(name: str, req: SearchRequest, judge: JudgeDep, _key: KeyDep) -> list[Hit]:
    """Top-k exemplars by cosine similarity to a text or an image."""
    if (req.text is None) == (req.image is None):
        raise HTTPException(
            422, error_body("invalid_input", "send exactly one of text or image", "text")
        )
    mem = _load(judge, name)
    want, field = ("prompt", "text") if req.text is not None else ("image", "image")
    if mem.manifest.modality != want:
        raise HTTPException(
            422,
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
    if not NAME.match(name):
        raise HTTPException(
            422,
            error_body(
                "invalid_input",
                "memory names use letters, digits, '-', '_' and '.', starting "
                "with a letter or digit",
                "name",
            ),
        )
    folder = settings.data_dir / "exemplar-images"
    records, images = [], {}
    for i, row in enumerate(req.exemplars):
        row = dict(row)
        if isinstance(row.get("image"), str):
            field = f"exemplars[{i}].image"
            raw = await asyncio.to_thread(_vetted_bytes, row["image"], field, judge)
            path = folder / f"{hashlib.sha256(raw).hexdigest()}.img"
            images[path] = raw
            row["image"] = str(path.resolve())
        try:
            records.append(ExemplarRecord.model_validate(row))
        except ValueError as exc:
            raise HTTPException(
                422, error_body("invalid_input", f"exemplars[{i}]: {exc}", f"exemplars[{i}]")
            ) from None
    folder.mkdir(parents=True, exist_ok=True)
    for path, raw in images.items():  # written only once every record is valid
        path.write_bytes(raw)
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
    m = mem.manifest
    return AddResult(name=m.name, version=m.version_label, count=m.count, modality=m.modality)
