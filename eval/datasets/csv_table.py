"""``csv``: your own labelled images, a CSV or JSONL table mapped on the command line.

``--data`` is the table itself (``.csv`` or ``.jsonl``, one object per line) or a folder
holding ``labels.csv`` (or ``labels.jsonl``). The adapter takes the column mapping as a dict
(``judge.meta_eval(columns={...})``); ``--columns`` writes it as comma-separated
``key=COLUMN`` pairs (:func:`column_pairs` reads them at the command line's edge):
- ``image=COL`` (required; paths relative to the table's folder), ``prompt=COL``, ``id=COL``,
  ``brief=COL``, ``category=OE|CO|IM`` (a constant; default OE), ``group=COL`` (items of one
  group are left out together under ``--cv lopo``; default: each item alone);
- ``target.NAME=COL``: a label to evaluate, on a 1–5 scale; the prediction is read from the
  subjective image dimension ``NAME``. With ``--cv lopo`` or ``--memory-from`` and no
  ``--skills``, meta-eval writes a card per target that estimates it from the ``csv-image``
  memory of your labels (:mod:`eval.datasets.label_cards`);
- ``slice.NAME=COL``: a column to slice the metrics by.

Example:
    >>> column_pairs("image=file,target.appeal=mos")
    {'image': 'file', 'target.appeal': 'mos'}
    >>> group_columns({"image": "file", "target.appeal": "mos", "slice.model": "gen"})["target"]
    {'appeal': 'mos'}
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

from eval.datasets.base import EvalItem, Target
from memory.exemplar import ExemplarRecord
from memory.io.jsonl import read_jsonl, where
from memory.io.utf8 import read_utf8

FILE = "labels.csv"
JSONL_FILE = "labels.jsonl"
SCALE = (1.0, 5.0)


def column_pairs(spec: str) -> dict[str, str]:
    """The command line's ``key=COLUMN,key=COLUMN`` as a mapping."""
    out: dict[str, str] = {}
    for pair in filter(None, (p.strip() for p in spec.split(","))):
        key, sep, value = pair.partition("=")
        if not sep or not value:
            raise ValueError(f"--columns: expected key=COLUMN, got {pair!r}")
        out[key] = value
    return out


