"""``judge meta-eval``: score a labelled dataset with the judge and report agreement.

Scoring never reads the labels of the split being scored: items carry their labels aside,
and only the submission reaches the engine. ``--memory-from DIR`` builds the dataset's
exemplar memory from *another* split's labels; ``--cv lopo`` instead builds it from the
scored split and, for every item, leaves out the exemplars of the item's own group
(AVT: its prompt), i.e. leave-one-prompt-out cross-validation.

Example::

    report = run_meta_eval(MetaEvalConfig(dataset="avt", data=Path("heldout"),
                                          out=Path("runs/test"),
                                          memory_from=Path("../shared/data/avt-dev")))
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from eval.datasets import get_dataset
from eval.datasets.base import Dataset, EvalItem
from eval.datasets.label_cards import write_label_cards
from eval.kit.client import JudgeClient, make_client
from eval.metaeval.ablations import Variant, summary_row, variants
from eval.metaeval.baselines import best_baseline, iqa_baselines, margin_vs_best
from eval.metaeval.batch_scoring import BatchOptions, batch_summary, score_in_batches
from eval.metaeval.calibration import fit_calibration, save_calibration
from eval.metaeval.compare import comparable_targets, compare_metrics
from eval.metaeval.config import MetaEvalConfig, memory_source
from eval.metaeval.dry_run import estimate
from eval.metaeval.evaluate import evaluate, pairs_by_target
from eval.metaeval.leaks import own_group_exemplars, split_exemplar_groups
from eval.metaeval.metric_scores import read_scores
from eval.metaeval.precheck import unreadable, unscored_row, usable_records
from eval.metaeval.public_sets import public_set_section
from eval.metaeval.report import write_report
from eval.metaeval.runner import read_predictions, run_items
from eval.metaeval.subsets import stratified
from judge.config import JudgeSettings
from judge.judged_by import at_service, judged_by
from memory.io.atomic import write_atomic
from memory.store import MemoryStore

REFERENCE = Path(__file__).with_name("reference.json")
_LOCAL_ONLY = {"api_key", "api_base", "memory_dir", "model"}


def _labels_file(dataset: Dataset, data: Path) -> Path:
    """The file a split's labels are read from (a folder and its labels file are the same
    split)."""
    return dataset.labels_path(data).resolve()


def build_memories(
    dataset: Dataset,
    source: Path,
    store_dir: Path,
    encoder: str | None = None,
    left_out: list[str] | None = None,
) -> dict[str, str]:
    """Build the dataset's memories from ``source``'s labels into a fresh store.

    Exemplars whose image cannot be read are left out, each named (by its line in the
    labels file) in ``left_out`` when a list is given.
    """
    store = MemoryStore(store_dir)
    places = {i.id: i.where for i in dataset.load(source) if i.where}
    built = {}
    for name, (records, base) in dataset.memories(source).items():
        records, dropped = usable_records(records, base, places)
        if left_out is not None:
            left_out.extend(f"memory {name!r}: {d}" for d in dropped)
        if records:
            mem = store.build(name, records, base_dir=base, encoder=encoder, source=str(source))
            built[name] = mem.manifest.version_label
    return built


def label_cards(
    dataset: Dataset, cfg: MetaEvalConfig, overrides: dict[str, Any]
) -> dict[str, Any]:
    """For a dataset of your own labels calibrated on labels and run without ``--skills``:
    one card per target reading the labels' memory (settings ``card_dirs`` and ``skills``)."""
    memory = getattr(dataset, "label_memory", None)
    if memory is None or cfg.url or overrides.get("skills"):
        return {}
    folder = cfg.out / "cards"
    names = write_label_cards(dataset.label_columns(), memory, folder)  # type: ignore[attr-defined]  # checked with hasattr by the caller
    return {"card_dirs": [str(folder)], "skills": names}


def _client(cfg: MetaEvalConfig, overrides: dict[str, Any]) -> JudgeClient:
    if cfg.url:
        return make_client(url=cfg.url)
    if cfg.trust is not None:  # every call judged under the policy (read once, here)
        from judge.trust import read_policy

        options = {"trust": read_policy(cfg.trust)}
        return make_client(JudgeSettings().merged(**overrides), options=options)
    return make_client(JudgeSettings().merged(**overrides))


