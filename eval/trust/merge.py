"""One final file: the judge's trusted answers and people's labels for the rest.

The results must carry trust flags (``judge trust apply``). Each decision gets
``decided_by``:

- ``people`` when people labelled it: the answer becomes theirs (majority, or the mean
  rating; see :mod:`eval.trust.labels`), the judge's answer kept as ``judge_answer`` and the
  number of labels as ``people``;
- ``judge`` when the judge's answer was trusted and nobody labelled it;
- ``null`` when neither: the judge abstained and no label came back yet.

Checklist rates are recounted from the final verdicts.

Example::

    lines, counts = merge(read_results("applied.jsonl"), read_human("export.jsonl"))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from eval.trust.human import HumanRow
from eval.trust.labels import consensus, match
from eval.trust.results_io import rewrap
from judge.trust.errors import TrustError
from judge.trust.items import result_id, trust_items, unwrap
from judge.trust.recount import recount

FIELD = {"verdict": "verdict", "winner": "winner", "rating": "score"}


def merge(
    lines: Sequence[dict[str, Any]], rows: Sequence[HumanRow]
) -> tuple[list[dict[str, Any]], Counter[str]]:
    """The merged lines (new dicts) and how many decisions each party decided."""
    results = [unwrap(x) for x in lines]
    flagged = any("trusted" in i.node for r in results for i in trust_items(r))
    if not flagged:
        raise TrustError(
            "the results carry no trust flags: apply a policy first (`judge trust apply`), "
            "then merge the people's labels into its output"
        )
    people, _ = consensus(match(rows, results))
    out: list[dict[str, Any]] = []
    counts: Counter[str] = Counter()
    for line, result in zip(lines, results, strict=True):
        result = _copy(result)
        rid = result_id(result)
        for item in trust_items(result):
            node, key = item.node, (rid, item.criterion)
            if key in people:
                _, value, n = people[key]
                field = FIELD[item.kind_type]
                node["judge_answer"] = node.get(field)
                node[field] = round(value, 4) if isinstance(value, float) else value
                node["decided_by"], node["people"] = "people", n
            elif node.get("trusted") is True:
                node["decided_by"] = "judge"
            else:
                node["decided_by"] = None
            counts[node["decided_by"] or "nobody"] += 1
        for side in (result.get("objective") or {}).values():
            if isinstance(side, dict) and side.get("items"):
                recount(side)
        out.append(rewrap(line, result))
    return out, counts


def _copy(value: Any) -> Any:
    import copy

    return copy.deepcopy(value)
