"""``judge score SUBMISSION.json``: print the Result JSON on stdout.

Relative image paths resolve against the submission file's folder. Flags beat the
``JUDGE_*`` environment. Exit codes: 0 for a scored, partial or blocked result; 2 for
invalid input or options; 3 when no judge model is configured; 4 when nothing could be
scored (every model call failed: the Result is still printed, the cause goes to stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from judge.cli.judging import (
    ERRORS,
    add_confidence_and_trust_flags,
    add_model_flags,
    exit_code,
    judge_for,
)

if TYPE_CHECKING:
    from judge.domain.result import Result

EXIT_UNSCORED = 4


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``score`` verb."""
    p = sub.add_parser("score", help="score one submission file and print the Result JSON")
    p.add_argument(
        "submission",
        type=Path,
        help="submission JSON file (docs/design.md#submission-and-result-mode-score)",
    )
    p.add_argument(
        "--backend",
        choices=["auto", "llm", "local"],
        help="llm: a judge model; local: packaged local models and memories, no "
        "key, no network; auto (default): llm when a model is set, else local",
    )
    add_model_flags(
        p, "comma-separated judge models; scores averaged, verdicts by majority (env JUDGE_PANEL)"
    )
    p.add_argument(
        "--batching",
        choices=["per_checkpoint", "per_modality"],
        help="one call per checkpoint (default) or one per modality",
    )
    p.add_argument(
        "--subjective-batching",
        choices=["per_dimension", "per_modality"],
        help="one call per subjective dimension (default) or one per modality",
    )
    p.add_argument(
        "--selection-rule",
        choices=["objective_then_subjective", "subjective_then_objective", "first"],
        help="best-of-n rule when several images are submitted",
    )
    p.add_argument(
        "--sequential-safety",
        action="store_true",
        help="run the safety gate before scoring instead of alongside it",
    )
    p.add_argument(
        "--skills",
        help="subjective cards to run instead of the enabled ones: card names and groups, "
        "comma-separated (@default: the enabled cards, @avt: the AVT scales; e.g. "
        "@default,@avt or avt_appeal,avt_realism); see `judge skills`",
    )
    p.add_argument(
        "--retrieval",
        choices=["similarity", "random", "fixed", "none"],
        help="how calibration exemplars are chosen (default similarity)",
    )
    p.add_argument("--k", type=int, dest="retrieval_k", help="exemplars per skill (default 3)")
    p.add_argument("--memory-dir", help="exemplar store (env JUDGE_MEMORY_DIR)")
    p.add_argument(
        "--memory",
        action="append",
        metavar="CARD=MEMORY",
        help="read MEMORY instead of a card's own (a card or dimension name; repeatable; "
        "env JUDGE_MEMORIES as JSON)",
    )
    p.add_argument(
        "--calibration",
        help="calibration JSON from `judge meta-eval --fit-calibration` (env JUDGE_CALIBRATION)",
    )
    add_confidence_and_trust_flags(p)
    p.add_argument("--no-cache", action="store_true", help="do not reuse cached answers")
    p.add_argument("--timeout", type=float, help="per-call timeout in seconds")
    p.add_argument("--compact", action="store_true", help="one-line JSON")
    p.add_argument(
        "--format",
        choices=["json", "text", "both"],
        default="json",
        help="json (default): the Result JSON on stdout; text: a short summary of what was "
        "decided and why, with coverage, instead; both: the JSON on stdout and the summary "
        "on stderr",
    )
    p.set_defaults(handler=run)


def memory_pairs(pairs: list[str]) -> dict[str, str]:
    """``--memory CARD=MEMORY`` flags as a mapping.

    Example:
        >>> memory_pairs(["avt_appeal=my-appeal"])
        {'avt_appeal': 'my-appeal'}
    """
    out = {}
    for pair in pairs:
        card, sep, memory = pair.partition("=")
        if not sep or not card.strip() or not memory.strip():
            raise ValueError(f"--memory: expected CARD=MEMORY, got {pair!r}")
        out[card.strip()] = memory.strip()
    return out


def overrides(args: argparse.Namespace) -> dict:
    """This verb's own flags that were given, as settings overrides (the flags every judging
    verb takes are added by :func:`judge.cli.judging.judge_for`)."""
    out = {
        "checkpoint_batching": args.batching,
        "subjective_batching": args.subjective_batching,
        "selection_rule": args.selection_rule,
        "skills": args.skills,
        "retrieval": args.retrieval,
        "retrieval_k": args.retrieval_k,
        "memory_dir": args.memory_dir,
        "calibration": args.calibration,
    }
    if args.memory:
        out["memories"] = memory_pairs(args.memory)
    return {k: v for k, v in out.items() if v is not None}


def run(args: argparse.Namespace) -> int:
    """Score the file; errors go to stderr with a hint and a non-zero exit code."""
    from judge.config import JudgeSettings
    from judge.domain.result import Result
    from judge.validation import load_request_file

    path: Path = args.submission
    # outside the try: a bad environment variable reaches judge.cli.main, which names it
    settings = JudgeSettings()
    try:
        submission = load_request_file(path)  # a "mode" field picks edit, compare, ...
        # settings go in as settings: ``cache`` is also the name of Judge's cache argument
        judge = judge_for(settings, args, overrides(args))
        result = judge.score(submission, base_dir=path.resolve().parent)
    except ERRORS as exc:
        return exit_code(exc)
    if not isinstance(result, Result):  # another mode's result (edit, compare): JSON only
        data = result.model_dump(mode="json", exclude_none=True)
        print(json.dumps(data, ensure_ascii=False, indent=None if args.compact else 2))
        if args.format != "json":
            print("judge: the text summary covers score results; printed JSON", file=sys.stderr)
        return 0
    _print_result(result, args.format, args.compact)
    if nothing_scored(result):
        print(f"judge: nothing could be scored: {first_reason(result)}", file=sys.stderr)
        return EXIT_UNSCORED
    return 0


def _print_result(result: Result, fmt: str, compact: bool) -> None:
    """``--format``: JSON on stdout, the text summary on stdout (text) or stderr (both)."""
    from judge.cli.summary import summary

    if fmt in ("json", "both"):
        data = result.model_dump(mode="json", exclude_none=True)
        print(json.dumps(data, ensure_ascii=False, indent=None if compact else 2), flush=True)
    if fmt == "text":
        print(summary(result), end="")
    elif fmt == "both":
        print("\n" + summary(result), end="", file=sys.stderr)


def _values(result: Result) -> list[tuple[object, str | None]]:
    """Every (score or verdict, reason) of the Result, both modalities, every image."""
    out: list[tuple[object, str | None]] = []
    sides = [(result.subjective, result.objective)]
    sides += [({"image": im.subjective}, {"image": im.objective}) for im in result.images]
    for subjective, objective in sides:
        out += [(d.score, d.reason) for dims in subjective.values() for d in dims.values()]
        out += [(i.verdict, i.reason) for side in objective.values() for i in side.items]
    return out


def nothing_scored(result: Result) -> bool:
    """A partial result in which not one score or verdict came back."""
    values = _values(result)
    return result.status == "partial" and bool(values) and all(v is None for v, _ in values)


def first_reason(result: Result) -> str:
    """The first failure reason of a Result (the safety gate's if nothing else)."""
    reasons = [r for v, r in _values(result) if v is None and r]
    for reason in sorted(reasons, key=lambda r: "failed" not in r):  # failures first
        return reason
    verdicts = [result.safety.prompt, *result.safety.images]
    return next((v.reason for v in verdicts if v and v.reason), result.reason or "unknown")
