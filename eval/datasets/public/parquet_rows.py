"""Rows of a parquet file, with errors that name the file, the row and the column.

Example:
    >>> import pyarrow as pa, pyarrow.parquet as pq, tempfile
    >>> path = Path(tempfile.mkdtemp()) / "t.parquet"
    >>> pq.write_table(pa.table({"caption": ["a cat"], "label_0": [1.0]}), path)
    >>> list(parquet_rows(path, ("caption",), ("label_0", "model_0")))
    [(0, {'caption': 'a cat', 'label_0': 1.0})]
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from eval.datasets.public.base import LayoutError


def parquet_rows(
    path: Path, required: tuple[str, ...], optional: tuple[str, ...] = (), batch: int = 64
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(row number, {column: value})`` for the ``required`` columns and those of
    ``optional`` the file has, read ``batch`` rows at a time (the image columns of a shard
    are hundreds of megabytes)."""
    try:
        f = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        raise LayoutError(f"{path}: not a readable parquet file ({exc})") from None
    names = set(f.schema_arrow.names)
    for col in required:
        if col not in names:
            have = ", ".join(sorted(names))
            raise LayoutError(f'{path}: column "{col}" is missing (the file has: {have})')
    columns = [*required, *(c for c in optional if c in names)]
    check_expansion(f, path, set(columns))
    n = 0
    try:
        for chunk in f.iter_batches(batch_size=batch, columns=columns):
            for row in chunk.to_pylist():
                yield n, row
                n += 1
    except (OSError, MemoryError, pa.ArrowException) as exc:
        raise LayoutError(f"{path}: unreadable after row {n} ({exc!r:.300})") from None


MAX_EXPANDED = 64 * 2**20
"""A column chunk may decompress to this many bytes whatever its ratio (images do not
compress: a shard's image chunks expand about 1×, its caption chunks a few times)."""
MAX_RATIO = 50
"""Past :data:`MAX_EXPANDED`, a chunk that expands more than this many times is refused."""


def check_expansion(f: pq.ParquetFile, path: Path, columns: set[str]) -> None:
    """Refuse a file whose footer says a column chunk to be read decompresses past
    :data:`MAX_EXPANDED` bytes at over :data:`MAX_RATIO` times its stored size — a
    decompression bomb — before a byte of it is decompressed."""
    meta = f.metadata
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for c in range(group.num_columns):
            chunk = group.column(c)
            name = chunk.path_in_schema.split(".")[0]
            raw, stored = chunk.total_uncompressed_size, max(chunk.total_compressed_size, 1)
            if name in columns and raw > MAX_EXPANDED and raw > MAX_RATIO * stored:
                raise LayoutError(
                    f'{path}: row group {g}, column "{name}": {stored} bytes that decompress '
                    f"to {raw} ({raw // stored}×), a decompression bomb, not a data set; "
                    "refused before reading it"
                )