def _score(
    cfg: MetaEvalConfig,
    dataset: Dataset,
    items: list[EvalItem],
    out: Path,
    overrides: dict[str, Any],
) -> list[dict]:
    group_key = dataset.group_key if cfg.cv == "lopo" else None

    def per_item(item: EvalItem) -> dict[str, Any]:
        # a service gets the scoring options only: never our provider key or local paths
        extra = {k: v for k, v in overrides.items() if k not in _LOCAL_ONLY} if cfg.url else {}
        if group_key and item.group is not None:
            extra["exclude_exemplars"] = {group_key: item.group}
        return extra

    if not cfg.provider_batch:
        return asyncio.run(
            run_items(
                items,
                _client(cfg, overrides),
                dataset,
                out / "predictions.jsonl",
                concurrency=cfg.concurrency,
                overrides=per_item,
                progress=cfg.progress,
            )
        )
    return asyncio.run(
        score_in_batches(
            items,
            JudgeSettings().merged(**overrides),
            dataset,
            out / "predictions.jsonl",
            BatchOptions(cfg.out, cfg.batch_poll_s, cfg.batch_wait, cfg.batch_fallback),
            concurrency=cfg.concurrency,
            overrides=per_item,
            progress=cfg.progress,
        )
    )


def _score_readable(
    cfg: MetaEvalConfig,
    dataset: Dataset,
    items: list[EvalItem],
    skipped: dict[str, str],
    overrides: dict[str, Any],
) -> list[dict]:
    """Score the items whose images can be read; the others get an unscored line with the
    reason, and ``predictions.jsonl`` holds one line per item, in item order."""
    scored = _score(cfg, dataset, [i for i in items if i.id not in skipped], cfg.out, overrides)
    if not skipped:
        return scored
    by_id = {p["id"]: p for p in scored}
    for item in items:
        if item.id in skipped:
            by_id[item.id] = unscored_row(item, skipped[item.id])
    ordered = [by_id[i.id] for i in items if i.id in by_id]
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ordered)
    write_atomic(cfg.out / "predictions.jsonl", text)
    return ordered


def _check_config(cfg: MetaEvalConfig, dataset: Dataset) -> Path | None:
    """The folder to build memories from, refusing to reuse the scored split's labels and an
    ablation with no exemplars to vary; checked before anything is scored (the options
    alone were checked when ``cfg`` was built: :mod:`eval.metaeval.config`)."""
    source = memory_source(cfg)
    if source is not None and hasattr(dataset, "baselines"):
        raise ValueError(
            f"--cv and --memory-from build exemplar memories from a split's labels; the public "
            f"set {cfg.dataset!r} has no exemplar memory, so its runs are zero-shot: drop them, "
            "or give --memory-dir with a store you built yourself"
        )
    if cfg.ablation in ("retrieval", "k") and not cfg.url and source is None:
        store = MemoryStore(cfg.memory_dir) if cfg.memory_dir is not None else None
        if store is None or not store.names():
            raise ValueError(
                f"--ablation {cfg.ablation} varies the exemplars that calibrate the judge, but "
                "this run has no exemplar memory (zero-shot), so every variant would score "
                "alike: add --memory-from OTHER_SPLIT, --cv lopo, or --memory-dir STORE"
            )
    if (
        cfg.cv is None
        and cfg.memory_from is not None
        and _labels_file(dataset, cfg.memory_from) == _labels_file(dataset, cfg.data)
    ):
        raise ValueError(
            "--memory-from is the split being scored: its own labels would "
            "calibrate its predictions. Use another split, or --cv lopo."
        )
    return source


