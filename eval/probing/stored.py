"""A probe run's stored files, read and rewritten without the runner: the overrides file,
atomic JSON writes and a stored export with overrides re-applied.

Kept apart from the runner so that ``judge probe override`` and the service's tree route load
only the tree model and its metrics, not the judge stack (a CLI start stays cheap).

Example::

    tree = json.loads((out / "tree.json").read_text())
    fresh = export_json(tree, {k: v.model_dump(mode="json")
                               for k, v in read_overrides(out).items()}, tree["params"])
    write_json(out / "tree.json", fresh)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from eval.probing.metrics import comparison, tree_metrics
from eval.probing.overrides import apply_overrides
from eval.probing.tree import Override, ProbeNode
from memory.io.atomic import write_atomic


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (a killed run never leaves half a file)."""
    write_atomic(path, json.dumps(data, indent=1, ensure_ascii=False))


def read_overrides(out: Path) -> dict[str, Override]:
    """``DIR/overrides.json`` (``{"n0/1/2": {"verdict", "who", "when"}}``), when present."""
    path = out / "overrides.json"
    if not path.exists():
        return {}
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {k: Override.model_validate(v) for k, v in raw.items()}


def export_json(
    snapshot: dict[str, Any], overrides: dict[str, Any], params: dict[str, Any]
) -> dict[str, Any]:
    """A stored export with the current overrides applied and the metrics recomputed."""
    root = ProbeNode.from_json(snapshot["root"])
    apply_overrides(root, overrides)
    out = dict(snapshot)
    out["root"] = root.to_json()
    out["metrics"] = tree_metrics(root, float(params.get("bug_threshold", 0.75)))
    if "baseline" in out and out["baseline"].get("metrics"):
        out["comparison"] = comparison(out["metrics"], out["baseline"]["metrics"])
    return out
