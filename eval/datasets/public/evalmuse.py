"""``evalmuse``: EvalMuse-40k's alignment scores and element-level labels, as downloaded.

The layout is the one of the EvalMuse dataset (``DY-Evalab/EvalMuse`` on Hugging Face; its
dataset card lists the fields and says to join ``images.zip.part-*`` and unzip)::

    train_list.json   [{"prompt_id": "...", "prompt": "...", "type": "...",
                        "img_path": "images/....png",
                        "total_score": [4, 3, 4],                  # 1–5, one per annotator
                        "element_score": {"cat (animal)": [1, 1, 0], "red (color)": [0, 0, 0]},
                        "promt_meaningless": [0, 0, 0], "split_confidence": [...],
                        "attribute_confidence": [...], "fidelity_label": [...]}, ...]
    images/...        the images named by img_path (relative to the folder)

``train_list.json`` is the file published with its human labels (``test.json``'s were announced
for later). Each entry is one item: the prompt and the image, with the mean ``total_score`` as
the ``alignment`` target (``avt_prompt_matching``), and one checklist checkpoint per element,
checked in the image only ("The image shows: cat."), whose human label is the element's
annotator mean binarised at 0.5 — the rule of the set's own evaluation script. The report
gives the checklist's accuracy and F1 against those labels, overall and per element type.

Example::

    items = EvalMuse().load(Path("EvalMuse"))
    items[0].objective   # {'image': {'e1': True, 'e2': False}}
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eval.datasets.base import EvalItem
from eval.datasets.public.base import JsonPath, PublicSet, expect, load_json
from eval.datasets.public.items import image_submission

FIELDS = ("prompt_id", "prompt", "img_path", "total_score", "element_score")
PRIMITIVE = {
    "counting": "quantity",
    "spatial": "spatial_relation",
    "location": "spatial_relation",
    "color": "attribute_binding",
    "material": "attribute_binding",
    "shape": "attribute_binding",
    "attribute": "attribute_binding",
    "text": "text",
}
"""Element types whose checkpoints go to the matching checklist primitive (others: objects,
activities, ... go to the general image card as ``hard_constraint``)."""


def element_parts(key: str) -> tuple[str, str]:
    """``"cat (animal)"`` → ``("cat", "animal")``; no brackets → the key and ``"other"``.

    >>> element_parts("red car (color)"), element_parts("a sky")
    (('red car', 'color'), ('a sky', 'other'))
    """
    name, bracket, rest = key.rpartition("(")
    if not bracket or not rest.endswith(")"):
        return key.strip(), "other"
    return name.strip(), rest[:-1].strip()


def primitive_of(kind: str) -> str:
    """The checklist primitive an element type is checked as."""
    low = kind.lower()
    return next((p for k, p in PRIMITIVE.items() if k in low), "hard_constraint")


class EvalMuse(PublicSet, name="evalmuse"):
    """Adapter for EvalMuse-40k's labelled file (see the module docstring for the layout)."""

    def __init__(self) -> None:
        super().__init__()
        self.element_types: dict[str, dict[str, str]] = {}  # item id → checkpoint → type

    def load(self, data: Path) -> list[EvalItem]:
        """One item per entry of ``train_list.json``."""
        self.check_files(data)
        path = self.labels_path(data)
        entries = expect(load_json(path), list, JsonPath(path), "a list of entries")
        items: list[EvalItem] = []
        seen: dict[str, int] = {}
        for n, entry in enumerate(entries):
            at = JsonPath(path) / n
            at.fields(entry, FIELDS, "an object")
            prompt = expect(entry["prompt"], str, at / "prompt", "the prompt text")
            img = expect(entry["img_path"], str, at / "img_path", "an image path")
            image = self.data_path(data, img, at / "img_path")
            if not image.is_file():
                raise (at / "img_path").error(f"image {img} not found under {data}")
            totals = _ratings(entry["total_score"], at / "total_score")
            elements = expect(entry["element_score"], dict, at / "element_score", "an object")
            checklist, gold, kinds = [], {}, {}
            for k, (key, votes) in enumerate(elements.items(), 1):
                marks = _ratings(votes, at / "element_score" / key, low=0, high=1)
                name, kind = element_parts(key)
                cid = f"e{k}"
                checklist.append(
                    {
                        "id": cid,
                        "primitive": primitive_of(kind),
                        "image_check": f"The image shows: {name}.",
                    }
                )
                gold[cid] = sum(marks) / len(marks) >= 0.5
                kinds[cid] = kind
            pid = str(expect(entry["prompt_id"], (str, int), at / "prompt_id", "an id"))
            seen[pid] = seen.get(pid, 0) + 1
            item_id = f"{pid}#{seen[pid]}" if seen[pid] > 1 else pid
            self.element_types[item_id] = kinds
            items.append(
                EvalItem(
                    id=item_id,
                    submission=image_submission(
                        item_id, pid, prompt, str(image), checklist=checklist
                    ),
                    base_dir=data,
                    labels={"alignment": sum(totals) / len(totals)},
                    ratings={"alignment": {f"r{k}": v for k, v in enumerate(totals)}},
                    objective={"image": gold} if gold else {},
                    slices={"type": str(entry.get("type") or "none")},
                    group=pid,
                    key={"id": item_id, "img_path": img},
                )
            )
        return items

    def checkpoint_types(self) -> dict[str, dict[str, str]]:
        """Item id → checkpoint id → element type (for accuracy per element type)."""
        return self.element_types


def _ratings(value: object, at: JsonPath, low: float = 1, high: float = 5) -> list[float]:
    """A non-empty list of numbers within [low, high]."""
    expect(value, list, at, f"a list of annotator labels {low:g}–{high:g}")
    labels: list[Any] = value if isinstance(value, list) else []  # expect() checked it
    if not labels:
        raise at.error("no annotator labels")
    out = []
    for k, v in enumerate(labels):
        expect(v, (int, float), at / k, f"a label {low:g}–{high:g}")
        if not low <= v <= high:
            raise (at / k).error(f"label {v} outside {low:g}–{high:g}")
        out.append(float(v))
    return out
