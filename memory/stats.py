"""Summary statistics of a memory: manifest, score distribution, checksum check.

Example::

    memory_stats(MemoryStore().load("avt-image"), verify=True)["checksum_ok"]
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from memory.memory import Memory
from memory.store import checksum


def memory_stats(mem: Memory, *, verify: bool = False) -> dict[str, Any]:
    """Manifest fields, per-dimension score histograms (rounded) and means."""
    m = mem.manifest
    info: dict[str, Any] = m.model_dump(mode="json")
    info["version_label"] = m.version_label
    info["folder"] = str(mem.folder)
    dists: dict[str, dict[str, int]] = {}
    means: dict[str, float] = {}
    for dim in m.dimensions:
        vals = [r.scores[dim] for r in mem.records if dim in r.scores]
        hist = Counter(str(round(v)) for v in vals)
        dists[dim] = {k: hist[k] for k in sorted(hist)}
        means[dim] = round(sum(vals) / len(vals), 3) if vals else 0.0
    info["score_histogram"] = dists
    info["score_mean"] = means
    info["categories_count"] = dict(Counter(r.category or "-" for r in mem.records))
    info["with_rationales"] = sum(1 for r in mem.records if r.rationales)
    if verify:
        info["checksum_ok"] = checksum(mem.folder) == m.checksum
    return info
