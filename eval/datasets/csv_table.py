"""``csv``: any CSV of images (and prompts) with label columns, mapped on the command line.

``--columns`` takes comma-separated ``key=COLUMN`` pairs:
- ``image=COL`` (required; paths relative to the CSV's folder), ``prompt=COL``, ``id=COL``,
  ``brief=COL``, ``category=OE|CO|IM`` (a constant; default OE), ``group=COL``;
- ``target.NAME=COL``: a label to evaluate; the prediction is read from the subjective image
  dimension ``NAME`` (choose the cards that score it with ``--skills``);
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

FILE = "labels.csv"


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

    def __init__(self, columns: str = "", skills: str = ""):
        self.columns = parse_columns(columns) if columns else None
        self.skills = [s for s in skills.split(",") if s]
        self.targets = [Target(t, "image", t) for t in (self.columns or {}).get("target", {})]

    def _path(self, data: Path) -> Path:
        return data if data.suffix == ".csv" else data / FILE

    def _rows(self, data: Path) -> list[dict[str, str]]:
        if self.columns is None:
            raise ValueError("the csv dataset needs --columns (see `judge meta-eval --help`)")
        path = self._path(data)
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
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
                    group=row.get(f.get("group", ""), None),
                    key={"image": image},
                )
            )
        return items

    def memories(self, data_dir: Path) -> dict[str, tuple[list[ExemplarRecord], Path]]:
        """An ``csv-image`` memory of the labelled rows."""
        recs = [
            ExemplarRecord(
                id=i.id,
                modality="image",
                image=i.submission["images"][0],
                prompt=i.submission["prompt"] or None,
                scores={t: min(5.0, max(1.0, v)) for t, v in i.labels.items()},
                meta={"group": i.group} if i.group else {},
            )
            for i in self.load(data_dir)
            if i.labels
        ]
        return {"csv-image": (recs, self._path(data_dir).parent)}
