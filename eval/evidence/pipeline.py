"""``judge tasks from-posts``: a posts export → task suites, analysis samples and a report.

Stages: read (bad lines reported) → keywords per time window → model relevance grade
(threshold) → reply trees → sample extraction → image roles / template completions /
screenshot parsing → feedback labels. Relevance calls run concurrently; then every thread goes
through its own stages concurrently with the others, each stage under its own cap. Every
answer is journalled first (:mod:`eval.evidence.calls`): re-running resumes and pays for no
call twice. Outputs (docs/design.md#task-suites-from-posts-and-by-edit-type):
``suite.t2i.jsonl``, ``suite.i2i.jsonl``, ``analysis.jsonl``, ``report.json`` and
``failures.png``.

Example::

    report = asyncio.run(run_pipeline(Path("posts.jsonl"), settings,
                                      Options(out=Path("bench"), max_samples=100)))
    report["stages"]["benchmark"]
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

from tqdm import tqdm

from eval.evidence.answers import Extraction, RelevanceGrade
from eval.evidence.calls import JournalledCalls, load_card
from eval.evidence.failures import bar_chart, family_counts, label_feedback, shift_metrics, tally
from eval.evidence.keywords import KeywordWindows
from eval.evidence.media import ImageStore
from eval.evidence.options import DEFAULT_LIMITS, Options
from eval.evidence.posts import Post, image_settings, read_posts
from eval.evidence.samples import Context, Sample, resolve
from eval.evidence.suite_out import write_outputs
from eval.evidence.trees import Tree, build_trees, image_id, render_tree
from eval.kit.journal import Journal
from judge.config import JudgeSettings
from judge.llm.gateway import LLMGateway
from judge.llm.usage import UsageMeter
from memory.io.atomic import write_atomic
from skills.rendering import data_block, messages, text_part

__all__ = ["DEFAULT_LIMITS", "Options", "run_pipeline"]

def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


async def _grade(calls: JournalledCalls, post: Post) -> int | None:
    stage = load_card().stage("relevance")
    parts = [text_part(data_block("POST", post.text)),
             text_part(f"Attached images: {len(post.images)}. Grade this post.")]
    answer = await calls.ask(stage, _sha(post.text),
                             messages(stage.system(), parts), RelevanceGrade)
    return None if answer is None else answer.grade


async def _thread(tree: Tree, ctx: Context) -> list[Sample]:
    card = ctx.card
    stage = card.stage("extract")
    text = render_tree(tree)
    parts = [text_part(data_block("THREAD", text)), text_part("Extract the samples.")]
    answer = await ctx.calls.ask(stage, f"{tree.root}|{_sha(text)}",
                                 messages(stage.system(), parts), Extraction)
    if answer is None:
        ctx.problems.append(f"thread {tree.root}: no usable extraction")
        return []
    samples: list[Sample] = []
    for k, ex in enumerate(answer.samples):
        found = await resolve(tree, k, ex, ctx)
        if ex.quality != "discard" and found:
            labels = await label_feedback(ctx.calls, card.stage("feedback"),
                                          f"{tree.root}|{k}|{_sha(ex.prompt)}", ex.prompt,
                                          list(ex.feedback))
            for s in found:
                s.labels = labels
                s.stages["feedback"] = card.stage("feedback").tag
        samples.extend(found)
    return samples


def _gather_bar(total: int, desc: str, progress: bool) -> tqdm:
    return tqdm(total=total, desc=desc, unit="item", disable=not progress or not total)


async def _bounded(coros: list, desc: str, progress: bool) -> list:
    bar = _gather_bar(len(coros), desc, progress)

    async def one(c: Any) -> Any:
        try:
            return await c
        finally:
            bar.update()

    try:
        return await asyncio.gather(*(one(c) for c in coros))
    finally:
        bar.close()


async def run_pipeline(path: Path, settings: JudgeSettings, opts: Options) -> dict[str, Any]:
    """Build the suites from one posts export; returns the report (also written)."""
    card = load_card()
    threshold = opts.threshold or card.relevance_threshold
    keywords = KeywordWindows.load(opts.keywords)
    posts, errors = read_posts(path, allow_urls=opts.allow_urls)
    opts.out.mkdir(parents=True, exist_ok=True)
    journal = Journal(opts.out / "journal" / "events.jsonl")
    meter = UsageMeter()
    client = LLMGateway(settings).client(settings.model or "", meter)
    calls = JournalledCalls(journal, client, opts.limits)
    try:
        matched = [p for p in posts if keywords.matches(p.text, p.created_at)]
        grades = await _bounded([_grade(calls, p) for p in matched], "relevance", opts.progress)
        graded = {p.id: g for p, g in zip(matched, grades, strict=True) if g is not None}
        relevant = {pid for pid, g in graded.items() if g >= threshold}
        trees = build_trees(posts, relevant)
        store = ImageStore(path.parent, opts.out, image_settings(opts.allow_urls))
        store.refs = {image_id(p.id, k): ref for p in posts for k, ref in enumerate(p.images)}
        ctx = Context(calls, card, store, [])
        per_tree = await _bounded([_thread(t, ctx) for t in trees], "threads", opts.progress)
    finally:
        journal.close()
    samples = [s for found in per_tree for s in found]
    written = write_outputs(samples, trees, graded, settings.model or "", opts)
    labels = [x for s in samples if s.quality == "benchmark" for x in s.labels]
    all_labels = [x for s in samples if s.quality != "discard" for x in s.labels]
    failures = tally(all_labels)
    families = family_counts(labels)
    shift = (await shift_metrics(sorted(families), written["i2i_tasks"], opts.out)
             if opts.shift else {})
    plot = bar_chart(failures, opts.out / "failures.png")
    made = sum(calls.stats.made.values())
    report = {
        "stages": {
            "posts": len(posts), "malformed": len(errors), "keyword": len(matched),
            "relevant": len(relevant), "trees": len(trees), "samples": len(samples),
            "benchmark": sum(s.quality == "benchmark" for s in samples),
            "analysis": sum(s.quality == "analysis" for s in samples),
            "discard": sum(s.quality == "discard" for s in samples),
        },
        "suites": written["counts"],
        "errors": errors,
        "failures": failures,
        "failure_families": families,
        "shift_metrics": shift,
        "plot": plot.name if plot else None,
        "problems": ctx.problems,
        "calls": {"made": calls.stats.made, "replayed": calls.stats.replayed,
                  "failed": calls.stats.failed, "shared": calls.stats.shared,
                  "per_post": round(made / len(posts), 4) if posts else 0.0},
        "usage": {"cost_usd": round(meter.cost_usd, 6), "prompt_tokens": meter.prompt_tokens,
                  "completion_tokens": meter.completion_tokens},
        "relevance_threshold": threshold,
        "model": settings.model,
    }
    write_atomic(opts.out / "report.json", json.dumps(report, indent=2).encode())
    return report
