"""A small synthetic study with known structure, for the report tests.

Four prompters (human/mllm × novice/skilled), two backends, six tasks (3 OE, 3 CO, no IM).
Every measure is ``base[prompter] + backend offset + task effect``, so the order of the
prompters is known: m-sk > h-sk > m-nov > h-nov on every task and backend, except that on the
objective prompt rate backend b2 swaps h-sk and m-nov. A few items fail (one of each failure
status), one is partial (no image side), and m-nov × b2 lost all its CO tasks.
"""

from __future__ import annotations

import json
from pathlib import Path

PROMPTERS = {
    "m-sk": ("mllm", "skilled", 4.0),
    "h-sk": ("human", "skilled", 3.5),
    "m-nov": ("mllm", "novice", 3.0),
    "h-nov": ("human", "novice", 2.5),
}
BACKENDS = {"b1": 0.0, "b2": -0.5}
TASKS = {"o1": "OE", "o2": "OE", "o3": "OE", "c1": "CO", "c2": "CO", "c3": "CO"}
EFFECT = {"o1": 0.1, "o2": -0.1, "o3": 0.0, "c1": 0.2, "c2": -0.2, "c3": 0.05}
PRIMS = ("quantity", "text", "spatial_relation")
FAILED = {
    ("o2", "h-nov", "b1"): ("blocked", "content filter"),
    ("c1", "m-nov", "b2"): ("generation_failed", "timeout"),
    ("c2", "m-nov", "b2"): ("generation_failed", "timeout"),
    ("c3", "m-nov", "b2"): ("judge_failed", "unparseable answer"),
    ("o3", "h-sk", "b2"): ("prompt_failed", None),
}
PARTIAL = ("o1", "m-sk", "b2")


def measures(task: str, prompter: str, backend: str) -> dict[str, float | None]:
    """The four measures of one item (before any exclusion)."""
    base = PROMPTERS[prompter][2] + BACKENDS[backend] + EFFECT[task]
    rate = 20.0 * base - 10.0
    if backend == "b2" and prompter in ("h-sk", "m-nov"):
        rate = (
            20.0 * (PROMPTERS["m-nov" if prompter == "h-sk" else "h-sk"][2] - 0.5 + EFFECT[task])
            - 10.0
        )
    vals = {
        "subjective_prompt": round(base, 3),
        "subjective_image": round(base - 0.25, 3),
        "objective_prompt_rate": round(rate, 3),
        "objective_image_rate": round(rate + 5.0, 3),
    }
    if (task, prompter, backend) == PARTIAL:
        vals["subjective_image"] = vals["objective_image_rate"] = None
    return vals


def checks(task: str, prompter: str, backend: str) -> list[dict]:
    """Three checks, one per primitive; verdicts follow a fixed pattern."""
    k = list(TASKS).index(task) + list(PROMPTERS).index(prompter) + list(BACKENDS).index(backend)
    out = []
    for i, prim in enumerate(PRIMS):
        image = None if (task, prompter, backend) == PARTIAL else (k + i) % 3 != 0
        out.append({"id": f"c{i}", "primitive": prim, "prompt": (k + i) % 2 == 0, "image": image})
    return out


def rows(backends: tuple[str, ...] = tuple(BACKENDS)) -> list[dict]:
    """Every results line of the study."""
    out = []
    for task, cat in TASKS.items():
        for p, (kind, cond, _) in PROMPTERS.items():
            for b in backends:
                row = {
                    "task_id": task,
                    "category": cat,
                    "primitives": list(PRIMS),
                    "prompter": p,
                    "prompter_kind": kind,
                    "condition": cond,
                    "backend": b,
                    "prompt": f"prompt of {p} for {task}",
                    "images": [],
                    "selected_image": 0,
                }
                if (task, p, b) in FAILED:
                    status, reason = FAILED[(task, p, b)]
                    out.append({**row, "status": status, "reason": reason, "summary": None})
                    continue
                status = "partial" if (task, p, b) == PARTIAL else "scored"
                summary = {**measures(task, p, b), "checks": checks(task, p, b)}
                out.append({**row, "status": status, "reason": None, "summary": summary})
    return out


def write_study(folder: Path, lines: list[dict] | None = None, tail: str = "") -> Path:
    """``folder/results.jsonl`` from ``lines`` (default :func:`rows`) plus a raw ``tail``."""
    folder.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r) + "\n" for r in (rows() if lines is None else lines)) + tail
    (folder / "results.jsonl").write_text(text, encoding="utf-8")
    return folder
