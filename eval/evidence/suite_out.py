"""Samples → the studies' suites (``SuiteTask`` lines) with provenance, and analysis samples.

Benchmark-grade samples become tasks: text-to-image (``suite.t2i.jsonl``) or, when the
request had an input image, image-to-image/edit (``suite.i2i.jsonl``, the input in
``source_image``); each split is capped at ``max_samples``. Analysis-grade samples go to
``analysis.jsonl``; discard-grade samples go nowhere. Image paths are relative to the output
folder (where the suites are).

Example:
    >>> provenance_keys()
    ['posts', 'root', 'thread', 'relevance', 'stages', 'model', 'inputs', 'outputs', 'feedback']
"""

from __future__ import annotations

import json
from typing import Any

from eval.evidence.options import Options
from eval.evidence.samples import Sample
from eval.evidence.trees import Tree
from eval.studies.suite import SuiteTask, TaskTags
from judge.domain.task import Category
from memory.io.atomic import write_atomic


def provenance_keys() -> list[str]:
    """The keys every task's ``provenance`` has."""
    return ["posts", "root", "thread", "relevance", "stages", "model", "inputs", "outputs",
            "feedback"]


def provenance(s: Sample, tree: Tree, grades: dict[str, int], model: str) -> dict[str, Any]:
    """Where a task came from: its posts, thread, grades, stages, images and feedback."""
    return {
        "posts": s.posts,
        "root": s.root,
        "thread": tree.post_ids,
        "relevance": {p: grades[p] for p in tree.relevant if p in grades},
        "stages": {"relevance": "relevance", **s.stages},
        "model": model,
        "inputs": [i.as_dict() for i in s.inputs],
        "outputs": [o.as_dict() for o in s.outputs],
        "feedback": s.labels or [{"text": f} for f in s.feedback],
    }


def to_task(s: Sample, prov: dict[str, Any]) -> SuiteTask:
    """One benchmark sample as a suite task (category OE: a request seen in the wild)."""
    return SuiteTask(
        id=s.id, category=Category.OE, brief=s.prompt,
        tags=TaskTags(topic=f"community:{s.kind}"),
        source_image=s.inputs[0].path if s.inputs else None,
        provenance=prov,
    )


def _jsonl(rows: list[str]) -> bytes:
    return "".join(r + "\n" for r in rows).encode()


def write_outputs(
    samples: list[Sample], trees: list[Tree], grades: dict[str, int], model: str, opts: Options
) -> dict[str, Any]:
    """Write both suites and the analysis file; counts and the i2i tasks as dicts."""
    from eval.evidence.calls import load_card

    relevance_tag = load_card().stage("relevance").tag
    by_root = {t.root: t for t in trees}
    splits: dict[str, list[SuiteTask]] = {"t2i": [], "i2i": []}
    capped = {"t2i": 0, "i2i": 0}
    analysis: list[str] = []
    for s in samples:
        prov = provenance(s, by_root[s.root], grades, model)
        prov["stages"]["relevance"] = relevance_tag
        if s.quality == "analysis":
            row = {"id": s.id, "kind": s.kind, "prompt": s.prompt, "split": s.split,
                   "provenance": prov}
            analysis.append(json.dumps(row, ensure_ascii=False))
        elif s.quality == "benchmark":
            if opts.max_samples is not None and len(splits[s.split]) >= opts.max_samples:
                capped[s.split] += 1
                continue
            splits[s.split].append(to_task(s, prov))
    for name, tasks in splits.items():
        rows = [t.model_dump_json(exclude_none=True) for t in tasks]
        write_atomic(opts.out / f"suite.{name}.jsonl", _jsonl(rows))
    write_atomic(opts.out / "analysis.jsonl", _jsonl(analysis))
    return {
        "counts": {"t2i": len(splits["t2i"]), "i2i": len(splits["i2i"]),
                   "capped": capped, "analysis": len(analysis)},
        "i2i_tasks": [t.model_dump(mode="json", exclude_none=True) for t in splits["i2i"]],
    }
