"""``richhf``: RichHF-18K's scores and misaligned prompt words, on Pick-a-Pic v1 images.

RichHF-18K (``google-research-datasets/richhf-18k`` on GitHub, cloned with Git LFS) publishes
``train.tfrecord``, ``dev.tfrecord`` and ``test.tfrecord``: ``tf.train.Example`` records
holding the labels and the *file name* of a Pick-a-Pic v1 image, not the image nor its prompt.
Both come from the Pick-a-Pic v1 parquet shards (the test records from its ``test`` split), so
the folder is the cloned repository with those shards beside it::

    richhf-18k/
      test.tfrecord                               read without TensorFlow
      pickapic_v1/data/test-000NN-of-00010-*.parquet   yuvalkirstain/pickapic_v1, as downloaded

Features read from each record (the names the dataset's authors' own loader reads):
``filename`` (bytes; its stem is the Pick-a-Pic ``image_0_uid`` or ``image_1_uid``),
``artifact_score``, ``aesthetics_score``, ``misalignment_score``, ``overall_score`` (floats)
and ``prompt_misalignment_label`` (bytes: one 0/1 per prompt word, 0 marking a word the image
does not show; words are the prompt split at spaces and ``,.?!":;``, as the dataset's
matching code splits it). The heatmaps (``artifact_map``, ``misalignment_map``) are not used.

Targets, on the file's own scale (the statistics are rank-based or scale-free): plausibility
(``artifact_score``) → the ``realism`` card, aesthetics → ``appeal``, text–image alignment
(``misalignment_score``) → ``prompt_matching``, overall → ``quality``. Each content word of the
prompt (function words such as "a", "of" left out) becomes a checklist checkpoint checked in
the image; its human label is True unless the word is marked misaligned, so the report's
checklist section scores the judge's failures against the misaligned keywords. A record whose
labels do not match its prompt's word count keeps its scores but gets no checkpoints (counted
in the report).

Finding a record's prompt means reading every test shard's caption and uid columns; that index
(:mod:`eval.datasets.public.shard_index`) and the images written from the shards stay under
the user's cache folder, so a second load reads no shard.

Example::

    items = RichHF().load(Path("richhf-18k"))
    items[0].labels     # {'plausibility': 0.8, 'aesthetics': 0.6, 'alignment': 1.0, ...}
    items[0].objective  # {'image': {'w1': True, 'w2': False}}
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from eval.datasets.base import EvalItem
from eval.datasets.public.base import LayoutError, PublicSet
from eval.datasets.public.items import image_submission
from eval.datasets.public.parquet_rows import parquet_rows
from eval.datasets.public.pickapic import write_image
from eval.datasets.public.shard_index import shard_index
from eval.datasets.public.tfrecord import read_examples
from skills.local.feature_cache import cache_dir

RECORDS = "test.tfrecord"
SHARDS = "pickapic_v1/data"
SCORES = {  # target → the record's float feature
    "plausibility": "artifact_score",
    "aesthetics": "aesthetics_score",
    "alignment": "misalignment_score",
    "overall": "overall_score",
}
DELIMITERS = re.compile(r'[,.?!":; ]')
FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "and",
        "or",
        "with",
        "in",
        "on",
        "at",
        "to",
        "for",
        "by",
        "from",
        "is",
        "are",
        "be",
        "as",
        "it",
        "its",
        "this",
        "that",
    ]
)
"""Words that get no checkpoint (the label exists, but "the image shows: of" checks nothing)."""


def words(prompt: str) -> list[str]:
    """The prompt's words as RichHF-18K labels them.

    >>> words('RichHF-18K: a dataset for rich human feedback on generative images.')
    ['RichHF-18K', 'a', 'dataset', 'for', 'rich', 'human', 'feedback', 'on', 'generative', 'images']
    """
    return [t for t in DELIMITERS.split(prompt) if t]


class RichHF(PublicSet, name="richhf"):
    """Adapter for RichHF-18K's test records (see the module docstring for the layout)."""

    def __init__(self) -> None:
        super().__init__()
        self.word_labels_unmatched: list[str] = []

    def load(self, data: Path) -> list[EvalItem]:
        """One item per record of ``test.tfrecord``, its image and prompt from Pick-a-Pic."""
        self.check_files(data)
        shards = sorted((data / SHARDS).glob("test-*.parquet"))
        if not shards:
            raise LayoutError.missing(data, f"{SHARDS}/test-*.parquet", self.files)
        shards = [self.data_path(data, str(p.relative_to(data)), p) for p in shards]
        path = data / RECORDS
        wanted: dict[str, tuple[int, dict[str, list]]] = {}
        for n, ex in read_examples(path):
            where = f"{path}: record {n}"
            name = _one(ex, "filename", bytes, where).decode("utf-8", "replace")
            wanted[Path(name.split("/")[-1]).stem] = (n, ex)
        found = self._pickapic(shards, set(wanted))
        items: list[EvalItem] = []
        self.word_labels_unmatched = []
        for uid, (n, ex) in wanted.items():
            where = f"{path}: record {n}"
            if uid not in found:
                raise LayoutError(
                    f"{where}: image {uid} is in none of the {len(shards)} shards of "
                    f"{data / SHARDS}; download every test shard of yuvalkirstain/pickapic_v1"
                )
            prompt, image = found[uid]
            labels = {t: float(_one(ex, f, float, where)) for t, f in SCORES.items()}
            marks = _one(ex, "prompt_misalignment_label", bytes, where).decode().split()
            if not all(m in ("0", "1") for m in marks):
                raise LayoutError(
                    f'{where}, feature "prompt_misalignment_label": expected 0/1 per word'
                )
            tokens = words(prompt)
            checklist, gold = [], {}
            if len(tokens) != len(marks):
                self.word_labels_unmatched.append(uid)
            else:
                for k, (tok, mark) in enumerate(zip(tokens, marks, strict=True), 1):
                    if tok.lower() in FUNCTION_WORDS:
                        continue
                    cid = f"w{k}"
                    checklist.append(
                        {
                            "id": cid,
                            "primitive": "hard_constraint",
                            "image_check": f"The image shows: {tok}.",
                        }
                    )
                    gold[cid] = mark == "1"
            items.append(
                EvalItem(
                    id=uid,
                    submission=image_submission(uid, uid, prompt, image, checklist=checklist),
                    base_dir=data,
                    labels=labels,
                    objective={"image": gold} if gold else {},
                    key={"id": uid, "record": str(n)},
                    where=where,
                )
            )
        return items

    def _pickapic(self, shards: list[Path], uids: set[str]) -> dict[str, tuple[str, str]]:
        """uid → (prompt, image path in the cache) for the uids found in the shards.

        Prompts come from the shards' index (:mod:`eval.datasets.public.shard_index`, built
        once); an image already written to the cache is not read again, so a second run reads
        no shard at all."""
        out_dir = cache_dir() / "richhf"
        index = shard_index(shards, out_dir)
        found: dict[str, tuple[str, str]] = {}
        missing: dict[str, dict[int, list[tuple[str, int]]]] = {}
        for uid in uids:
            entry = index.get(uid)
            if entry is None:
                continue
            image = out_dir / f"{uid}.jpg"
            if image.is_file() and image.stat().st_size:
                found[uid] = (entry.caption, str(image.resolve()))
            else:
                missing.setdefault(entry.shard, {}).setdefault(entry.row, []).append(
                    (uid, entry.side)
                )
        by_name = {s.name: s for s in shards}
        for name, rows in missing.items():
            shard, last = by_name[name], max(rows)
            for n, row in parquet_rows(shard, ("jpg_0", "jpg_1")):
                for uid, k in rows.get(n, ()):
                    written = write_image(
                        row[f"jpg_{k}"], out_dir / f"{uid}.jpg", f"{shard}: row {n}", k
                    )
                    found[uid] = (index[uid].caption, written)
                if n >= last:
                    break
        return found

    def checkpoint_types(self) -> dict[str, dict[str, str]]:
        """Every checkpoint is a prompt word (one type)."""
        return {}

    def extra_report(
        self, data: Path, items: list[EvalItem], predictions: list[dict], n_boot: int, seed: int
    ) -> dict[str, Any]:
        """The records whose word labels did not match their prompt (no checkpoints)."""
        return {"richhf": {"word_labels_unmatched": sorted(self.word_labels_unmatched)}}


def _one(ex: dict[str, list], feature: str, kind: type, where: str) -> Any:
    """The single value of ``feature``; an error names the record and the feature."""
    if feature not in ex:
        raise LayoutError(f'{where}: feature "{feature}" is missing')
    values = ex[feature]
    if len(values) != 1 or not isinstance(values[0], kind):
        got = type(values[0]).__name__ if values else "an empty list"
        raise LayoutError(
            f'{where}, feature "{feature}": expected one {kind.__name__} value, got {got}'
        )
    return values[0]
