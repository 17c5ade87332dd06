"""``judge.meta_eval(...)``: how well does the judge agree with your labels, in Python.

The same run as ``judge meta-eval`` (it writes ``predictions.jsonl``, ``report.json``,
``report.md`` and plots to ``out``) and returns the report as a dict. It is also the one way
in: the command line parses its flags and calls :func:`meta_eval` with the values; the
arguments go straight into one :class:`~eval.metaeval.config.MetaEvalConfig`, checked once.

Example::

    report = meta_eval("labels.csv", columns={"image": "file", "target.quality": "mos"},
                       cv="lopo", out="runs/mine")
    report["targets"]["quality"]["spearman"]
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from eval.datasets.csv_table import column_pairs
from eval.metaeval.config import MetaEvalConfig
from eval.metaeval.meta_eval import run_meta_eval
from memory.paths import user_data_dir


def default_out(dataset: str) -> Path:
    """Where a run goes when no folder is given: ``runs/<dataset>-<time>`` in the user data."""
    return user_data_dir("runs") / f"{dataset}-{time.strftime('%Y%m%d-%H%M%S')}"


def meta_eval(
    data: str | Path,
    *,
    dataset: str = "csv",
    columns: Mapping[str, str] | str | None = None,
    out: str | Path | None = None,
    cv: str | None = None,
    memory_from: str | Path | None = None,
    memory_dir: str | Path | None = None,
    model: str | None = None,
    url: str | None = None,
    skills: list[str] | None = None,
    limit: int | None = None,
    concurrency: int = 4,
    n_boot: int = 1000,
    seed: int = 0,
    progress: bool = False,
    ablation: str | None = None,
    encoders: list[str] | None = None,
    fit_calibration: str | None = None,
    provider_batch: bool = False,
    batch_poll_s: float = 30.0,
    batch_wait: bool = False,
    batch_fallback: str = "batch",
    dry_run: bool = False,
    trust: str | Path | None = None,
    scores: list[str | Path] | str | Path | None = None,
    scores_only: bool = False,
    n_perm: int = 1000,
    correction: str = "bh",
    **settings: Any,
) -> dict[str, Any]:
    """Score a labelled dataset and compare the judge with the labels.

    Args:
        data: the split (a folder, or for ``csv`` the CSV file itself; for a public set its
            folder as downloaded).
        dataset: ``csv`` (any CSV, mapped by ``columns``), ``avt``, ``expert-jsonl``,
            ``votes``, ``edit-ratings``, or a public human-judgment set: ``genai-bench``,
            ``hpdv2``, ``tifa``, ``agiqa-3k``, ``evalmuse`` (docs/public-sets.md).
        columns: for ``csv``: ``image``, ``prompt``, ``id``, ``group``, ``target.NAME``,
            ``slice.NAME`` → column names (a mapping; the ``key=COLUMN,...`` text of
            ``--columns`` is read too).
        cv: ``"lopo"`` calibrates on the split itself, leaving each item's group out.
        memory_from: another labelled split to calibrate on.
        skills: the subjective cards to run (default: the dataset's).
        limit, seed: score ``limit`` items only; a public set's subset is stratified (by
            model and tag) and drawn with ``seed``.
        dry_run: count the judge calls and estimate their cost; score nothing (the
            report is ``{"dry_run": {...}}``).
        scores: files of per-item scores of metrics you bring (CSV or JSONL: ``id``,
            ``metric``, ``score``, or an ``id`` and one column per metric), compared with the
            judge and the set's published metrics on the same items (docs/compare-metrics.md).
        scores_only: compare the given and published metrics without any judge call.
        n_perm: permutation resamples of the significance tests between metrics.
        correction: the multiple-comparison correction over the pairs of metrics: ``bh``
            (Benjamini–Hochberg, the default), ``holm`` or ``none``.
        ablation, encoders, fit_calibration, provider_batch, batch_poll_s, batch_wait,
            batch_fallback: as ``--ablation``, ``--encoders``, ``--fit-calibration``,
            ``--provider-batch``, ``--batch-poll-s``, ``--wait``,
            ``--provider-batch-fallback`` (docs/meta-eval.md).
        trust: a trust policy file (``judge trust calibrate``): each item is judged under it
            (``trusted`` on every answer) and the report adds the policy's operating point.
        **settings: judge settings (``api_base``, ``api_key``, ``retrieval``, ...).

    Raises:
        ValueError: options that cannot go together, or a column mapping without
            ``image`` or a target (the message says what to change).

    Returns:
        The report: ``targets.<name>.{spearman, kendall, mae, n, ci95, coverage}``, ``out``
        and, for targets that could not be scored, ``unscored.<name>`` with the reasons; a
        public set adds ``public_set`` (its paper's figures per slice and the quoted
        baselines); with more than one metric or with generators, ``comparison`` holds the
        item- and system-level agreement of every metric and the significance tests.

    Example::

        report = meta_eval(dataset="genai-bench", data="GenAI-Image-527", model="openai/gpt-4o",
                           limit=120, seed=1, out="runs/genai")
        report["public_set"]["figures"]["alignment"]["pairwise_accuracy"]
    """
    if isinstance(columns, str):
        columns = column_pairs(columns)
    cfg = MetaEvalConfig(
        dataset=dataset,
        data=Path(data),
        out=Path(out) if out is not None else default_out(dataset),
        memory_from=Path(memory_from) if memory_from is not None else None,
        memory_dir=Path(memory_dir) if memory_dir is not None else None,
        cv=cv,
        model=model,
        url=url,
        ablation=ablation,
        encoders=list(encoders or []),
        fit_calibration=fit_calibration,
        columns=dict(columns) if columns else None,
        overrides={k: v for k, v in {**settings, "skills": skills}.items() if v is not None},
        concurrency=concurrency,
        limit=limit,
        n_boot=n_boot,
        seed=seed,
        progress=progress,
        provider_batch=provider_batch,
        batch_poll_s=batch_poll_s,
        batch_wait=batch_wait,
        batch_fallback=batch_fallback,
        dry_run=dry_run,
        trust=Path(trust) if trust is not None else None,
        scores=[Path(s) for s in ([scores] if isinstance(scores, (str, Path)) else scores or [])],
        scores_only=scores_only,
        n_perm=n_perm,
        correction=correction,
    )
    return run_meta_eval(cfg)
