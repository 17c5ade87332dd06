"""``judge.meta_eval(...)``: how well does the judge agree with your labels, in Python.

The same run as ``judge meta-eval`` (it writes ``predictions.jsonl``, ``report.json``,
``report.md`` and plots to ``out``) and returns the report as a dict.

Example::

    report = meta_eval("labels.csv", columns={"image": "file", "target.quality": "mos"},
                       cv="lopo", out="runs/mine")
    report["targets"]["quality"]["spearman"]
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from eval.metaeval.meta_eval import MetaEvalConfig, run_meta_eval
from memory.paths import user_data_dir


def default_out(dataset: str) -> Path:
    """Where a run goes when no folder is given: ``runs/<dataset>-<time>`` in the user data."""
    return user_data_dir("runs") / f"{dataset}-{time.strftime('%Y%m%d-%H%M%S')}"


def columns_spec(columns: str | dict[str, str] | None) -> str:
    """``{"image": "file", "target.q": "mos"}`` as the CLI's ``image=file,target.q=mos``."""
    if columns is None or isinstance(columns, str):
        return columns or ""
    return ",".join(f"{k}={v}" for k, v in columns.items())


def meta_eval(
    data: str | Path,
    *,
    dataset: str = "csv",
    columns: str | dict[str, str] | None = None,
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
    **settings: Any,
) -> dict[str, Any]:
    """Score a labelled dataset and compare the judge with the labels.

    Args:
        data: the split (a folder, or for ``csv`` the CSV file itself).
        dataset: ``csv`` (any CSV, mapped by ``columns``), ``avt``, ``expert-jsonl``,
            ``votes`` or ``edit-ratings``.
        columns: for ``csv``: ``image``, ``prompt``, ``id``, ``group``, ``target.NAME``,
            ``slice.NAME`` → column names.
        cv: ``"lopo"`` calibrates on the split itself, leaving each item's group out.
        memory_from: another labelled split to calibrate on.
        **settings: judge settings (``api_base``, ``api_key``, ``retrieval``, ...).

    Returns:
        The report: ``targets.<name>.{spearman, kendall, mae, n, ci95, coverage}``, ``out``
        and, for targets that could not be scored, ``unscored.<name>`` with the reasons.
    """
    options = (
        {"columns": columns_spec(columns), "skills": ",".join(skills or [])}
        if dataset == "csv" else {}
    )
    overrides = {k: v for k, v in {**settings, "skills": skills}.items() if v is not None}
    cfg = MetaEvalConfig(
        dataset=dataset,
        data=Path(data),
        out=Path(out) if out is not None else default_out(dataset),
        memory_from=Path(memory_from) if memory_from is not None else None,
        memory_dir=Path(memory_dir) if memory_dir is not None else None,
        cv=cv,
        model=model,
        url=url,
        dataset_options=options,
        overrides=overrides,
        concurrency=concurrency,
        limit=limit,
        n_boot=n_boot,
        seed=seed,
        progress=progress,
    )
    return run_meta_eval(cfg)