def run_meta_eval(cfg: MetaEvalConfig) -> dict[str, Any]:
    """Score, evaluate, write ``predictions.jsonl``, ``report.json``, ``report.md``, plots."""
    dataset = get_dataset(cfg.dataset, **cfg.dataset_options())
    every_item = dataset.load(cfg.data)
    items = stratified(every_item, cfg.limit, seed=cfg.seed, strata=getattr(dataset, "strata", ()))
    if not items:
        raise ValueError(f"no items found in {cfg.data}")
    given = _given_scores(cfg, dataset, every_item)
    if cfg.scores_only:
        return _scores_only(cfg, dataset, items, given, len(every_item))
    source = _check_config(cfg, dataset)
    skipped = unreadable(items, progress=cfg.progress)
    if len(skipped) == len(items):
        first = "; ".join(list(skipped.values())[:3])
        raise ValueError(f"no item of {cfg.data} has a readable image ({first})")
    if cfg.dry_run:
        return _dry_run(cfg, dataset, items)
    cfg.out.mkdir(parents=True, exist_ok=True)
    overrides = {k: v for k, v in {"model": cfg.model, **cfg.overrides}.items() if v is not None}
    if dataset.skills and "skills" not in overrides:
        overrides["skills"] = dataset.skills
    if (
        cfg.ablation in ("retrieval", "k")
        and not cfg.url
        and JudgeSettings().merged(**overrides).resolved_backend() == "local"
    ):
        raise ValueError(
            f"--ablation {cfg.ablation} varies the exemplars shown to a judge model; the local "
            "backend (no model configured) does not use them, so every variant would score "
            "alike: give --model (or JUDGE_MODEL)"
        )
    memories: dict[str, str] = {}
    left_out: list[str] = []
    if source is not None:
        memories = build_memories(dataset, source, cfg.out / "memory", left_out=left_out)
        overrides["memory_dir"] = str(cfg.out / "memory")
        overrides.update(label_cards(dataset, cfg, overrides))
    elif cfg.memory_dir is not None:
        overrides["memory_dir"] = str(cfg.memory_dir)  # the user's own, vouched-for store
    elif not cfg.url:
        # Never fall back to the default store: it may hold memories built from this very
        # split (the shipped avt-image is the AVT dev split). No source means zero-shot.
        (cfg.out / "no-memory").mkdir(exist_ok=True)
        overrides["memory_dir"] = str(cfg.out / "no-memory")
    predictions = _score_readable(cfg, dataset, items, skipped, overrides)
    report: dict[str, Any] = {
        "dataset": cfg.dataset,
        "data": str(cfg.data),
        "out": str(cfg.out),
        "config": {
            "memory_from": str(source) if source else None,
            "memory_dir": str(cfg.memory_dir) if cfg.memory_dir is not None else None,
            "cv": cfg.cv,
            "url": cfg.url,
            "trust": str(cfg.trust) if cfg.trust is not None else None,
            "memories": memories,
            "scores": [str(p) for p in cfg.scores],
            "settings": {k: v for k, v in overrides.items() if k != "api_key"},
            "judged_by": (
                at_service(cfg.url) if cfg.url else judged_by(JudgeSettings().merged(**overrides))
            ),
        },
        **evaluate(dataset, items, predictions, n_boot=cfg.n_boot, seed=cfg.seed),
        "n_set_items": len(every_item),
        "skipped": sorted(skipped.values()),
        "own_group_exemplars": own_group_exemplars(
            items, predictions, split_exemplar_groups(dataset, cfg.data)
        ),
        "memory_left_out": left_out,
    }
    extra = getattr(dataset, "extra_report", None)
    if extra is not None:  # pairwise agreement for votes, success agreement for edits
        report.update(extra(cfg.data, items, predictions, cfg.n_boot, cfg.seed))
    if hasattr(dataset, "baselines"):  # a public set: its paper's figures and baselines
        report["public_set"] = public_set_section(
            dataset, items, predictions, n_boot=cfg.n_boot, seed=cfg.seed, data=cfg.data
        )
    comparison = compare_metrics(
        dataset,
        items,
        predictions,
        given=given,
        data=cfg.data,
        n_boot=cfg.n_boot,
        n_perm=cfg.n_perm,
        seed=cfg.seed,
        correction=cfg.correction,
    )
    if comparison is not None:
        report["comparison"] = comparison
    baselines = iqa_baselines(cfg.data, items, n_boot=cfg.n_boot, seed=cfg.seed)
    if baselines:
        report["baselines"] = {
            "iqa": baselines,
            "best_iqa": best_baseline(baselines),
            "margin": margin_vs_best(
                cfg.data, items, {p["id"]: p for p in predictions}, n_boot=cfg.n_boot, seed=cfg.seed
            ),
        }
    reference = json.loads(REFERENCE.read_text())
    if cfg.dataset in reference["applies_to"]:
        report["reference"] = reference
    if cfg.fit_calibration:
        pairs = pairs_by_target(dataset, items, {p["id"]: p for p in predictions})
        clean = {
            t: (
                [a for a, b in zip(p, h, strict=True) if a is not None],
                [b for a, b in zip(p, h, strict=True) if a is not None],
            )
            for t, (p, h) in pairs.items()
        }
        cal = fit_calibration(
            clean, cfg.fit_calibration, dimension_of={t.name: t.dimension for t in dataset.targets}
        )
        save_calibration(cal, cfg.out / "calibration.json")
        report["calibration"] = {
            "fitted": str(cfg.out / "calibration.json"),
            "method": cfg.fit_calibration,
            "maps": cal["maps"],
        }
    if cfg.ablation:
        readable = [i for i in items if i.id not in skipped]
        report["ablation"] = _ablation(cfg, dataset, readable, overrides, source)
    if cfg.provider_batch:  # requests, batches, tokens, cost at batch and at list prices
        report["provider_batch"] = batch_summary(cfg.out, cfg.batch_fallback)
    write_report(report, items, predictions, dataset, cfg.out)
    return report


