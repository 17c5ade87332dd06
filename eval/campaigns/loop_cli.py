"""``judge campaign add-to-memory`` and the report's before/after options.

Example:
    $ judge campaign add-to-memory rate-1 --url http://127.0.0.1:8080 --memory my-raters \\
          --holdout 0.25 --seed 0 --split-out runs/rate-1-split.json
    $ judge campaign report rate-1 --url http://127.0.0.1:8080 --out runs/rate-1-report \\
          --split runs/rate-1-split.json --judge-before before.jsonl --judge-after after.jsonl

``add-to-memory`` reads the campaign's ratings from the service, drops the flagged
annotators' rows, averages the rest per item (the annotators' reasons joined as the
rationale), holds out a seeded share of the items and adds the others as image exemplars to
the memory through ``POST /v1/memories/{name}/exemplars`` (created when new). The split file
names both parts; the report uses it to compute judge–human agreement on the held-out items.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from eval.campaigns.exports import rating_units
from eval.campaigns.loop import (
    aggregate,
    exemplar_row,
    memory_agreement,
    read_judge_scores,
    split_items,
)
from eval.kit.admin import AdminClient

CHUNK = 50


def register_add(actions: argparse._SubParsersAction, common: Any, handler: Any) -> None:
    """The ``add-to-memory`` action (``common`` adds the campaign, --url, --admin-key-env)."""
    a = actions.add_parser("add-to-memory", help="add kept ratings to an exemplar memory")
    common(a)
    a.add_argument("--memory", required=True, help="the exemplar memory (created when new)")
    a.add_argument("--holdout", type=float, default=0.25, help="share of items kept out (0.25)")
    a.add_argument("--seed", type=int, default=0, help="seed of the held-out draw (0)")
    a.add_argument("--split-out", type=Path, required=True, help="JSON file naming both parts")
    a.add_argument("--encoder", default="efficientnet-lite0", help="for a new memory")
    a.set_defaults(handler=handler)


def report_options(p: argparse.ArgumentParser) -> None:
    """``--split``, ``--judge-before``, ``--judge-after``, ``--trust-results``,
    ``--trust-policy`` on ``report``."""
    p.add_argument("--split", type=Path, help="split file written by add-to-memory")
    p.add_argument("--judge-before", type=Path, help="judge results without the memory (JSONL)")
    p.add_argument("--judge-after", type=Path, help="judge results with the memory (JSONL)")
    p.add_argument("--trust-results", type=Path, metavar="RESULTS",
                   help="the judge's results of the campaign's items, with a confidence: adds "
                   "the risk-coverage curve against the campaign's labels")  # fmt: skip
    p.add_argument("--trust-policy", type=Path, metavar="POLICY",
                   help="with --trust-results: the policy's operating point and held-out "
                   "agreement")  # fmt: skip


def _kept_ratings(
    client: AdminClient, campaign: str
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    record = client.campaign(campaign)
    if record["kind"] != "rating":
        raise ValueError(f"campaign {campaign!r} is {record['kind']}: only rating campaigns "
                         "make exemplars")  # fmt: skip
    return record, client.campaign_rows(campaign, "ratings")


def add_to_memory(client: AdminClient, args: argparse.Namespace) -> int:
    """Aggregate, split, add; print what was added and write the split file."""
    from tqdm import tqdm

    record, rows = _kept_ratings(client, args.campaign)
    per_item = aggregate(rows)
    if not per_item:
        raise ValueError(f"campaign {args.campaign!r} has no kept ratings yet")
    memory_ids, held_out = split_items(per_item, holdout=args.holdout, seed=args.seed)
    criterion = record["criterion"]
    lines = []
    for item in tqdm(memory_ids, desc="images", unit="img", disable=None):
        rel = per_item[item]["row"]["image"]
        raw = client.campaign_image(args.campaign, Path(rel).stem)
        lines.append(exemplar_row(args.campaign, criterion, item, per_item[item], raw,
                                  Path(rel).suffix.lstrip(".")))  # fmt: skip
    added: dict[str, Any] = {}
    for start in range(0, len(lines), CHUNK):
        body = {"exemplars": lines[start : start + CHUNK], "encoder": args.encoder}
        added = client.add_exemplars(args.memory, body)
    split = {
        "campaign": args.campaign,
        "criterion": criterion,
        "memory_name": args.memory,
        "memory_version": added.get("version"),
        "rule": f"items sorted by id, shuffled with random.Random({args.seed}), the first "
        f"round({args.holdout} * {len(per_item)}) held out",
        "holdout": args.holdout,
        "seed": args.seed,
        "memory": memory_ids,
        "held_out": held_out,
    }
    args.split_out.parent.mkdir(parents=True, exist_ok=True)
    args.split_out.write_text(json.dumps(split, indent=2) + "\n", encoding="utf-8")
    print(
        f"{args.campaign}: added {len(memory_ids)} items to memory {args.memory!r} "
        f"(now {added.get('count')} exemplars), held out {len(held_out)}; "
        f"split written to {args.split_out}"
    )
    return 0


def before_after(client: AdminClient, args: argparse.Namespace, report: dict[str, Any]) -> None:
    """Add ``judge_memory_agreement`` to ``report`` when the three options are given."""
    given = [args.split, args.judge_before, args.judge_after]
    if not any(given):
        return
    if not all(given):
        raise ValueError("--split, --judge-before and --judge-after go together")
    split = json.loads(args.split.read_text(encoding="utf-8"))
    if split.get("campaign") != args.campaign:
        raise ValueError(f"{args.split} is the split of campaign {split.get('campaign')!r}")
    _, rows = _kept_ratings(client, args.campaign)
    crit = split["criterion"]
    before = read_judge_scores(args.judge_before, crit)
    after = read_judge_scores(args.judge_after, crit)
    report["judge_memory_agreement"] = memory_agreement(
        rating_units(rows), split, before, after, n_boot=args.bootstrap
    )
