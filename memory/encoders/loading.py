"""Where an encoder's weights come from, and errors that say what to do when they are missing.

A model reference is either a local folder or a Hugging Face hub id. The machines this
service runs on have no hub (docs/design.md#offline-by-default), so a hub id only works
when its files are already in the local cache; otherwise the loader's ``OSError`` becomes a
``RuntimeError`` telling the user to pass a local path. Encoder ids use the model *name* (the
last path component), never the absolute path, so they are stable across machines.

Example:
    >>> source = model_source("facebook/dinov2-giant")
    >>> (source.name, source.local)
    ('dinov2-giant', False)
    >>> model_source("/no/such/folder/dinov2-small")
    Traceback (most recent call last):
    ...
    RuntimeError: model folder '/no/such/folder/dinov2-small' does not exist; pass the path \
of a local copy of the model
    >>> list(batched([1, 2, 3, 4, 5], 2))
    [[1, 2], [3, 4], [5]]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

BATCH_SIZE = 32
"""Items per forward pass for every encoder (CPU-friendly)."""

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")


@dataclass(frozen=True)
class ModelSource:
    """A resolved model reference: what to pass to ``from_pretrained`` and its stable name."""

    ref: str
    name: str
    local: bool


def model_source(path_or_id: str) -> ModelSource:
    """Resolve a local folder or a hub id (``org/name``); refuse paths that do not exist."""
    text = path_or_id.strip()
    if not text:
        raise ValueError("empty model reference; pass a local folder or a hub id")
    path = Path(text).expanduser()
    if path.exists():
        name = path.name if path.name not in ("", ".", "..") else path.resolve().name
        return ModelSource(ref=str(path.resolve()), name=name, local=True)
    if not _HUB_ID.match(text):
        raise RuntimeError(
            f"model folder {text!r} does not exist; pass the path of a local copy of the model"
        )
    return ModelSource(ref=text, name=text.rsplit("/", 1)[-1], local=False)


def load_or_explain(loader: Callable[[str], T], source: ModelSource, kind: str) -> T:
    """Call ``loader(source.ref)``; turn a missing-files error into advice to pass a path."""
    try:
        return loader(source.ref)
    except OSError as exc:
        where = "the local folder" if source.local else "the local Hugging Face cache"
        raise RuntimeError(
            f"could not load {kind} model {source.ref!r} from {where} (no model hub on this "
            f"machine): {exc}. Download it elsewhere and pass a local path, e.g. "
            f"'{kind}:/models/{source.name}'."
        ) from exc


def batched(items: Sequence[T], size: int = BATCH_SIZE) -> Iterator[list[T]]:
    """Consecutive chunks of ``items`` of at most ``size`` elements."""
    for start in range(0, len(items), size):
        yield list(items[start : start + size])