def _given_scores(
    cfg: MetaEvalConfig, dataset: Dataset, every_item: list[EvalItem]
) -> dict[str, dict[str, float]]:
    """The ``--scores`` files, checked against every item id of the set (not only a
    ``--limit`` subset) before anything is scored."""
    if not cfg.scores and not cfg.scores_only:
        return {}
    if not comparable_targets(dataset):
        raise ValueError(
            f"--scores and --scores-only compare per-item scores with per-item ratings; "
            f"{cfg.dataset!r} has none (its labels are preferences or edits)"
        )
    shipped = dataset.published_scores(cfg.data) if hasattr(dataset, "published_scores") else {}
    return read_scores(cfg.scores, {i.id for i in every_item}, taken=shipped)


def _scores_only(
    cfg: MetaEvalConfig,
    dataset: Dataset,
    items: list[EvalItem],
    given: dict[str, dict[str, float]],
    n_set_items: int,
) -> dict[str, Any]:
    """``--scores-only``: the given and published metrics compared with the humans, no judge
    call and no image opened."""
    comparison = compare_metrics(
        dataset, items, [], given=given, data=cfg.data, n_boot=cfg.n_boot,
        n_perm=cfg.n_perm, seed=cfg.seed, correction=cfg.correction,
    )  # fmt: skip
    if comparison is None:
        raise ValueError(
            "--scores-only: nothing to compare: the set ships no per-item metric scores and "
            "no --scores file was given (or the items have neither two metrics nor generators)"
        )
    cfg.out.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {
        "dataset": cfg.dataset,
        "data": str(cfg.data),
        "out": str(cfg.out),
        "scores_only": True,
        "n_items": len(items),
        "n_set_items": n_set_items,
        "scores_files": [str(p) for p in cfg.scores],
        "targets": {},
        "comparison": comparison,
    }
    if hasattr(dataset, "baselines"):
        report["public_set"] = public_set_section(
            dataset, items, [], n_boot=0, seed=cfg.seed, data=cfg.data
        )
    write_report(report, items, [], dataset, cfg.out)
    return report


def _dry_run(cfg: MetaEvalConfig, dataset: Dataset, items: list[EvalItem]) -> dict[str, Any]:
    """The calls and cost a run would make, nothing scored (``--dry-run``)."""
    overrides = {k: v for k, v in {"model": cfg.model, **cfg.overrides}.items() if v is not None}
    if dataset.skills and "skills" not in overrides:
        overrides["skills"] = dataset.skills
    done = {
        k for k, v in read_predictions(cfg.out / "predictions.jsonl").items() if "error" not in v
    }
    plan = estimate(items, JudgeSettings().merged(**overrides), done)
    return {"dataset": cfg.dataset, "data": str(cfg.data), "out": str(cfg.out), "dry_run": plan}


def _ablation(
    cfg: MetaEvalConfig,
    dataset: Dataset,
    items: list[EvalItem],
    overrides: dict[str, Any],
    source: Path | None,
) -> dict[str, Any]:
    rows = {}
    for v in variants(cfg.ablation or "", cfg.encoders):
        out = cfg.out / "ablations" / v.name.replace("=", "-").replace(":", "_").replace("/", "_")
        out.mkdir(parents=True, exist_ok=True)
        ov = {**overrides, **v.overrides}
        if v.encoder:
            if source is None:
                raise ValueError("--ablation encoder needs --memory-from or --cv lopo")
            build_memories(dataset, source, out / "memory", encoder=v.encoder)
            ov["memory_dir"] = str(out / "memory")
        preds = _score(cfg, dataset, items, out, ov)
        rep = evaluate(dataset, items, preds, n_boot=0, seed=cfg.seed)
        rows[v.name] = summary_row(rep) | {"variant": _describe(v)}
    return {"kind": cfg.ablation, "rows": rows}


def _describe(v: Variant) -> str:
    return v.encoder or ", ".join(f"{k}={val}" for k, val in v.overrides.items())
