"""``votes``: human pairwise votes with their images, for meta-evaluating the ``compare`` mode.

One vote per row, CSV or JSON lines (``votes.csv`` / ``votes.jsonl`` in the folder, or the
file itself); image paths are relative to the file::

    prompt_id,prompt,image_a,image_b,model_a,model_b,winner,criterion,annotator
    p1,A red bicycle,img/p1-flux.png,img/p1-sd3.png,flux,sd3,a,preference,r1
    p1,A red bicycle,img/p1-sd3.png,img/p1-flux.png,sd3,flux,tie,preference,r2

``winner`` is a, b or tie; ``annotator`` is optional; the criterion names are those of the
compare mode's criteria cards (e.g. preference, coherence, alignment). Rows showing the same
prompt and the same two images — in either order — form one comparison, oriented like its first
row. Each comparison's label per criterion is the human majority: the outcome (a, b, tie) most
voters chose, a shared top count being a tie. ``labels[criterion]`` holds it as 1.0 (a won),
0.0 (b won) or 0.5 (tie) and ``ratings[criterion]`` the vote counts ``{"a", "b", "tie"}``.

Example::

    ds = VotesDataset()
    items = ds.load(Path("data/votes.csv"))   # one EvalItem per comparison
    human = ds.votes(Path("data/votes.csv"))  # the raw votes, for leaderboards and agreement
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, ClassVar

from eval.datasets.base import EvalItem, Target
from eval.leaderboards.votes import Vote, VotesError, excluded, majority, make_vote
from memory.exemplar import ExemplarRecord
from memory.io.jsonl import read_jsonl
from memory.io.jsonl import where as line_of
from memory.io.utf8 import read_utf8

FILES = ("votes.csv", "votes.jsonl")
COLUMNS = ("prompt_id", "prompt", "image_a", "image_b", "model_a", "model_b", "winner", "criterion")
LABEL = {"a": 1.0, "b": 0.0, "tie": 0.5}


def _remote(ref: str) -> bool:
    return ref.startswith(("http://", "https://", "data:"))


class VotesDataset:
    """Adapter for a file of human pairwise votes with images."""

    name = "votes"
    skills: ClassVar[list[str]] = []
    group_key = "prompt_id"

    def __init__(self) -> None:
        self.targets: list[Target] = []

    @staticmethod
    def _path(data: Path) -> Path:
        if data.is_file() or data.suffix in (".csv", ".jsonl"):
            return data
        for name in FILES:
            if (data / name).is_file():
                return data / name
        return data / FILES[0]

    def labels_path(self, data: Path) -> Path:
        """The votes file of the split."""
        return self._path(data)

    def _rows(self, data: Path) -> list[tuple[dict[str, Any], Vote, str]]:
        path = self._path(data)
        if not path.is_file():
            raise FileNotFoundError(f"{path} not found (the votes dataset expects {FILES})")
        raw: list[tuple[dict[str, Any], str]] = []
        if path.suffix == ".jsonl":
            raw.extend((row, line_of(path, n)) for n, row in read_jsonl(path, error=VotesError))
        else:
            with io.StringIO(read_utf8(path), newline="") as fh:
                reader = csv.DictReader(fh)
                header = reader.fieldnames or []
                missing = [c for c in COLUMNS if c not in header]
                if missing:
                    raise VotesError(f"{path}:1: missing column {missing[0]!r} (need {COLUMNS})")
                raw = [(row, f"{path}:{reader.line_num}") for row in reader]
        out = []
        for row, where in raw:
            if excluded(row):
                continue  # set aside by a campaign's quality control
            for col in ("prompt", "image_a", "image_b"):
                ref = str(row.get(col) or "").strip()
                if not ref:
                    raise VotesError(f"{where}: field {col!r} is missing or empty")
                if col != "prompt" and not _remote(ref) and not (path.parent / ref).is_file():
                    raise VotesError(
                        f"{where}: field {col!r}: image {ref!r} not found next to {path.name} "
                        "(paths are relative to the votes file)"
                    )
            out.append((row, make_vote(row, where), where))
        return out

    def votes(self, data: Path) -> list[Vote]:
        """The human votes alone (no images), e.g. for a leaderboard."""
        return [vote for _, vote, _ in self._rows(data)]

    def load(self, data: Path) -> list[EvalItem]:
        """One item per comparison; the submission is a Comparison (docs/design.md#comparison)."""
        base = self._path(data).parent
        groups: dict[tuple, dict[str, Any]] = {}
        for row, vote, _ in self._rows(data):
            side_a = (row["image_a"].strip(), vote.model_a)
            side_b = (row["image_b"].strip(), vote.model_b)
            key = (vote.prompt_id, frozenset((side_a, side_b)))
            if key not in groups:
                groups[key] = {"row": row, "a": side_a, "b": side_b, "votes": {}}
            g = groups[key]
            flip = side_a != g["a"]
            outcome = {"a": "b", "b": "a"}.get(vote.winner, "tie") if flip else vote.winner
            g["votes"].setdefault(vote.criterion, []).append(outcome)
        items, ids, criteria = [], set(), {}
        for (prompt_id, _), g in groups.items():
            cid = f"{prompt_id}:{g['a'][1]}-vs-{g['b'][1]}"
            n = 2
            while cid in ids:
                cid, n = f"{prompt_id}:{g['a'][1]}-vs-{g['b'][1]}#{n}", n + 1
            ids.add(cid)
            criteria.update(dict.fromkeys(g["votes"]))
            submission = {
                "mode": "compare",
                "id": cid,
                "prompt": g["row"]["prompt"],
                "brief": g["row"].get("brief") or None,
                "a": {"image": g["a"][0], "model": g["a"][1]},
                "b": {"image": g["b"][0], "model": g["b"][1]},
                "criteria": list(g["votes"]),
            }
            labels = {c: LABEL[majority(o) or "tie"] for c, o in g["votes"].items()}
            ratings = {
                c: {k: float(o.count(k)) for k in ("a", "b", "tie")} for c, o in g["votes"].items()
            }
            items.append(
                EvalItem(
                    id=cid,
                    submission=submission,
                    base_dir=base,
                    labels=labels,
                    ratings=ratings,
                    slices={"pair": "-vs-".join(sorted((g["a"][1], g["b"][1])))},
                    group=prompt_id,
                    key={"id": cid, "prompt_id": prompt_id},
                )
            )
        # predictions of a compare-mode result are per criterion, not subjective dimensions
        self.targets = [Target(c, "compare", c) for c in criteria]
        return items

    @staticmethod
    def prediction_extra(result: dict[str, Any]) -> dict[str, Any]:
        """What a prediction line keeps of a ComparisonResult for the pairwise report."""
        keep = ("winner", "position_consistent")
        return {
            "comparison": {
                "comparison_id": result.get("comparison_id"),
                "prompt_id": result.get("prompt_id"),
                "models": result.get("models") or {},
                "criteria": {
                    name: {k: c.get(k) for k in keep if k in c}
                    for name, c in (result.get("criteria") or {}).items()
                },
            }
        }

    def extra_report(
        self, data: Path, items: list[EvalItem], predictions: list[dict], n_boot: int, seed: int
    ) -> dict[str, Any]:
        """``pairwise``: agreement with the human majority, position consistency and
        leaderboard correlation (:func:`eval.leaderboards.meta.pairwise_metrics`)."""
        from eval.leaderboards.meta import pairwise_metrics

        results = [p["comparison"] for p in predictions if "comparison" in p]
        prompt_of = {i.id: i.key["prompt_id"] for i in items}
        return {
            "pairwise": pairwise_metrics(
                self.votes(data), results, prompt_of=prompt_of, n_boot=n_boot, seed=seed
            )
        }

    def memories(self, data: Path) -> dict[str, tuple[list[ExemplarRecord], Path]]:
        """None: pairwise judging uses no exemplar memory yet."""
        return {}
