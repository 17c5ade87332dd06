"""Exemplars: expert-scored prompts or images that calibrate subjective scoring.

One JSON object per line::

    {"id": "co-017", "category": "CO", "task_brief": "...", "modality": "prompt",
     "prompt": "...", "scores": {"instructional_clarity": 4}, "rationales": {"...": "..."}}

``image`` (for ``modality: "image"``) is a path relative to the JSONL file, or absolute; an
image exemplar may also carry the ``prompt`` it was generated from, as context. Scores are on
the 1–5 scale (means of several raters may be fractional). Rationales are optional, but
never invented: a dataset without written rationales leaves them empty.

When a score is the mean of several raters, ``score_sd`` (the standard deviation of their
individual ratings) and ``score_n`` (how many raters) may say how firm it is; the local
predictor then lets items the raters disagreed on pull its fit less. Both are optional.

Example:
    >>> rec = ExemplarRecord.model_validate({"id": "a", "category": "OE", "task_brief": "",
    ...     "modality": "prompt", "prompt": "a foggy harbour", "scores": {"clarity": 4}})
    >>> rec.content_key()
    'a foggy harbour'
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from memory.io.jsonl import parse_jsonl, where

MAX_TEXT = 20_000


class ExemplarError(ValueError):
    """A problem in an exemplar file; the message names the file and line."""


class ExemplarRecord(BaseModel):
    """One exemplar line."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=200)
    category: Literal["OE", "CO", "IM"] | None = None
    task_brief: str = Field(default="", max_length=MAX_TEXT)
    modality: Literal["prompt", "image"]
    prompt: str | None = Field(default=None, max_length=MAX_TEXT)
    image: str | None = None
    scores: dict[str, float] = Field(min_length=1)
    rationales: dict[str, str] = Field(default_factory=dict)
    score_sd: dict[str, float] = Field(default_factory=dict)
    score_n: dict[str, int] = Field(default_factory=dict)
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> ExemplarRecord:
        if self.modality == "prompt" and not self.prompt:
            raise ValueError("a prompt exemplar needs a non-empty 'prompt'")
        if self.modality == "prompt" and self.image:
            raise ValueError("a prompt exemplar must not have an 'image'")
        if self.modality == "image" and not self.image:
            raise ValueError("an image exemplar needs 'image' (a path)")
        for dim, value in self.scores.items():
            if not 1 <= value <= 5:
                raise ValueError(f"scores.{dim} = {value}: scores must be between 1 and 5")
        extra = sorted(set(self.rationales) - set(self.scores))
        if extra:
            raise ValueError(f"rationales for dimensions without a score: {extra}")
        for name, spread in (("score_sd", self.score_sd), ("score_n", self.score_n)):
            extra = sorted(set(spread) - set(self.scores))
            if extra:
                raise ValueError(f"{name} for dimensions without a score: {extra}")
        if any(v < 0 for v in self.score_sd.values()):
            raise ValueError("score_sd values must be >= 0 (a standard deviation)")
        if any(v < 1 for v in self.score_n.values()):
            raise ValueError("score_n values must be >= 1 (a number of raters)")
        return self

    def score_variance(self, dim: str) -> float | None:
        """The variance of the mean score of ``dim`` (``sd² / n``), or None when the
        exemplar does not say how its raters agreed."""
        sd, n = self.score_sd.get(dim), self.score_n.get(dim)
        return None if sd is None or not n else sd * sd / n

    def content_key(self) -> str:
        """What gets embedded: the prompt text, or the image path."""
        return (self.prompt if self.modality == "prompt" else self.image) or ""

    def image_path(self, base_dir: Path) -> Path:
        """The image file, resolved against ``base_dir`` when relative."""
        assert self.image is not None
        p = Path(self.image)
        return p if p.is_absolute() else (base_dir / p)


def _problem(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(x) for x in err["loc"])
    msg = err["msg"].removeprefix("Value error, ")
    return f"{loc}: {msg}" if loc else msg


def parse_lines(lines: str | list[str], source: str) -> list[ExemplarRecord]:
    """Validate JSONL text or lines (:mod:`memory.io.jsonl`: blank lines skipped, errors
    ``SOURCE:LINE: …``); ids must be unique."""
    records: list[ExemplarRecord] = []
    seen: dict[str, int] = {}
    numbered = parse_jsonl(lines, source, objects=True, error=ExemplarError)
    for lineno, data in numbered:
        try:
            rec = ExemplarRecord.model_validate(data)
        except ValidationError as exc:
            raise ExemplarError(f"{where(source, lineno)}: {_problem(exc)}") from None
        if rec.id in seen:
            raise ExemplarError(
                f"{where(source, lineno)}: id {rec.id!r} already used on line {seen[rec.id]}"
            )
        seen[rec.id] = lineno
        records.append(rec)
    return records


def load_exemplars(path: Path) -> list[ExemplarRecord]:
    """Read and validate an exemplar JSONL file; errors name the file and line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ExemplarError(f"{path}: cannot read exemplar file ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise ExemplarError(f"{path}: exemplar file is not UTF-8 text") from None
    records = parse_lines(text, str(path))
    if not records:
        raise ExemplarError(f"{path}: no exemplars in the file")
    modalities = {r.modality for r in records}
    if len(modalities) > 1:
        raise ExemplarError(f"{path}: mixes prompt and image exemplars; use one file per memory")
    return records


def dump_jsonl(records: list[ExemplarRecord]) -> str:
    """Serialise records as JSONL (stable key order)."""
    return "".join(
        json.dumps(r.model_dump(mode="json", exclude_defaults=True), ensure_ascii=False) + "\n"
        for r in records
    )
