"""A memory's manifest: what it holds and how it was built.

Example:
    >>> m = Manifest(name="prompt-CO", modality="prompt", dimensions=["clarity"],
    ...              encoder=EncoderInfo(spec="minilm", id="st:all-MiniLM-L6-v2", dim=384),
    ...              count=0, checksum="", version=1, index="flat")
    >>> m.version_dir
    'v0001'
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

FORMAT = 1


class EncoderInfo(BaseModel):
    """The encoder a memory was built with."""

    model_config = ConfigDict(extra="forbid")

    spec: str
    id: str
    dim: int


class Manifest(BaseModel):
    """Stored as ``manifest.json`` beside the exemplars, vectors and index."""

    model_config = ConfigDict(extra="forbid")

    format: int = FORMAT
    name: str
    modality: Literal["prompt", "image"]
    dimensions: list[str]
    categories: list[str] = Field(default_factory=list)
    encoder: EncoderInfo
    count: int
    checksum: str
    version: int
    index: Literal["flat", "hnsw"]
    created_at: str = ""
    source: str | None = None

    @property
    def version_dir(self) -> str:
        """The folder name of this version inside the memory's folder."""
        return f"v{self.version:04d}"

    @property
    def version_label(self) -> str:
        """What results record as the memory's version: ``v<version>-<checksum prefix>``."""
        return f"v{self.version}-{self.checksum[:8]}"
