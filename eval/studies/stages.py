"""Book-keeping the runner shares across stages: usage per stage, the cost budget, and the
record of the study written to ``DIR/study.json``.

Example:
    >>> u = StageUsage(); u.add("judge", {"calls": 12, "cost_usd": 0.01, "latency_s": 2.0})
    >>> u.as_dict()["judge"]["calls"]
    12
    >>> g = CostGate(0.5); g.spend(0.6); g.open(), g.reason
    (False, 'max cost reached: $0.6000 spent of $0.5000')
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

from eval.studies.config import StudyConfig

STAGES = ("prompter", "generation", "judge")


class StageUsage:
    """Calls, cost, summed latency and when the stage's last step finished (seconds since
    the run started), per stage, for this run."""

    def __init__(self, stages: tuple[str, ...] = STAGES) -> None:
        self._u = {s: {"steps": 0, "calls": 0, "cost_usd": 0.0, "latency_s": 0.0} for s in stages}
        self._start = time.perf_counter()
        self._last: dict[str, float] = {}

    def add(self, stage: str, usage: dict[str, Any]) -> None:
        u = self._u[stage]
        u["steps"] += 1
        u["calls"] += int(usage.get("calls") or 0)
        u["cost_usd"] += float(usage.get("cost_usd") or 0.0)
        u["latency_s"] += float(usage.get("latency_s") or 0.0)
        self._last[stage] = time.perf_counter() - self._start

    def as_dict(self) -> dict[str, dict[str, Any]]:
        return {
            s: {
                **u,
                "cost_usd": round(u["cost_usd"], 6),
                "latency_s": round(u["latency_s"], 3),
                "last_done_s": round(self._last.get(s, 0.0), 3),
            }
            for s, u in self._u.items()
        }


class CostGate:
    """Lets new paid steps start until the spend (journalled + this run) reaches the cap."""

    def __init__(self, max_cost: float | None):
        self.max_cost = max_cost
        self.spent = 0.0
        self.reason: str | None = None

    def spend(self, cost: float) -> None:
        self.spent += float(cost or 0.0)

    def open(self) -> bool:
        if self.max_cost is None:
            return True
        if self.spent >= self.max_cost:
            self.reason = f"max cost reached: ${self.spent:.4f} spent of ${self.max_cost:.4f}"
            return False
        return True


def _sha256(path: Any) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def study_record(cfg: StudyConfig, tasks: list[Any]) -> dict[str, Any]:
    """The resolved study for ``study.json``: what the report needs, and a fingerprint of
    everything that changes results (a run resumes only into a folder with the same one)."""
    prompters = [p.model_dump(mode="json", exclude={"concurrency"}) for p in cfg.prompters]
    for p, spec in zip(prompters, cfg.prompters, strict=True):
        if spec.kind == "human":
            p["prompts"] = str(cfg.prompts_path(spec).resolve())
            p["prompts_sha256"] = _sha256(cfg.prompts_path(spec))
    backends = [b.model_dump(mode="json", exclude={"concurrency"}) for b in cfg.backends]
    # Files enter the fingerprint by content, not by where the checkout lives: a run moved or
    # re-run from another folder with the same inputs still resumes.
    judged_prompters = [{k: v for k, v in p.items() if k != "prompts"} for p in prompters]
    judged = {
        "study": {"name": cfg.study.name, "images_per_prompt": cfg.study.images_per_prompt},
        "tasks_sha256": _sha256(cfg.tasks_path),
        "prompters": judged_prompters,
        "backends": backends,
        "judge": cfg.judge.model_dump(mode="json"),
        "seed": cfg.run.seed,
    }
    fingerprint = hashlib.sha256(json.dumps(judged, sort_keys=True).encode()).hexdigest()[:16]
    return {
        "name": cfg.study.name,
        "description": cfg.study.description,
        "file": str(cfg.file) if cfg.file else None,
        "tasks_file": str(cfg.tasks_path.resolve()),
        "images_per_prompt": cfg.study.images_per_prompt,
        "tasks": [
            {
                "id": t.id,
                "category": str(t.category),
                "primitives": [str(p) for p in t.tags.primitives],
            }
            for t in tasks
        ],
        "prompters": prompters,
        "backends": backends,
        "judge": cfg.judge.model_dump(mode="json"),
        "run": cfg.run.model_dump(mode="json"),
        "fingerprint": fingerprint,
    }
