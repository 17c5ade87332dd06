"""``pickapic``: Pick-a-Pic v2's test preferences, judged pairwise in the compare mode.

The layout is the one of the Hugging Face dataset ``yuvalkirstain/pickapic_v2`` as downloaded
(its ``data/`` folder of parquet shards, the images stored inside them as JPEG bytes)::

    data/test_unique-00000-of-00001-HASH.parquet   one example per test prompt (the split
                                                    the PickScore paper reports)
    data/test-000NN-of-000MM-HASH.parquet          the whole test split (read when no
                                                    test_unique file is there)

with the columns the PickScore training code reads: ``caption`` (the prompt), ``jpg_0`` and
``jpg_1`` (the two images' bytes), ``label_0`` and ``label_1`` (1/0 for the preferred image,
0.5/0.5 for a tie), and, used when present, ``has_label``, ``model_0``, ``model_1`` and
``ranking_id``. Rows with ``has_label`` false are left out, as the PickScore evaluation does.

Every row becomes one ``compare`` item (criterion ``preference``, ``jpg_0`` as image a); its
label is 1.0 when image 0 is preferred, 0.0 when image 1 is and 0.5 for a tie. The images are
written once, unchanged, under ``$JUDGE_CACHE_DIR/pickapic_v2/`` (the judge reads files; the
parquet shards stay as downloaded).

The report gives the accuracy with the rule of the PickScore repository's evaluation script
(``trainer/scripts/eval_preference_predictor.py``): 1 when the judge's answer (image 0, image
1 or tie) is the label, 0.5 when exactly one of the two is a tie, 0 otherwise; averaged over
rows, with a bootstrap interval. The paper's scorer predicts a tie below a probability gap
tuned on the validation split; the judge's tie is its own (the compare mode's two orders
disagreed), with no threshold tuned.

Example::

    items = PickAPic().load(Path("pickapic_v2"))
    items[0].labels  # {'preference': 1.0}
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from eval.datasets.base import EvalItem
from eval.datasets.public.base import LayoutError, PublicSet
from eval.datasets.public.items import compare_submission
from eval.datasets.public.parquet_rows import parquet_rows
from eval.datasets.votes import VotesDataset
from eval.kit.stats import mean_ci
from skills.local.feature_cache import cache_dir

CRITERION = "preference"
COLUMNS = ("caption", "jpg_0", "jpg_1", "label_0", "label_1")
OPTIONAL = ("has_label", "model_0", "model_1", "ranking_id")
RULE = (
    "Accuracy with the PickScore evaluation's rule (1 when the judge's answer, image 0, "
    "image 1 or tie, is the users' label; 0.5 when exactly one of them is a tie; 0 otherwise)"
)


def shards(data: Path) -> tuple[str, list[Path]]:
    """The split read (``test_unique`` or ``test``) and its parquet files, sorted."""
    folder = data / "data"
    unique = sorted(folder.glob("test_unique-*.parquet"))
    if unique:
        return "test_unique", unique
    return "test", sorted(p for p in folder.glob("test-*.parquet"))


class PickAPic(PublicSet, name="pickapic"):
    """Adapter for Pick-a-Pic v2's test split (see the module docstring for the layout)."""

    def __init__(self) -> None:
        super().__init__()
        self.split = ""
        self.unlabelled = 0

    def labels_path(self, data: Path) -> Path:
        """The first parquet file of the split read."""
        found = shards(data)[1]
        return found[0] if found else data / "data" / "test_unique-*.parquet"

    def load(self, data: Path) -> list[EvalItem]:
        """One compare item per labelled row, the images written to the cache folder."""
        if not data.is_dir():
            raise LayoutError.missing(data, "", self.files)
        self.split, files = shards(data)
        if not files:
            raise LayoutError.missing(data, "data/test_unique-*.parquet", self.files)
        files = [self.data_path(data, str(p.relative_to(data)), p) for p in files]
        out = cache_dir() / "pickapic_v2"
        items: list[EvalItem] = []
        self.unlabelled = 0
        for path in files:
            for n, row in parquet_rows(path, COLUMNS, OPTIONAL):
                where = f"{path}: row {n}"
                if row.get("has_label") is False:
                    self.unlabelled += 1
                    continue
                prompt = row["caption"]
                if not isinstance(prompt, str):
                    raise LayoutError(f'{where}, column "caption": expected the prompt text')
                label = _label(row["label_0"], row["label_1"], where)
                images = [
                    write_image(row[f"jpg_{k}"], out / path.stem / f"{n}_{k}.jpg", where, k)
                    for k in (0, 1)
                ]
                models = [str(row.get(f"model_{k}") or f"image{k}") for k in (0, 1)]
                cid = f"{path.stem}:{n}"
                rid = str(row.get("ranking_id") if row.get("ranking_id") is not None else cid)
                items.append(
                    EvalItem(
                        id=cid,
                        submission=compare_submission(
                            cid, prompt, (images[0], models[0]), (images[1], models[1]), CRITERION
                        ),
                        base_dir=data,
                        labels={CRITERION: label},
                        slices={"models": " vs ".join(sorted(models))},
                        group=rid,
                        key={"id": cid, "ranking_id": rid},
                        where=where,
                    )
                )
        return items

    prediction_extra = staticmethod(VotesDataset.prediction_extra)  # the winner per criterion

    def extra_report(
        self, data: Path, items: list[EvalItem], predictions: list[dict], n_boot: int, seed: int
    ) -> dict[str, Any]:
        """``preferences``: the accuracy with the PickScore rule for ties, its bootstrap
        interval over rows, the split read, and the judge's and the users' tie rates."""
        pref = preference_accuracy(items, predictions, n_boot=n_boot, seed=seed)
        return {"preferences": pref | {"split": self.split, "unlabelled_rows": self.unlabelled}}


