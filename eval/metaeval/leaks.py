"""Did leave-one-group-out hold? Items calibrated on exemplars of their own group.

With ``--cv lopo --url`` the service scores with its own memory and the client asks it to
leave out each item's group (``exclude_exemplars``); that works only when the service's
exemplars carry the group in their ``meta`` under the dataset's key. The exemplar ids each
result used are compared with the exemplars the scored split itself would give (and the item
ids) of the item's group, so a leak is counted, not assumed away.

Example:
    >>> from pathlib import Path
    >>> from eval.datasets.base import EvalItem
    >>> a = EvalItem("a.png", {}, Path("."), group="g1")
    >>> b = EvalItem("b.png", {}, Path("."), group="g1")
    >>> preds = [{"id": "a.png", "exemplars": ["b", "z"]}, {"id": "b.png", "exemplars": ["z"]}]
    >>> own_group_exemplars([a, b], preds, {"b": "g1", "z": "g2"})
    ['a.png']
"""

from __future__ import annotations

from pathlib import Path

from eval.datasets.base import Dataset, EvalItem


def split_exemplar_groups(dataset: Dataset, data: Path) -> dict[str, str]:
    """Exemplar id → group, for the exemplars a memory built from ``data`` would hold."""
    key = dataset.group_key
    if key is None:
        return {}
    try:
        memories = dataset.memories(data)
    except (OSError, ValueError):
        return {}
    return {
        r.id: str(r.meta[key])
        for records, _ in memories.values()
        for r in records
        if r.meta.get(key) is not None
    }


def own_group_exemplars(
    items: list[EvalItem], predictions: list[dict], exemplar_groups: dict[str, str]
) -> list[str]:
    """Ids of the items whose result used an exemplar of the item's own group."""
    groups = {**exemplar_groups, **{i.id: i.group or i.id for i in items}}
    group_of = {i.id: i.group or i.id for i in items}
    return [
        p["id"]
        for p in predictions
        if p.get("id") in group_of
        and any(groups.get(e) == group_of[p["id"]] for e in p.get("exemplars") or [])
    ]
