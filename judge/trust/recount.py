"""Recount a checklist side after its verdicts changed (a cascade stage or people decided some).

The figures follow :meth:`judge.domain.result.ObjectiveSide.from_items`: ``rate = 100 *
passed / scored`` over the decided verdicts, rounded to one decimal.

Example:
    >>> side = {"items": [{"verdict": True}, {"verdict": False}, {"verdict": None}]}
    >>> recount(side)
    >>> side["rate"], side["scored"], side["passed"], side["coverage"]
    (50.0, 2, 1, {'scored': 2, 'total': 3})
"""

from __future__ import annotations

from typing import Any


def recount(side: dict[str, Any]) -> None:
    """Set ``rate``, ``scored``, ``unscored``, ``passed`` and ``coverage`` from ``items``."""
    items = [i for i in side.get("items") or [] if isinstance(i, dict)]
    scored = [i for i in items if isinstance(i.get("verdict"), bool)]
    passed = sum(1 for i in scored if i["verdict"])
    side["rate"] = round(100.0 * passed / len(scored), 1) if scored else None
    side["scored"], side["unscored"], side["passed"] = len(scored), len(items) - len(scored), passed
    side["coverage"] = {"scored": len(scored), "total": len(items)}