def group_columns(columns: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """A column mapping checked and grouped into {"field": {...}, "target": {...},
    "slice": {...}}."""
    out: dict[str, dict[str, str]] = {"field": {}, "target": {}, "slice": {}}
    for key, value in columns.items():
        group, dot, name = key.partition(".")
        if dot and group in ("target", "slice"):
            out[group][name] = value
        elif not dot:
            out["field"][key] = value
        else:
            raise ValueError(f"--columns: unknown key {key!r} (use target.NAME or slice.NAME)")
    if "image" not in out["field"]:
        raise ValueError("--columns needs image=COLUMN")
    if not out["target"]:
        raise ValueError("--columns needs at least one target.NAME=COLUMN")
    return out


def parse_columns(spec: str) -> dict[str, dict[str, str]]:
    """``key=value`` pairs into {"field": {...}, "target": {...}, "slice": {...}}."""
    return group_columns(column_pairs(spec))


class CsvDataset:
    """Adapter for ``<dir>/labels.csv`` (or a .csv path) with a column mapping."""

    name = "csv"
    group_key = "group"
    label_memory = "csv-image"  # the memory of your labels; meta-eval writes cards reading it

    skills: ClassVar[list[str]] = []  # yours come with the judge settings (``--skills``)

    def __init__(self, columns: Mapping[str, str] | None = None):
        self.columns = group_columns(columns) if columns else None
        self.targets = [Target(t, "image", t) for t in (self.columns or {}).get("target", {})]
        self.loaded: dict[Path, list[EvalItem]] = {}  # each table is read once

    def _path(self, data: Path) -> Path:
        if data.suffix in (".csv", ".jsonl"):
            return data
        return data / JSONL_FILE if (data / JSONL_FILE).is_file() else data / FILE

    def label_columns(self) -> dict[str, str]:
        """Target name → the column holding its labels."""
        return dict((self.columns or {}).get("target", {}))

    def _mapping(self) -> dict[str, dict[str, str]]:
        if self.columns is None:
            raise ValueError("the csv dataset needs --columns (see `judge meta-eval --help`)")
        return self.columns

    def _rows(self, data: Path, columns: dict[str, dict[str, str]]) -> list[dict[str, str]]:
        path = self._path(data)
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such labels file (give the .csv or .jsonl)")
        rows = _jsonl_rows(path) if path.suffix == ".jsonl" else _csv_rows(path)
        missing = [
            c
            for c in [
                *columns["field"].values(),
                *columns["target"].values(),
                *columns["slice"].values(),
            ]
            if c not in (rows[0] if rows else {}) and c not in ("OE", "CO", "IM")
        ]
        if missing:
            raise ValueError(f"{path}: columns not found: {missing}")
        return rows

    def labels_path(self, data: Path) -> Path:
        """The labelled file of the split."""
        return self._path(data)

    def load(self, data_dir: Path) -> list[EvalItem]:
        """One item per row (the table is read once; later calls give the same items)."""
        key = self._path(data_dir).resolve()
        if key not in self.loaded:
            self.loaded[key] = self._items(data_dir)
        return list(self.loaded[key])

    def _items(self, data_dir: Path) -> list[EvalItem]:
        columns = self._mapping()
        rows = self._rows(data_dir, columns)
        path = self._path(data_dir)
        f, base = columns["field"], path.parent
        items = []
        for n, row in enumerate(rows):
            image = row[f["image"]]
            prompt = row.get(f.get("prompt", ""), "") or ""
            item_id = row.get(f.get("id", ""), "") or image or f"row{n}"
            labels = {}
            for t, col in columns["target"].items():
                try:
                    labels[t] = float(row[col])
                except (TypeError, ValueError):
                    continue
            items.append(
                EvalItem(
                    id=item_id,
                    submission={
                        "id": item_id,
                        "prompt": prompt,
                        "images": [image],
                        "task": {
                            "id": item_id,
                            "category": f.get("category", "OE"),
                            "brief": row.get(f.get("brief", ""), "") or prompt,
                            "checklist": [],
                        },
                    },
                    base_dir=base,
                    labels=labels,
                    slices={s: row[c] for s, c in columns["slice"].items()},
                    group=row.get(f.get("group", ""), None) or item_id,
                    key={"image": image},
                    where=f"{path.name} line {getattr(row, 'line', n + 2)}",
                )
            )
        return items

    def memories(self, data_dir: Path) -> dict[str, tuple[list[ExemplarRecord], Path]]:
        """A ``csv-image`` memory of the labelled rows (labels must be on the 1–5 scale)."""
        items = self.load(data_dir)
        for t, col in self.label_columns().items():
            values = [i.labels[t] for i in items if t in i.labels]
            if values and (min(values) < SCALE[0] or max(values) > SCALE[1]):
                raise ValueError(
                    f"target.{t}: the labels in column {col!r} range {min(values):g}–"
                    f"{max(values):g}; the memory-backed estimate needs a 1–5 scale: rescale "
                    "the column (e.g. 1 + 4 × (x − min) / (max − min)) and run again"
                )
        recs = [
            ExemplarRecord(
                id=i.id,
                modality="image",
                image=i.submission["images"][0],
                prompt=i.submission["prompt"] or None,
                scores={t: min(5.0, max(1.0, v)) for t, v in i.labels.items()},
                meta={"group": i.group} if i.group else {},
            )
            for i in items
            if i.labels
        ]
        return {"csv-image": (recs, self._path(data_dir).parent)}


class Row(dict[str, str]):
    """One table row (column → text) and the file line it starts on."""

    line: int = 0


def _csv_rows(path: Path) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    with io.StringIO(read_utf8(path), newline="") as fh:
        reader = csv.DictReader(fh)
        start = 2  # the header is line 1
        for raw in reader:
            row = Row(raw)
            row.line, start = start, reader.line_num + 1
            rows.append(row)
    return rows


def _jsonl_rows(path: Path) -> list[dict[str, str]]:
    """One object per line; values as text, as a CSV reader would give them."""
    rows: list[dict[str, str]] = []
    for n, obj in read_jsonl(path):
        if not isinstance(obj, dict):
            raise ValueError(f"{where(path, n)}: expected a JSON object")
        row = Row({k: "" if v is None else str(v) for k, v in obj.items()})
        row.line = n
        rows.append(row)
    return rows
