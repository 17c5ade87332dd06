"""Face finder evaluation: detection recall, false detections, identity separation.

Builds the labelled set (:mod:`benchmarks.faces_recipes`) into a folder as PNGs, runs
:func:`skills.metrics.faces.find_faces` on every image and reports:

* ``recall_bar``: found / labelled faces of at least 40 px turned at most 45° (the quality
  bar); ``recall_by`` splits all faces by group, size and rotation (28–36 px and ±60° are
  outside the bar and reported alone);
* ``face_free_false_rate``: face-free images with any detection / face-free images, and
  ``extra_detections`` on images with faces (neither a labelled face nor an ignore box);
* identity separation over every pair of found faces (a detection is paired with a label
  when their boxes overlap with IoU ≥ :data:`MATCH_IOU`): ROC AUC of the cosine for
  same-person vs different-person pairs, and the error rates at the metric's threshold
  :data:`~skills.metrics.faces.SAME_PERSON_COSINE`.

Usage::

    python -m benchmarks.faces_eval build  /tmp/faces-set
    python -m benchmarks.faces_eval run    /tmp/faces-set --out faces-eval.json
    python -m benchmarks.faces_eval labels   # rewrite labels.jsonl (only when the set changes)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from benchmarks.faces_recipes import make_entries, read_labels, write_labels
from benchmarks.faces_set import render
from skills.metrics.face_identity import cosine
from skills.metrics.faces import SAME_PERSON_COSINE, find_faces

MATCH_IOU = 0.3
BAR = {"recall": 0.95, "face_free_false_rate": 0.02, "auc": 0.98}


def build(folder: Path, entries: list[dict[str, Any]] | None = None) -> int:
    """Render every labelled image into ``folder`` (``<group>/<name>.png``); checks that
    the rendered faces still agree with the committed labels."""
    entries = entries if entries is not None else read_labels()
    for i, entry in enumerate(entries):
        image, faces, _ = render(entry["recipe"])
        boxes = [[round(v, 1) for v in f["box"]] for f in faces]
        if boxes != [f["box"] for f in entry["faces"]] or list(image.size) != entry["size"]:
            raise ValueError(f"{entry['image']}: the packaged photo no longer matches its labels")
        path = folder / f"{entry['image']}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        image.save(path)
        _progress("build", i + 1, len(entries))
    return len(entries)


def _progress(what: str, done: int, total: int) -> None:
    if sys.stderr.isatty() or done == total:
        print(f"\r{what}: {done}/{total}", end="\n" if done == total else "", file=sys.stderr)


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two ``(left, top, right, bottom)`` boxes."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    inter = max(w, 0) * max(h, 0)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def match(entry: dict[str, Any], found: list[Any]) -> tuple[dict[int, Any], int]:
    """Labelled face index → its detection (greedy by IoU), and the unexplained detections."""
    pairs = sorted(
        (
            (iou(f["box"], d.box), i, j)
            for i, f in enumerate(entry["faces"])
            for j, d in enumerate(found)
        ),
        reverse=True,
    )
    taken, used = {}, set()
    for score, i, j in pairs:
        if score >= MATCH_IOU and i not in taken and j not in used:
            taken[i], _ = found[j], used.add(j)
    extra = sum(
        1
        for j, d in enumerate(found)
        if j not in used and not any(iou(b, d.box) > 0.1 for b in entry["ignore"])
    )
    return taken, extra


def auc(positive: list[float], negative: list[float]) -> float:
    """ROC AUC: probability a same-person pair scores above a different-person pair."""
    scores = np.concatenate([positive, negative])
    order = scores.argsort(kind="mergesort")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    for value in np.unique(scores):  # ties share their mean rank
        tie = scores == value
        ranks[tie] = ranks[tie].mean()
    n_pos, n_neg = len(positive), len(negative)
    return float((ranks[:n_pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def _size_band(size: float) -> str:
    return (
        "<40px"
        if size < 40
        else "40-80px"
        if size < 80
        else "80-160px"
        if size < 160
        else ">=160px"
    )


def evaluate(folder: Path, entries: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Run the face finder on the built set and compute the report."""
    entries = entries if entries is not None else read_labels()
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    found_faces, missed, free_hits, extra = [], [], [], 0
    for n, entry in enumerate(entries):
        rgb = np.asarray(Image.open(folder / f"{entry['image']}.png").convert("RGB"))
        found = find_faces(rgb)
        taken, unexplained = match(entry, found)
        if not entry["faces"]:
            if found:
                free_hits.append({"image": entry["image"], "boxes": [d.box for d in found]})
            continue
        extra += unexplained
        for i, face in enumerate(entry["faces"]):
            hit = i in taken
            in_bar = face["size"] >= 40 and abs(face["rotation"]) <= 45
            keys = [
                f"group:{entry['group']}",
                f"size:{_size_band(face['size'])}",
                f"rotation:{'<=45' if abs(face['rotation']) <= 45 else '>45'}",
            ]
            for key in keys + (["bar"] if in_bar else []):
                tally[key][0] += hit
                tally[key][1] += 1
            if hit:
                found_faces.append((face["person"], entry["image"], taken[i].descriptor))
            elif in_bar:
                missed.append(
                    {
                        "image": entry["image"],
                        "person": face["person"],
                        "size": face["size"],
                        "rotation": face["rotation"],
                    }
                )
        _progress("evaluate", n + 1, len(entries))
    n_free = sum(1 for e in entries if not e["faces"])
    return {
        "images": len(entries),
        "labelled_faces": sum(len(e["faces"]) for e in entries),
        "recall_bar": round(tally["bar"][0] / tally["bar"][1], 4),
        "bar_faces": tally["bar"][1],
        "recall_by": {
            k: {"found": v[0], "faces": v[1], "recall": round(v[0] / v[1], 4)}
            for k, v in sorted(tally.items())
        },
        "missed_in_bar": missed,
        "face_free_images": n_free,
        "face_free_false_rate": round(len(free_hits) / n_free, 4),
        "face_free_hits": free_hits,
        "extra_detections_on_face_images": extra,
        "identity": identity_report(found_faces),
    }


