"""Which Pick-a-Pic image sits where: an index of the parquet shards' small columns.

RichHF-18K's records name Pick-a-Pic v1 images by uid; finding their prompts means reading every
test shard. The index maps each image uid to its shard, row, side (``jpg_0`` or ``jpg_1``) and
caption, read from the caption and uid columns only (the image columns, hundreds of megabytes,
are not read). It is kept in memory for the process and in a small JSON file under the user's
cache folder (``$JUDGE_CACHE_DIR``, never the data folder), keyed by the shards' paths, sizes
and modification times: a changed, added or removed shard makes a new index.

Example::

    index = shard_index(sorted(Path("richhf-18k/pickapic_v1/data").glob("test-*.parquet")),
                        cache_dir() / "richhf")
    index["6c2bd5c8-..."]   # ShardEntry(shard='test-00000-of-00010-....parquet', row=17, side=1,
                            #            caption='a red fox reading a newspaper')
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import NamedTuple

from eval.datasets.public.parquet_rows import parquet_rows

COLUMNS = ("caption", "image_0_uid", "image_1_uid")
VERSION = 1


class ShardEntry(NamedTuple):
    """Where one image is: the shard's file name, the row, the side (0 or 1), its caption."""

    shard: str
    row: int
    side: int
    caption: str


_MEMORY: dict[str, dict[str, ShardEntry]] = {}


def shards_key(shards: list[Path]) -> str:
    """A digest of the shards' resolved paths, sizes and modification times."""
    parts = []
    for shard in shards:
        st = shard.stat()
        parts.append([str(shard.resolve()), st.st_size, st.st_mtime_ns])
    blob = json.dumps([VERSION, parts]).encode()
    return hashlib.sha256(blob).hexdigest()


def shard_index(shards: list[Path], folder: Path) -> dict[str, ShardEntry]:
    """uid → :class:`ShardEntry` for every image of ``shards``; read from memory, else from
    ``folder/index-KEY.json``, else built from the shards and written there."""
    key = shards_key(shards)
    if key in _MEMORY:
        return _MEMORY[key]
    path = folder / f"index-{key[:24]}.json"
    index = _read(path, key)
    if index is None:
        index = _build(shards)
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".part")
        rows = {uid: list(e) for uid, e in index.items()}
        tmp.write_text(json.dumps({"key": key, "uids": rows}), encoding="utf-8")
        tmp.replace(path)
    _MEMORY[key] = index
    return index


def _build(shards: list[Path]) -> dict[str, ShardEntry]:
    index: dict[str, ShardEntry] = {}
    for shard in shards:
        for n, row in parquet_rows(shard, COLUMNS):
            for side in (0, 1):
                uid = row[f"image_{side}_uid"]
                if isinstance(uid, str) and uid not in index:
                    index[uid] = ShardEntry(shard.name, n, side, str(row["caption"]))
    return index


def _read(path: Path, key: str) -> dict[str, ShardEntry] | None:
    """The stored index, or None when it is missing, stale or unreadable (then rebuilt)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("key") != key:
            return None
        return {uid: ShardEntry(*entry) for uid, entry in raw["uids"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
