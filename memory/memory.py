"""One memory version in RAM: manifest, exemplars, vectors and the FAISS index.

Example::

    mem = MemoryStore().load("prompt-CO")
    for hit in mem.search("a four-panel comic about a morning", k=3):
        print(hit.record.id, round(hit.similarity, 3))
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image
from tqdm import tqdm

from memory import index as faiss_index
from memory.encoders import DEFAULT_IMAGE_ENCODER, DEFAULT_TEXT_ENCODER, get_encoder
from memory.encoders.base import Encoder
from memory.exemplar import ExemplarError, ExemplarRecord, parse_lines
from memory.manifest import Manifest

if TYPE_CHECKING:
    import faiss

MAX_EXEMPLAR_PIXELS = 80_000_000
BATCH = 32


def encoder_for(modality: str, spec: str | None) -> tuple[str, Encoder]:
    """The encoder spec and instance for a modality (defaults: MiniLM text, EfficientNet)."""
    spec = spec or (DEFAULT_TEXT_ENCODER if modality == "prompt" else DEFAULT_IMAGE_ENCODER)
    enc = get_encoder(spec)
    want = "text" if modality == "prompt" else "image"
    if enc.modality != want:
        raise ValueError(
            f"encoder {spec!r} encodes {enc.modality}s; {modality} memories need a {want} encoder"
        )
    return spec, enc


class MemoryDamaged(ExemplarError):
    """A stored memory version that cannot be loaded (missing files, bad JSON, corrupt index,
    counts that disagree). Catch it to treat the memory as unavailable.

    ``reason`` names the file inside the version folder, never a server path.

    Example:
        >>> MemoryDamaged("prompt-CO", "v0002", "manifest.json is missing").version
        'v0002'
    """

    def __init__(self, name: str, version: str, reason: str):
        self.name, self.version, self.reason = name, version, reason
        super().__init__(
            f"memory {name!r} ({version}) is damaged: {reason}; repair it "
            f"(POST /v1/memories/{name}/repair, or rebuild with 'judge memory build')"
        )


def open_image(path: Path, label: str | None = None) -> Image.Image:
    """Open an exemplar image as RGB; errors name ``label`` (default: the file)."""
    label = label or str(path)
    try:
        with Image.open(path) as img:
            if img.size[0] * img.size[1] > MAX_EXEMPLAR_PIXELS:
                raise ExemplarError(f"{label}: image is too large ({img.size[0]}x{img.size[1]})")
            return img.convert("RGB")
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ExemplarError(f"{label}: cannot read image ({reason})") from None


def encode_records(
    encoder: Encoder, records: list[ExemplarRecord], base_dir: Path, *, progress: bool = False
) -> np.ndarray:
    """Document vectors for ``records`` (prompts, or images loaded from disk), in order."""
    chunks = []
    steps = range(0, len(records), BATCH)
    for start in tqdm(steps, desc="encoding", unit="batch", disable=not progress):
        batch = records[start : start + BATCH]
        if encoder.modality == "text":
            items: list[Any] = [r.prompt or "" for r in batch]
        else:
            items = [open_image(r.image_path(base_dir), f"exemplar {r.id!r}") for r in batch]
        chunks.append(encoder.encode(items, role="document"))
    return np.vstack(chunks).astype(np.float32)


@dataclass(frozen=True)
class Hit:
    """A retrieved exemplar and its cosine similarity to the query (None: not by similarity)."""

    record: ExemplarRecord
    similarity: float | None
    row: int


class Memory:
    """A loaded memory version; query it with the encoder it was built with."""

    def __init__(
        self,
        folder: Path,
        manifest: Manifest,
        records: list[ExemplarRecord],
        vectors: np.ndarray,
        index: faiss.Index,
    ):
        self.folder = folder
        self.manifest = manifest
        self.records = records
        self.vectors = vectors
        self.index = index
        self._encoder: Encoder | None = None

    @classmethod
    def open(cls, folder: Path) -> Memory:
        """Load a version folder and check it is complete and consistent.

        Raises :class:`MemoryDamaged` (path-free reason) for anything missing or corrupt.
        """
        name, version = folder.parent.name, folder.name
        step = "manifest.json"
        try:
            manifest = Manifest.model_validate(json.loads((folder / "manifest.json").read_text()))
            step = "exemplars.jsonl"
            text = (folder / "exemplars.jsonl").read_text(encoding="utf-8")
            records = parse_lines(text, "exemplars.jsonl")
            step = "vectors.npy"
            vectors = np.load(folder / "vectors.npy", mmap_mode="r")
            step = "index.faiss"
            index = faiss_index.read_index(folder / "index.faiss")
        except FileNotFoundError:
            raise MemoryDamaged(name, version, f"{step} is missing") from None
        except ExemplarError as exc:
            raise MemoryDamaged(name, version, str(exc)) from None
        except ModuleNotFoundError:  # FAISS is not installed (the [local] extra): not damage
            raise
        except Exception as exc:  # JSON, pydantic, numpy and FAISS errors alike
            first = str(exc).splitlines()[0][:200] if str(exc) else ""
            reason = f"{step} is unreadable ({type(exc).__name__}: {first})"
            raise MemoryDamaged(name, version, reason.replace(str(folder), "")) from None
        if not (len(records) == manifest.count == vectors.shape[0] == index.ntotal):
            raise MemoryDamaged(
                name,
                version,
                f"inconsistent: manifest says {manifest.count}, found {len(records)} "
                f"exemplars, {vectors.shape[0]} vectors, {index.ntotal} indexed",
            )
        return cls(folder, manifest, records, vectors, index)

    @property
    def name(self) -> str:
        """The memory's name."""
        return self.manifest.name

    def index_copy(self) -> faiss.Index:
        """A copy of the index that can be extended without touching this version."""
        return faiss_index.load_faiss().clone_index(self.index)

    def encoder(self) -> Encoder:
        """The encoder recorded in the manifest (loaded lazily, once)."""
        if self._encoder is None:
            _, enc = encoder_for(self.manifest.modality, self.manifest.encoder.spec)
            self.check_encoder(enc)
            self._encoder = enc
        return self._encoder

    def check_encoder(self, encoder: Encoder) -> None:
        """Refuse an encoder other than the one the memory was built with."""
        want = self.manifest.encoder
        if encoder.id != want.id or encoder.dim != want.dim:
            raise ValueError(
                f"memory {self.name!r} was built with encoder {want.id!r} ({want.dim}-d); "
                f"refusing to query it with {encoder.id!r} ({encoder.dim}-d). Rebuild the "
                "memory with that encoder, or query with the original one."
            )

    def embed_query(self, query: str | Image.Image, encoder: Encoder | None = None) -> np.ndarray:
        """The query vector of a text or an image."""
        enc = encoder or self.encoder()
        self.check_encoder(enc)
        return enc.encode([query], role="query")

    def search_vector(self, vector: np.ndarray, k: int = 3) -> list[Hit]:
        """Top-``k`` exemplars by cosine similarity to a unit query vector."""
        if not self.records:
            return []
        sims, rows = faiss_index.search(self.index, vector.reshape(1, -1), k)
        return [
            Hit(self.records[int(r)], float(s), int(r))
            for s, r in zip(sims[0], rows[0], strict=True)
            if r >= 0
        ]

    def search(
        self, query: str | Image.Image, k: int = 3, encoder: Encoder | None = None
    ) -> list[Hit]:
        """Top-``k`` exemplars for a text or image query."""
        return self.search_vector(self.embed_query(query, encoder), k)

    def image_path(self, record: ExemplarRecord) -> Path:
        """An image exemplar's file (paths are stored relative to the version folder)."""
        return record.image_path(self.folder)
