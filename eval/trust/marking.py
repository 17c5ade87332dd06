"""Apply a policy to whole results files: one list of lines per stage, matched by result id.

Example::

    lines, counts = mark_lines([read_results("cheap.jsonl"), read_results("strong.jsonl")],
                               read_policy("cascade.json"))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from eval.trust.results_io import rewrap
from judge.trust import TrustPolicy, apply_stages, result_id, trust_items, unwrap
from judge.trust.errors import TrustError


def mark_lines(
    files: Sequence[Sequence[dict[str, Any]]], policy: TrustPolicy
) -> tuple[list[dict[str, Any]], Counter[str]]:
    """The first file's lines marked by ``policy`` (later files: later stages' results of the
    same items, in any order), and how many decisions were trusted and not."""
    later = [{result_id(unwrap(x)): unwrap(x) for x in lines} for lines in files[1:]]
    out: list[dict[str, Any]] = []
    counts: Counter[str] = Counter()
    for line in files[0]:
        first = unwrap(line)
        rid = result_id(first)
        stages = [first]
        for k, index in enumerate(later, start=2):
            if rid not in index:
                raise TrustError(f"{rid} is missing from the results of stage {k}")
            stages.append(index[rid])
        marked = apply_stages(stages, policy)
        counts.update(
            "trusted" if i.node["trusted"] else "not trusted" for i in trust_items(marked)
        )
        out.append(rewrap(line, marked))
    return out, counts
