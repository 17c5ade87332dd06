"""Precision and coverage of the local image-check strategies on a labelled set.

Each line of the labels file is ``{"image": PATH, "check": TEXT, "primitive": NAME,
"truth": true|false}``; ``PATH`` is relative to the labels file, or ``avt:GEN/ID.png`` for an
image of the AVT dev split (``--avt-dir``). Every check runs through the same strategies as
``judge score`` (images encoded the same way) and the command prints, per strategy and
overall, how many checks were decided, the share decided and the precision of the decided
verdicts.

Example::

    python -m benchmarks.detect_eval                      # the shipped labelled set
    python -m benchmarks.detect_eval --labels my.jsonl --json --show-items
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from tqdm import tqdm

from judge.config import JudgeSettings
from judge.io.images import load_image
from skills.local.image_checks import strategies
from skills.types import CheckSpec, ImagePayload, VerdictValue

ROOT = Path(__file__).resolve().parents[1]
LABELS = ROOT / "tests" / "local" / "fixtures" / "objects" / "labels.jsonl"
AVT_DIR = ROOT.parent / "shared" / "data" / "avt-dev"


class LabelError(ValueError):
    """A labels file that cannot be evaluated (message says what to fix)."""


def read_labels(path: Path) -> list[dict]:
    """The labelled checks, validated."""
    if not path.is_file():
        raise LabelError(f"labels file not found: {path}")
    rows = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LabelError(f"{path}:{n}: not JSON ({exc.msg})") from exc
        missing = [k for k in ("image", "check", "truth") if k not in row]
        if missing or not isinstance(row.get("truth"), bool):
            raise LabelError(f"{path}:{n}: needs image, check and a boolean truth")
        rows.append(row)
    return rows


def _image_path(ref: str, base: Path, avt_dir: Path) -> Path:
    path = avt_dir / "images" / ref[4:] if ref.startswith("avt:") else base / ref
    if not path.is_file():
        raise LabelError(
            f"image not found: {path} (for avt: images pass --avt-dir; the photos/ images of "
            "the shipped photos.jsonl are built by "
            "tests/local/fixtures/objects/photos/make_photos.py)"
        )
    return path


def _strategy(check: CheckSpec, image: ImagePayload) -> tuple[str, VerdictValue]:
    for name, fn in strategies().items():
        value = fn(check, image)
        if value is not None:
            return name, value
    return "none", VerdictValue(reason="no local strategy")


def evaluate(labels: Path, avt_dir: Path = AVT_DIR) -> dict:
    """``{"overall": {...}, "by_strategy": {...}, "items": [...]}`` for a labels file."""
    rows = read_labels(labels)
    settings = JudgeSettings()
    images: dict[str, ImagePayload] = {}
    items = []
    for i, row in enumerate(tqdm(rows, desc="checks", unit="check", file=sys.stderr)):
        ref = row["image"]
        if ref not in images:
            path = _image_path(ref, labels.parent, avt_dir)
            images[ref] = load_image(str(path), field="image", settings=settings)
        check = CheckSpec(id=f"l{i}", primitive=row.get("primitive", ""), text=row["check"])
        name, value = _strategy(check, images[ref])
        items.append(
            {
                "image": ref,
                "check": row["check"],
                "truth": row["truth"],
                "strategy": name,
                "verdict": value.verdict,
                "why": value.rationale or value.reason,
            }
        )
    groups: dict[str, list[dict]] = defaultdict(list)
    for item in items:
        groups[item["strategy"]].append(item)
    return {
        "overall": _summary(items),
        "by_strategy": {k: _summary(v) for k, v in groups.items()},
        "items": items,
    }


def _summary(items: list[dict]) -> dict:
    decided = [i for i in items if i["verdict"] is not None]
    correct = sum(i["verdict"] == i["truth"] for i in decided)
    return {
        "checks": len(items),
        "decided": len(decided),
        "share_decided": round(len(decided) / len(items), 3) if items else 0.0,
        "correct": correct,
        "precision": round(correct / len(decided), 3) if decided else None,
    }


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; exit 2 on a bad labels file or a missing image."""
    ap = argparse.ArgumentParser(prog="python -m benchmarks.detect_eval", description=__doc__)
    ap.add_argument("--labels", type=Path, default=LABELS, help="labels JSONL file")
    ap.add_argument("--avt-dir", type=Path, default=AVT_DIR, help="AVT dev split folder")
    ap.add_argument("--json", action="store_true", help="print the full report as JSON")
    ap.add_argument("--show-items", action="store_true", help="list every check's outcome")
    args = ap.parse_args(argv)
    try:
        report = evaluate(args.labels, args.avt_dir)
    except LabelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report if args.show_items else {**report, "items": None}, indent=1))
        return 0
    if args.show_items:
        for it in report["items"]:
            mark = "-" if it["verdict"] is None else ("ok" if it["verdict"] == it["truth"] else "X")
            print(f"{mark:>2} {it['image']:<28} {it['check']}  [{it['why']}]")
    for name, s in [("overall", report["overall"]), *report["by_strategy"].items()]:
        prec = "n/a" if s["precision"] is None else f"{s['precision']:.1%}"
        print(
            f"{name:<13} checks {s['checks']:>3}  decided {s['decided']:>3} "
            f"({s['share_decided']:.0%})  precision {prec} ({s['correct']}/{s['decided']})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
