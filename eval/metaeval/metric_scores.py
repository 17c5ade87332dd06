"""Per-item scores of metrics you bring (``--scores FILE``), read and checked line by line.

Two shapes, in CSV or JSON lines (the file's suffix says which: ``.csv``, ``.jsonl``):

* long: one score per row, columns (keys) ``id``, ``metric``, ``score``;
* wide: one item per row, an ``id`` column and one column (key) per metric.

``id`` is the set's item id, as ``predictions.jsonl`` writes it (TIFA: the image key such as
``coco_669925_mini_dalle``; GenAI-Bench: ``MODEL/ID``; AGIQA-3K: the image name; your own CSV:
its ``id`` column, else the image). Every problem is an error naming the file and the line: an
id that is not an item of the set, the same (id, metric) twice (in one file or across files),
a score that is not a finite number, a missing column. Nothing is half-read: the run refuses
the file before anything is scored.

Example:
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "mine.csv"
    >>> _ = f.write_text("id,metric,score\\nx1,clip,0.31\\nx2,clip,0.27\\n")
    >>> read_scores([f], known_ids={"x1", "x2", "x3"})
    {'clip': {'x1': 0.31, 'x2': 0.27}}
    >>> _ = f.write_text("id,metric,score\\nx9,clip,0.31\\n")
    >>> try:
    ...     read_scores([f], known_ids={"x1"})
    ... except ScoresError as exc:
    ...     print(str(exc).split("line 2: ")[1][:42])
    id 'x9' is not an item of the set (its ids
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

__all__ = ["RESERVED", "ScoresError", "read_scores"]

RESERVED = {"judge"}
MAX_NAME = 64
LONG = ("id", "metric", "score")


class ScoresError(ValueError):
    """A ``--scores`` file that cannot be used; the message names the file and line."""


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, row) pairs of a CSV or JSONL file."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ScoresError(f"--scores {path}: no such file") from None
    except IsADirectoryError:
        raise ScoresError(f"--scores {path}: a folder; give the scores file itself") from None
    except UnicodeDecodeError as exc:
        raise ScoresError(
            f"--scores {path}: not UTF-8 text (byte {exc.start}); save it as UTF-8"
        ) from None
    suffix = path.suffix.lower()
    if suffix == ".csv":
        reader = csv.DictReader(text.splitlines(keepends=True))
        if not reader.fieldnames or "id" not in reader.fieldnames:
            found = ", ".join(reader.fieldnames or []) or "nothing"
            raise ScoresError(
                f"{path} line 1: no 'id' column (found: {found}); the header must name id, "
                "then metric,score or one column per metric"
            )
        for row in reader:
            if None in row:
                raise ScoresError(f"{path} line {reader.line_num}: more cells than the header has")
            yield reader.line_num, dict(row)
    elif suffix == ".jsonl":
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ScoresError(f"{path} line {n}: not valid JSON ({exc.msg})") from None
            except RecursionError:
                raise ScoresError(f"{path} line {n}: JSON nested too deeply") from None
            if not isinstance(row, dict):
                kind = type(row).__name__
                raise ScoresError(f"{path} line {n}: expected an object with 'id', got {kind}")
            yield n, row
    else:
        raise ScoresError(
            f"--scores {path}: unknown file type {suffix or '(none)'}; use .csv or .jsonl"
        )


def _number(value: Any, where: str, metric: str) -> float:
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        raise ScoresError(f"{where}: score of {metric!r} is {json.dumps(value)[:40]}, not a number")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ScoresError(
            f"{where}: score of {metric!r} is {str(value)[:40]!r}, not a number"
        ) from None
    if not math.isfinite(x):
        raise ScoresError(f"{where}: score of {metric!r} is {value!r}; give a finite number")
    return x


def _metric_name(name: Any, where: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ScoresError(f"{where}: empty metric name")
    name = name.strip()
    if len(name) > MAX_NAME or any(not c.isprintable() for c in name):
        raise ScoresError(f"{where}: metric name {name[:40]!r} is too long or not printable")
    if name in RESERVED:
        raise ScoresError(f"{where}: {name!r} names the judge's own column; rename the metric")
    return name


def _entries(path: Path) -> Iterator[tuple[str, str, str, float]]:
    """(where, id, metric, score) for every score of the file."""
    shape = None
    for n, row in _rows(path):
        where = f"{path} line {n}"
        long = "metric" in row or "score" in row
        if shape is not None and long != shape:
            raise ScoresError(f"{where}: mixes the long (id, metric, score) and wide shapes")
        shape = long
        item = row.get("id")
        if isinstance(item, (int, float)) and not isinstance(item, bool):
            item = str(item)
        if not isinstance(item, str) or not item.strip():
            raise ScoresError(f"{where}: no id")
        if long:
            missing = [k for k in LONG if k not in row]
            if missing:
                raise ScoresError(
                    f"{where}: missing {', '.join(missing)} (long shape: id, metric, score)"
                )
            metric = _metric_name(row["metric"], where)
            yield where, item.strip(), metric, _number(row["score"], where, metric)
            continue
        others = [k for k in row if k != "id"]
        if not others:
            raise ScoresError(f"{where}: an id and no metric column")
        for key in others:
            metric = _metric_name(key, where)
            yield where, item.strip(), metric, _number(row[key], where, metric)


def read_scores(
    paths: Iterable[Path], known_ids: set[str], taken: Iterable[str] = ()
) -> dict[str, dict[str, float]]:
    """Metric → item id → score from every file; ``taken`` are names already in the table
    (the set's published metrics), which a file may not reuse."""
    taken = set(taken)
    out: dict[str, dict[str, float]] = {}
    seen: dict[tuple[str, str], str] = {}
    example = min(known_ids) if known_ids else "?"
    for path in paths:
        path = Path(path)
        count = 0
        for where, item, metric, score in _entries(path):
            if metric in taken:
                raise ScoresError(
                    f"{where}: {metric!r} is already a metric the set publishes; rename yours"
                )
            if item not in known_ids:
                raise ScoresError(
                    f"{where}: id {item!r} is not an item of the set (its ids look like "
                    f"{example!r}); ids are the set's item ids, as predictions.jsonl writes them"
                )
            if (item, metric) in seen:
                raise ScoresError(
                    f"{where}: a second score of {metric!r} for {item!r} (the first: "
                    f"{seen[(item, metric)]})"
                )
            seen[(item, metric)] = where
            out.setdefault(metric, {})[item] = score
            count += 1
        if not count:
            raise ScoresError(f"--scores {path}: no scores in the file")
    return out
