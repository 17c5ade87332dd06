"""``csv``: your own labelled images, a CSV or JSONL table mapped on the command line.

``--data`` is the table itself (``.csv`` or ``.jsonl``, one object per line) or a folder
holding ``labels.csv`` (or ``labels.jsonl``). ``--columns`` takes comma-separated
``key=COLUMN`` pairs:
- ``image=COL`` (required; paths relative to the table's folder), ``prompt=COL``, ``id=COL``,
  ``brief=COL``, ``category=OE|CO|IM`` (a constant; default OE), ``group=COL`` (items of one
  group are left out together under ``--cv lopo``; default: each item alone);
- ``target.NAME=COL``: a label to evaluate, on a 1–5 scale; the prediction is read from the
  subjective image dimension ``NAME``. With ``--cv lopo`` or ``--memory-from`` and no
  ``--skills``, meta-eval writes a card per target that estimates it from the ``csv-image``
  memory of your labels (:mod:`eval.datasets.label_cards`);
- ``slice.NAME=COL``: a column to slice the metrics by.

Example:
    >>> parse_columns("image=file,prompt=caption,target.appeal=mos,slice.model=gen")["target"]
    {'appeal': 'mos'}
"""

from __future__ import annotations

import csv
from pathlib import Path

from eval.datasets.base import EvalItem, Target
from memory.exemplar import ExemplarRecord
from memory.io.jsonl import read_jsonl, where

FILE = "labels.csv"
JSONL_FILE = "labels.jsonl"
SCALE = (1.0, 5.0)


def parse_columns(spec: str) -> dict:
    """``key=value`` pairs into {"field": {...}, "target": {...}, "slice": {...}}."""
    out: dict[str, dict[str, str]] = {"field": {}, "target": {}, "slice": {}}
    for pair in filter(None, (p.strip() for p in spec.split(","))):
        key, sep, value = pair.partition("=")
        if not sep or not value:
            raise ValueError(f"--columns: expected key=COLUMN, got {pair!r}")
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


class CsvDataset:
    """Adapter for ``<dir>/labels.csv`` (or a .csv path) with a column mapping."""

    name = "csv"
    group_key = "group"
    label_memory = "csv-image"  # the memory of your labels; meta-eval writes cards reading it

    def __init__(self, columns: str = "", skills: str = ""):
        self.columns = parse_columns(columns) if columns else None
        self.skills = [s for s in skills.split(",") if s]
        self.targets = [Target(t, "image", t) for t in (self.columns or {}).get("target", {})]

    def _path(self, data: Path) -> Path:
        if data.suffix in (".csv", ".jsonl"):
            return data
        return data / JSONL_FILE if (data / JSONL_FILE).is_file() else data / FILE

    def label_columns(self) -> dict[str, str]:
        """Target name → the column holding its labels."""
        return dict((self.columns or {}).get("target", {}))

    def _rows(self, data: Path) -> list[dict[str, str]]:
        if self.columns is None:
            raise ValueError("the csv dataset needs --columns (see `judge meta-eval --help`)")
        path = self._path(data)
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such labels file (give the .csv or .jsonl)")
        rows = _jsonl_rows(path) if path.suffix == ".jsonl" else _csv_rows(path)
        missing = [
            c
            for c in [
                *self.columns["field"].values(),
                *self.columns["target"].values(),
                *self.columns["slice"].values(),
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
        """One item per row."""
        assert self.columns is not None or self._rows(data_dir)
        f, base = self.columns["field"], self._path(data_dir).parent  # type: ignore[index]
        items = []
        for n, row in enumerate(self._rows(data_dir)):
            image = row[f["image"]]
            prompt = row.get(f.get("prompt", ""), "") or ""
            item_id = row.get(f.get("id", ""), "") or image or f"row{n}"
            labels = {}
            for t, col in self.columns["target"].items():  # type: ignore[index]
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
                    slices={s: row[c] for s, c in self.columns["slice"].items()},  # type: ignore[index]
                    group=row.get(f.get("group", ""), None) or item_id,
                    key={"image": image},
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


def _csv_rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _jsonl_rows(path: Path) -> list[dict[str, str]]:
    """One object per line; values as text, as a CSV reader would give them."""
    rows = []
    for n, obj in read_jsonl(path):
        if not isinstance(obj, dict):
            raise ValueError(f"{where(path, n)}: expected a JSON object")
        rows.append({k: "" if v is None else str(v) for k, v in obj.items()})
    return rows
