"""One meta-evaluation run's settings, built from typed values and checked once.

``judge meta-eval`` parses its flags into these values at the command line's edge
(:mod:`eval.metaeval.cli`); ``judge.meta_eval(...)`` passes its arguments straight in
(:mod:`eval.metaeval.python_api`). Building a :class:`MetaEvalConfig` checks every combination of
options that cannot work and raises ``ValueError`` saying what to change (docs/meta-eval.md);
checks that need the dataset's files (the scored split used as its own memory, an ablation
without exemplars) run in :func:`eval.metaeval.meta_eval.run_meta_eval` before any scoring.

Example:
    >>> from pathlib import Path
    >>> cfg = MetaEvalConfig(dataset="csv", data=Path("labels.csv"), out=Path("runs/mine"),
    ...                      columns={"image": "file", "target.quality": "mos"}, cv="lopo")
    >>> cfg.dataset_options()
    {'columns': {'image': 'file', 'target.quality': 'mos'}}
    >>> MetaEvalConfig(dataset="avt", data=Path("d"), out=Path("o"), cv="kfold")
    Traceback (most recent call last):
    ...
    ValueError: unknown --cv 'kfold'; use lopo
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval.metaeval.ablations import variants


@dataclass
class MetaEvalConfig:
    """Everything one run needs. ``columns`` maps ``image``, ``prompt``, ``id``, ``group``,
    ``target.NAME`` and ``slice.NAME`` to the columns of a ``csv`` dataset; ``overrides``
    are judge settings (``skills`` as a list, ``api_base``, ``retrieval``, ...)."""

    dataset: str
    data: Path
    out: Path
    memory_from: Path | None = None
    memory_dir: Path | None = None
    cv: str | None = None
    model: str | None = None
    url: str | None = None
    ablation: str | None = None
    encoders: list[str] = field(default_factory=list)
    fit_calibration: str | None = None
    columns: dict[str, str] | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    concurrency: int = 4
    limit: int | None = None
    n_boot: int = 1000
    seed: int = 0
    progress: bool = True
    provider_batch: bool = False
    batch_poll_s: float = 30.0
    batch_wait: bool = False
    batch_fallback: str = "batch"
    dry_run: bool = False
    trust: Path | None = None
    scores: list[Path] = field(default_factory=list)
    scores_only: bool = False
    n_perm: int = 1000
    correction: str = "bh"

    def __post_init__(self) -> None:
        check(self)

    def dataset_options(self) -> dict[str, Any]:
        """What the dataset adapter is built with (the column mapping, for ``csv``)."""
        return {"columns": self.columns} if self.dataset == "csv" else {}


def check(cfg: MetaEvalConfig) -> None:
    """Raise ``ValueError`` for options that cannot go together (the message says which to
    drop or add)."""
    if cfg.memory_dir is not None and (cfg.memory_from or cfg.cv):
        raise ValueError(
            "--memory-dir scores with an existing store; --memory-from and --cv build one "
            "from labels instead: give only one of them"
        )
    if cfg.memory_dir is not None and not cfg.memory_dir.is_dir():
        raise ValueError(f"--memory-dir {cfg.memory_dir} is not a folder")
    if (cfg.batch_wait or cfg.batch_fallback != "batch") and not cfg.provider_batch:
        raise ValueError(
            "--wait and --provider-batch-fallback apply to --provider-batch; add it or drop them"
        )
    if cfg.cv not in (None, "lopo"):
        raise ValueError(f"unknown --cv {cfg.cv!r}; use lopo")
    if cfg.provider_batch and cfg.url:
        raise ValueError(
            "--provider-batch batches this process's own judge calls; with --url the service "
            "makes them: drop one of the two"
        )
    if cfg.batch_fallback not in ("batch", "direct"):
        raise ValueError(
            f"unknown --provider-batch-fallback {cfg.batch_fallback!r}; use batch or direct"
        )
    if cfg.limit is not None and cfg.limit <= 0:
        raise ValueError(f"--limit must be a positive number of items, got {cfg.limit}")
    if cfg.trust is not None and (cfg.url or cfg.provider_batch or cfg.ablation):
        raise ValueError(
            "--trust judges with this process's judge under a policy file; drop --url (ask the "
            "service for one of its policies, options.trust), --provider-batch and --ablation"
        )
    if cfg.dry_run and (cfg.url or cfg.provider_batch or cfg.ablation):
        raise ValueError(
            "--dry-run estimates one in-process run; drop --url, --provider-batch and --ablation"
        )
    if cfg.batch_poll_s <= 0:
        raise ValueError(f"--batch-poll-s must be positive, got {cfg.batch_poll_s}")
    if cfg.url and (cfg.memory_from or cfg.ablation == "encoder"):
        raise ValueError(
            "--memory-from and --ablation encoder build local memories; with --url the "
            "service scores with its own memories (--cv lopo asks it to leave each item's "
            "group out)"
        )
    _check_comparison(cfg)
    if cfg.ablation:
        variants(cfg.ablation, cfg.encoders)  # raises on an unknown kind or missing encoders
    if cfg.ablation == "encoder" and memory_source(cfg) is None:
        raise ValueError("--ablation encoder needs --memory-from or --cv lopo")


MAX_PERMUTATIONS = 100_000


def _check_comparison(cfg: MetaEvalConfig) -> None:
    """``--scores``, ``--scores-only`` and ``--n-perm``: a comparison without a judge takes
    no judge option."""
    if not 1 <= cfg.n_perm <= MAX_PERMUTATIONS:
        raise ValueError(f"--n-perm must be 1 to {MAX_PERMUTATIONS:,}, got {cfg.n_perm}")
    if cfg.correction not in ("bh", "holm", "none"):
        raise ValueError(f"unknown --correction {cfg.correction!r}; use bh, holm or none")
    if not cfg.scores_only:
        return
    judge_options = {
        "--model": cfg.model,
        "--url": cfg.url,
        "--provider-batch": cfg.provider_batch,
        "--ablation": cfg.ablation,
        "--memory-from": cfg.memory_from,
        "--memory-dir": cfg.memory_dir,
        "--cv": cfg.cv,
        "--fit-calibration": cfg.fit_calibration,
        "--dry-run": cfg.dry_run,
    }
    given = [flag for flag, value in judge_options.items() if value]
    if given:
        raise ValueError(
            f"--scores-only compares metrics without any judge call; drop {', '.join(given)} "
            "(or drop --scores-only to run the judge too)"
        )


def memory_source(cfg: MetaEvalConfig) -> Path | None:
    """The split the run's memories are built from (None: no memory is built; with
    ``--url`` the service's memories are used, and ``--cv lopo`` leaves each group out)."""
    if cfg.url:
        return None
    return (cfg.memory_from or cfg.data) if cfg.cv == "lopo" else cfg.memory_from