def pair_score(judge: float, human: float) -> float:
    """The PickScore evaluation's score of one answer: 1 if it is the label, 0.5 if exactly
    one of the two is a tie, else 0.

    >>> pair_score(1.0, 1.0), pair_score(0.5, 0.0), pair_score(1.0, 0.5), pair_score(0.0, 1.0)
    (1.0, 0.5, 0.5, 0.0)
    """
    if judge == human:
        return 1.0
    return 0.5 if 0.5 in (judge, human) else 0.0


def preference_accuracy(
    items: list[EvalItem], predictions: list[dict], *, n_boot: int, seed: int
) -> dict[str, Any]:
    """The judge's accuracy on the rows it scored, with the PickScore rule for ties."""
    preds = {p["id"]: p for p in predictions}
    scores, judge_ties = [], 0
    for item in items:
        value = ((preds.get(item.id) or {}).get("scores") or {}).get(CRITERION)
        if value is None:
            continue
        judge_ties += value == 0.5
        scores.append(pair_score(value, item.labels[CRITERION]))
    arr = np.array(scores, dtype=float)
    human_ties = sum(i.labels[CRITERION] == 0.5 for i in items)
    return {
        "metric": "accuracy",
        "rule": RULE,
        "accuracy": float(arr.mean()) if len(arr) else None,
        "ci95": mean_ci(arr, n_boot=n_boot, seed=seed) or [None, None],
        "n": len(arr),
        "n_total": len(items),
        "judge_tie_rate": judge_ties / len(arr) if len(arr) else None,
        "human_tie_rate": human_ties / len(items) if items else None,
    }


def _label(label_0: Any, label_1: Any, where: str) -> float:
    """1.0 (image 0 preferred), 0.0 (image 1) or 0.5 (tie) from the two label columns."""
    for col, v in (("label_0", label_0), ("label_1", label_1)):
        ok = isinstance(v, int | float) and not isinstance(v, bool) and not math.isnan(v)
        if not ok or v not in (0, 0.5, 1):
            got = type(v).__name__ if v is not None else "null"
            raise LayoutError(f'{where}, column "{col}": expected 0, 0.5 or 1, got {got} {v!r}')
    if label_0 + label_1 != 1:
        raise LayoutError(
            f'{where}, columns "label_0"/"label_1": {label_0} and {label_1} do not sum to 1'
        )
    return float(label_0)


def write_image(raw: Any, target: Path, where: str, k: int) -> str:
    """The image bytes of one cell written to ``target`` (once), as an absolute path."""
    if isinstance(raw, dict):  # a datasets Image feature: {"bytes", "path"}
        raw = raw.get("bytes")
    if not isinstance(raw, bytes) or not raw:
        got = type(raw).__name__ if raw is not None else "null"
        raise LayoutError(f'{where}, column "jpg_{k}": expected the image bytes, got {got}')
    try:
        Image.open(io.BytesIO(raw)).verify()
    except (OSError, ValueError, SyntaxError) as exc:
        raise LayoutError(f'{where}, column "jpg_{k}": not a readable image ({exc})') from None
    if not (target.is_file() and target.stat().st_size == len(raw)):
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".part")
        tmp.write_bytes(raw)
        tmp.replace(target)
    return str(target.resolve())