def identity_report(faces: list[tuple[str, str, np.ndarray]]) -> dict[str, Any]:
    """Same vs different person over every pair of found faces from different images or
    different people (two faces of one image are always different people in this set)."""
    same, diff = [], []
    for a in range(len(faces)):
        for b in range(a + 1, len(faces)):
            value = cosine(faces[a][2], faces[b][2])
            (same if faces[a][0] == faces[b][0] else diff).append(value)
    people = sorted({f[0] for f in faces})
    return {
        "identities": len(people),
        "people": people,
        "faces": len(faces),
        "same_pairs": len(same),
        "different_pairs": len(diff),
        "auc": round(auc(same, diff), 4) if same and diff else None,
        "threshold": SAME_PERSON_COSINE,
        "false_reject_rate": round(float(np.mean(np.array(same) < SAME_PERSON_COSINE)), 4),
        "false_accept_rate": round(float(np.mean(np.array(diff) >= SAME_PERSON_COSINE)), 4),
        "same_cosine_min": round(min(same), 4) if same else None,
        "different_cosine_max": round(max(diff), 4) if diff else None,
    }


def meets_bar(report: dict[str, Any]) -> dict[str, bool]:
    """Which parts of the quality bar the report meets."""
    return {
        "recall": report["recall_bar"] >= BAR["recall"],
        "face_free_false_rate": report["face_free_false_rate"] <= BAR["face_free_false_rate"],
        "auc": (report["identity"]["auc"] or 0) >= BAR["auc"],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.faces_eval", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("labels", help="rewrite benchmarks/data/faces/labels.jsonl from the recipes")
    b = sub.add_parser("build", help="render the labelled set into FOLDER")
    b.add_argument("folder", type=Path)
    r = sub.add_parser("run", help="evaluate the face finder on a built set")
    r.add_argument("folder", type=Path)
    r.add_argument("--out", type=Path, help="also write the report as JSON here")
    r.add_argument("--torch-threads", type=int, default=2)
    args = parser.parse_args(argv)
    if args.action == "labels":
        print(f"wrote {write_labels()} images' labels")
        return 0
    if args.action == "build":
        print(f"built {build(args.folder)} images in {args.folder}")
        return 0
    if not (args.folder / "people").is_dir():
        parser.error(f"{args.folder} holds no built set: run `build {args.folder}` first")
    import torch

    torch.set_num_threads(args.torch_threads)
    report = evaluate(args.folder)
    report["meets_bar"] = meets_bar(report)
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text)
    print(text)
    return 0 if all(report["meets_bar"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["build", "evaluate", "make_entries", "meets_bar"]
