"""``agiqa-3k``: AGIQA-3K's mean opinion scores for perceptual quality and text–image
correspondence, as the AGIQA-3k-Database repository publishes them.

``data.csv`` (lcysyzxdxc/AGIQA-3k-Database), with the 2,982 images of the linked archive::

    name,prompt,adj1,adj2,style,mos_quality,std_quality,mos_align,std_align
    AttnGAN_normal_000.jpg,statue of a man,,,,0.965602553,0.223270101,0.40889324,0.615607722

Each row is one item (prompt-and-image; the prompt is also the brief) with two targets:
``quality`` (``mos_quality``, predicted by the ``avt_quality`` card) and ``alignment``
(``mos_align``, predicted by ``avt_prompt_matching``). The MOS are on the set's own scale;
the report's rank correlations and pairwise accuracy do not depend on it. The generator is the
file name's first part (``AttnGAN``, ``midjourney``, ...); ``style`` (empty for most rows) is
a slice too.

Example::

    items = Agiqa3k().load(Path("AGIQA-3K"))
    items[0].labels   # {'quality': 0.9656, 'alignment': 0.4089}
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from eval.datasets.base import EvalItem
from eval.datasets.public.base import LayoutError, PublicSet
from eval.datasets.public.items import image_submission
from memory.io.utf8 import read_utf8

COLUMNS = ("name", "prompt", "style", "mos_quality", "mos_align")
TARGETS = {"quality": "mos_quality", "alignment": "mos_align"}


class Agiqa3k(PublicSet, name="agiqa-3k"):
    """Adapter for AGIQA-3K (see the module docstring for the layout)."""

    def load(self, data: Path) -> list[EvalItem]:
        """One item per row of ``data.csv``."""
        self.check_files(data)
        path = self.labels_path(data)
        items = []
        with io.StringIO(read_utf8(path), newline="") as fh:
            reader = csv.DictReader(fh)
            header = reader.fieldnames or []
            for col in COLUMNS:
                if col not in header:
                    raise LayoutError(
                        f"{path}:1: missing column {col!r} (the header has: {', '.join(header)})"
                    )
            for row in reader:
                at = f"{path}:{reader.line_num}"
                labels = {}
                for target, col in TARGETS.items():
                    try:
                        labels[target] = float(row[col])
                    except (TypeError, ValueError):
                        labels[target] = math.nan
                    if not math.isfinite(labels[target]):
                        raise LayoutError(
                            f"{at}: column {col!r}: expected a finite number, got {row[col]!r}"
                        )
                name = row["name"]
                image = self.find_image(data, name, f"{at}: column 'name'") if name else None
                if not name or image is None:
                    raise LayoutError(
                        f"{at}: column 'name': image {name!r} not found (nor images/)"
                    )
                items.append(
                    EvalItem(
                        id=name,
                        submission=image_submission(
                            name, name, row["prompt"], str(image), name.split("_")[0]
                        ),
                        base_dir=data,
                        labels=labels,
                        slices={"model": name.split("_")[0], "style": row["style"] or "none"},
                        group=row["prompt"],
                        key={"id": name},
                    )
                )
        return items
