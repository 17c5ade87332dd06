"""``judge skills``: list the skill cards the registry knows."""

from __future__ import annotations

import argparse
import json


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``skills`` verb."""
    p = sub.add_parser("skills", help="list skill cards (name, kind, modality, categories)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print one line per card, or JSON."""
    from skills.registry import default_registry

    cards = default_registry().cards(enabled_only=False)
    if args.json:
        rows = [
            c.model_dump(
                include={
                    "name",
                    "kind",
                    "version",
                    "modality",
                    "categories",
                    "memory",
                    "enabled",
                    "primitives",
                }
            )
            | {"dimensions": c.dimension_names}
            for c in cards
        ]
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'name':26} {'kind':20} {'modality':8} {'categories':11} version")
    for c in cards:
        cats = ",".join(c.categories)
        flag = "" if c.enabled else "  (disabled)"
        if c.primitives:  # a checklist card that takes only these primitives' checkpoints
            flag += f"  (primitives: {', '.join(c.primitives)})"
        print(f"{c.name:26} {c.kind:20} {c.modality:8} {cats:11} {c.version}{flag}")
    return 0
