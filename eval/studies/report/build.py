"""Assemble ``report.json`` from a study folder and write the report's files.

Example:
    >>> import tempfile, pathlib, json
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> line = {"task_id": "t1", "category": "OE", "prompter": "p", "backend": "b",
    ...         "status": "scored", "summary": {"subjective_prompt": 4, "subjective_image": 3,
    ...         "objective_prompt_rate": 50, "objective_image_rate": 100, "checks": []}}
    >>> _ = (d / "results.jsonl").write_text(json.dumps(line) + "\\n")
    >>> report = write_report(d, n_boot=20, plots=False)
    >>> report["cells"][0]["subjective_prompt"]["mean"], sorted(p.name for p in d.iterdir())
    (4.0, ['report.json', 'report.md', 'results.jsonl'])
"""

from __future__ import annotations

import json
from pathlib import Path

from eval.studies.report.cells import build_cells, categories_of, excluded, per_primitive
from eval.studies.report.consistency import ranking_consistency
from eval.studies.report.groups import compare_groups
from eval.studies.report.leaderboard import prompter_leaderboards
from eval.studies.report.load import MEASURES, ReportError, Study, load_study
from eval.studies.report.options import DEFAULT_BOOT, DEFAULT_PERM


def build_report(
    study: Study,
    *,
    n_boot: int = DEFAULT_BOOT,
    n_perm: int = DEFAULT_PERM,
    seed: int | None = 0,
) -> dict:
    """The report of a loaded study (the ``report.json`` object)."""
    items = study.items
    prompters = list(study.prompters)
    cells = build_cells(
        items, n_boot=n_boot, seed=seed, prompters=prompters, backends=study.backends
    )
    notes = list(study.notes)
    if not items:
        notes.append("results.jsonl holds no items; nothing to aggregate")
    return {
        "study": {
            "name": study.name,
            "n_lines": study.n_lines,
            "n_items": len(items),
            "prompters": [{"id": p, **study.prompters[p]} for p in prompters],
            "backends": study.backends,
            "categories": categories_of(items) if items else [],
            "tasks": len({it.task_id for it in items}),
            "measures": list(MEASURES),
        },
        "judge": study.judge,
        "options": {"bootstrap": n_boot, "permutations": n_perm, "seed": seed},
        "notes": notes,
        "cells": cells,
        "per_primitive": per_primitive(items),
        "consistency": ranking_consistency(cells),
        "groups": compare_groups(
            items, study.prompters, n_perm=n_perm, seed=seed, backends=study.backends
        ),
        "leaderboard": prompter_leaderboards(items, n_boot=n_boot, seed=seed),
        "excluded": excluded(items),
    }


def write_report(
    folder: str | Path,
    *,
    n_boot: int = DEFAULT_BOOT,
    n_perm: int = DEFAULT_PERM,
    seed: int | None = 0,
    plots: bool = True,
    human_ratings: str | Path | None = None,
    trust_policy: str | Path | None = None,
) -> dict:
    """Read ``folder``, write ``report.json``, ``report.md`` and (unless off) ``plots/``;
    with ``human_ratings`` (a rating campaign's export) also ``hybrid_ratings``
    (:mod:`eval.studies.report.human`) and, when the judge gave confidences, ``trust``
    (:mod:`eval.studies.report.trust`, with ``trust_policy`` its operating point)."""
    from eval.studies.report.markdown import render_markdown

    folder = Path(folder)
    study = load_study(folder)
    if not study.items:
        raise ReportError(
            f"{folder / 'results.jsonl'}: holds no items; run `judge study run` into this "
            "folder first (or wait until it has written results)"
        )
    report = build_report(study, n_boot=n_boot, n_perm=n_perm, seed=seed)
    if human_ratings is not None:
        from eval.studies.report.human import hybrid_study_ratings

        report["hybrid_ratings"] = hybrid_study_ratings(study.items, Path(human_ratings))
        from eval.studies.report.trust import study_trust

        policy = Path(trust_policy) if trust_policy else None
        section = study_trust(folder, Path(human_ratings), policy)
        if section:
            report["trust"] = section
    if plots:
        from eval.studies.report.plots import write_plots

        made = write_plots(report, folder / "plots")
        if report.get("trust"):
            from eval.trust.report import trust_plot

            plot = trust_plot(report["trust"], folder / "plots" / "trust.png")
            made += [plot] if plot is not None else []
        report["plots"] = [str(p.relative_to(folder)) for p in made]
    (folder / "report.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    (folder / "report.md").write_text(render_markdown(report), encoding="utf-8")
    return report
