"""Book-keeping the runner shares across stages: usage per stage, the cost budget, and the
record of the study written to ``DIR/study.json``.

Example:
    >>> u = StageUsage(); u.add("judge", {"calls": 12, "cost_usd": 0.01, "latency_s": 2.0})
    >>> u.as_dict()["judge"]["calls"], "latency_s" in u.as_dict()["judge"]
    (12, False)
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
    """Calls, cost, busy time and when the stage's last step finished (seconds since the run
    started), per stage, for this run.

    A step's ``latency_s`` is its own wall time, which counts the time it waited for a
    concurrency slot while other steps ran; the steps of a stage overlap, so their sum is no
    time at all (one study summed 794 s for 12 mock calls). ``busy_s`` is the wall time during
    which at least one step of the stage was in flight: overlapping steps count once, and it
    never exceeds the run's wall time.
    """

    def __init__(self, stages: tuple[str, ...] = STAGES) -> None:
        self._u = {s: {"steps": 0, "calls": 0, "cost_usd": 0.0} for s in stages}
        self._start = time.perf_counter()
        self._last: dict[str, float] = {}
        self._spans: dict[str, list[tuple[float, float]]] = {s: [] for s in stages}

    def add(self, stage: str, usage: dict[str, Any]) -> None:
        """Count one finished step; its span is the ``latency_s`` seconds up to now."""
        u = self._u[stage]
        u["steps"] += 1
        u["calls"] += int(usage.get("calls") or 0)
        u["cost_usd"] += float(usage.get("cost_usd") or 0.0)
        end = time.perf_counter() - self._start
        took = max(float(usage.get("latency_s") or 0.0), 0.0)
        self._spans[stage].append((max(end - took, 0.0), end))
        self._last[stage] = end

    def as_dict(self) -> dict[str, dict[str, Any]]:
        return {
            s: {
                **u,
                "cost_usd": round(u["cost_usd"], 6),
                "busy_s": round(_covered(self._spans[s]), 3),
                "last_done_s": round(self._last.get(s, 0.0), 3),
            }
            for s, u in self._u.items()
        }


def _covered(spans: list[tuple[float, float]]) -> float:
    """Length of the union of ``(start, end)`` spans.

    >>> _covered([(0, 2), (1, 3), (5, 6)])
    4.0
    """
    total, reach = 0.0, float("-inf")
    for start, end in sorted(spans):
        if end > reach:
            total += end - max(start, reach)
            reach = end
    return total


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


def file_sha256(path: Any) -> str:
    """The hex SHA-256 of a file's bytes (how inputs enter a study's fingerprint)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fingerprint(judged: dict[str, Any]) -> str:
    """16 hex digits naming everything that changes a study's results (``judged``)."""
    return hashlib.sha256(json.dumps(judged, sort_keys=True).encode()).hexdigest()[:16]


def study_record(cfg: StudyConfig, tasks: list[Any]) -> dict[str, Any]:
    """The resolved study for ``study.json``: what the report needs, and a fingerprint of
    everything that changes results (a run resumes only into a folder with the same one)."""
    prompters = [p.model_dump(mode="json", exclude={"concurrency"}) for p in cfg.prompters]
    for p, spec in zip(prompters, cfg.prompters, strict=True):
        if spec.kind == "human":
            p["prompts"] = str(cfg.prompts_path(spec).resolve())
            p["prompts_sha256"] = file_sha256(cfg.prompts_path(spec))
    backends = [b.model_dump(mode="json", exclude={"concurrency"}) for b in cfg.backends]
    # Files enter the fingerprint by content, not by where the checkout lives: a run moved or
    # re-run from another folder with the same inputs still resumes.
    judged_prompters = [{k: v for k, v in p.items() if k != "prompts"} for p in prompters]
    judged = {
        "study": {"name": cfg.study.name, "images_per_prompt": cfg.study.images_per_prompt},
        "tasks_sha256": file_sha256(cfg.tasks_path),
        "prompters": judged_prompters,
        "backends": backends,
        "judge": cfg.judge.model_dump(mode="json"),
        "seed": cfg.run.seed,
    }
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
        "fingerprint": fingerprint(judged),
    }
