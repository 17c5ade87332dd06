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
    n = 0
    try:
        for chunk in f.iter_batches(batch_size=batch, columns=columns):
            for row in chunk.to_pylist():
                yield n, row
                n += 1
    except (OSError, pa.ArrowException) as exc:
        raise LayoutError(f"{path}: unreadable after row {n} ({exc})") from None
