"""``judge leaderboard``: rank models from votes (``rank``) and make votes files (``votes``).

Example:
    $ judge leaderboard rank votes.csv --method bt --bootstrap 1000 --plots plots/
    $ judge leaderboard rank comparisons.jsonl --criterion alignment --json > board.json
    $ judge leaderboard votes pseudo results.jsonl --metric subjective_image_mean --out votes.jsonl
    $ judge leaderboard votes convert comparisons.jsonl --out votes.csv
    $ judge leaderboard rank human.jsonl --judge-votes judge.jsonl --method bt --json
    $ judge leaderboard select judge.jsonl --budget 500 --out selection.jsonl
    $ judge leaderboard select judge.jsonl --budget 500 --round 2 --previous selection.jsonl \
          --human-votes human.jsonl --out round2.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def add_selection_flags(p: argparse.ArgumentParser, *, required: bool, note: str = "") -> None:
    """The flags of an uncertainty-driven selection (:func:`eval.leaderboards.selection.
    select_items`): ``--budget`` (required or not), ``--floor``, ``--pair-boost``. ``note``
    starts each help text, for a verb where they apply only with another flag.

    Example:
        >>> p = argparse.ArgumentParser()
        >>> add_selection_flags(p, required=True)
        >>> p.parse_args(["--budget", "50"])
        Namespace(budget=50, floor=None, pair_boost=2.0)
    """
    from eval.leaderboards.selection import PAIR_BOOST

    p.add_argument("--budget", type=int, required=required, help=f"{note}expected number of items")
    p.add_argument("--floor", type=float, help=f"{note}least probability of any item")
    p.add_argument(
        "--pair-boost",
        type=float,
        default=PAIR_BOOST,
        help=f"{note}extra weight (x 1 + B*r) for items whose model pair is still unresolved "
        "(r in [0, 1]); 0 weighs by the judge's uncertainty alone",
    )


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``leaderboard`` verb and its actions ``rank``, ``select`` and ``votes``."""
    group = sub.add_parser(
        "leaderboard",
        help="rank models from pairwise votes; pick items for humans; make votes files",
    )
    actions = group.add_subparsers(dest="leaderboard_command", required=True, metavar="ACTION")
    p = actions.add_parser("rank", help="rank models from pairwise votes (BT, Elo, win rate)")
    p.add_argument("votes", type=Path, nargs="+", help="votes CSV/JSONL or ComparisonResults")
    p.add_argument(
        "--method",
        default="bt",
        help="bt, elo, winrate, or a rating method a plugin registers (default: bt)",
    )
    p.add_argument("--criterion", help="only this criterion (default: one board per criterion)")
    p.add_argument("--bootstrap", type=int, default=1000, help="resamples of the prompts")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--prior",
        type=float,
        help="bt: pseudo-games per model against a virtual average opponent "
        "(default: 1, only when the plain fit has no finite solution)",
    )
    p.add_argument("--json", action="store_true", help="one JSON leaderboard per line")
    p.add_argument("--plots", type=Path, help="write score and win-rate PNGs to this folder")
    p.add_argument(
        "--judge-votes",
        type=Path,
        nargs="+",
        help="judge votes or ComparisonResults: VOTES are then the human votes and the board "
        "is the prediction-powered (PPI++) hybrid of both (bt or winrate)",
    )
    p.add_argument(
        "--selection",
        type=Path,
        help="with --judge-votes: the selection file of `judge leaderboard select` (each "
        "item's probability of going to humans), to weight the human votes by",
    )
    p.set_defaults(handler=run_leaderboard)

    s = actions.add_parser(
        "select", help="choose which judged items go to humans, by the judge's uncertainty"
    )
    s.add_argument("judge_votes", type=Path, nargs="+", help="judge votes or ComparisonResults")
    add_selection_flags(s, required=True)
    s.add_argument(
        "--round",
        type=int,
        default=1,
        help="2 or more: a later round, spent where the hybrid board's intervals still "
        "overlap (needs --previous and --human-votes)",
    )
    s.add_argument("--previous", type=Path, help="the selection file of the round before")
    s.add_argument("--human-votes", type=Path, nargs="+", help="the human votes collected so far")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--out", type=Path, required=True, help="selection file (.jsonl)")
    s.set_defaults(handler=run_select)

    v = actions.add_parser("votes", help="make votes files (pseudo-pairwise, conversions)")
    vsub = v.add_subparsers(dest="votes_command", required=True, metavar="ACTION")
    ps = vsub.add_parser("pseudo", help="pseudo-pairwise votes from pointwise Results")
    ps.add_argument("results", type=Path, help="JSONL of {prompt_id, model, judge, result}")
    ps.add_argument("--metric", required=True, help="e.g. subjective_image_mean, image:appeal")
    ps.add_argument("--criterion", help="criterion name of the votes (default: the metric)")
    ps.add_argument("--out", type=Path, required=True, help="votes file (.jsonl or .csv)")
    ps.set_defaults(handler=run_pseudo)
    cv = vsub.add_parser("convert", help="read votes or ComparisonResults, write votes")
    cv.add_argument("source", type=Path)
    cv.add_argument("--out", type=Path, required=True, help="votes file (.jsonl or .csv)")
    cv.set_defaults(handler=run_convert)


def _fail(verb: str, exc: Exception) -> int:
    print(f"judge {verb}: {exc}", file=sys.stderr)
    return 2


def _votes_of(paths: list[Path]) -> list[Any]:
    """Every vote of the files, in order."""
    from eval.leaderboards import read_votes

    return [v for path in paths for v in read_votes(path)]


def _print_board(board: dict[str, Any], as_json: bool, render: Callable[[dict], str]) -> None:
    """One board on stdout: a JSON line (its notes on stderr) or the rendered table."""
    if as_json:
        print(json.dumps(board))
        for note in board["notes"]:
            print(f"note: {note}", file=sys.stderr)
    else:
        print(render(board) + "\n")


def _rank(build: Callable[[], list[dict[str, Any]]], as_json: bool, render: Callable) -> int:
    """Build the boards and print each; votes or options that do not fit are a message on
    stderr and exit code 2."""
    from eval.leaderboards import VotesError

    try:
        boards = build()
    except (VotesError, ValueError) as exc:
        return _fail("leaderboard rank", exc)
    for board in boards:
        _print_board(board, as_json, render)
    return 0


def run_leaderboard(args: argparse.Namespace) -> int:
    """Print one leaderboard per criterion (table or JSON lines)."""
    from eval.leaderboards import build_leaderboards, render_table

    if args.judge_votes:
        return run_hybrid(args)
    if args.selection:
        return _fail("leaderboard rank", ValueError("--selection needs --judge-votes"))
    if args.bootstrap < 0:
        return _fail("leaderboard rank", ValueError("--bootstrap must be 0 or more"))

    def build() -> list[dict[str, Any]]:
        boards = build_leaderboards(
            _votes_of(args.votes),
            criterion=args.criterion,
            method=args.method,
            n_boot=args.bootstrap,
            seed=args.seed,
            prior=args.prior,
        )
        if args.plots:
            from eval.leaderboards.plots import write_plots

            for board in boards:
                board["plots"] = [str(p) for p in write_plots(board, args.plots)]
        return boards

    return _rank(build, args.json, render_table)


def run_hybrid(args: argparse.Namespace) -> int:
    """Print the hybrid (human + judge) board of each criterion both vote files have."""
    from eval.leaderboards.hybrid import render_hybrid_table
    from eval.leaderboards.python_api import hybrid_leaderboard

    return _rank(
        lambda: hybrid_leaderboard(
            _votes_of(args.votes),
            _votes_of(args.judge_votes),
            method=args.method,
            criterion=args.criterion,
            selection=args.selection,
            plots=args.plots,
        ),
        args.json,
        render_hybrid_table,
    )


def run_select(args: argparse.Namespace) -> int:
    """Write a selection file: which judged items go to humans, with their probabilities."""
    from eval.leaderboards import VotesError
    from eval.leaderboards.selection import select_items, write_selection

    if args.round < 1:
        return _fail("leaderboard select", ValueError("--round must be 1 or more"))
    if args.round > 1 and (args.previous is None or not args.human_votes):
        return _fail(
            "leaderboard select",
            ValueError(f"--round {args.round} needs --previous FILE and --human-votes VOTES"),
        )
    if args.round == 1 and (args.previous or args.human_votes):
        return _fail(
            "leaderboard select", ValueError("--previous and --human-votes need --round 2 or more")
        )
    try:
        judge = _votes_of(args.judge_votes)
        opts = {"budget": args.budget, "floor": args.floor, "seed": args.seed,
                "pair_boost": args.pair_boost}  # fmt: skip
        if args.round == 1:
            rows = select_items(judge, **opts)
        else:
            from eval.leaderboards.rounds import select_round
            from eval.leaderboards.selection import read_selection_rows

            human = _votes_of(args.human_votes)
            previous = read_selection_rows(args.previous)
            rows = select_round(judge, human, previous, round_no=args.round, **opts)
    except (VotesError, ValueError) as exc:
        return _fail("leaderboard select", exc)
    write_selection(rows, args.out)
    n = sum(r["selected"] for r in rows)
    if args.round == 1:
        print(f"{n} of {len(rows)} judged items selected for humans -> {args.out}")
    else:
        new = sum(r["new"] for r in rows)
        print(
            f"round {args.round}: {new} new items for humans ({n} of {len(rows)} judged items "
            f"selected in some round) -> {args.out}"
        )
    return 0


def run_pseudo(args: argparse.Namespace) -> int:
    """Write pseudo-pairwise votes derived from pointwise Results."""
    from eval.leaderboards import VotesError, write_votes
    from eval.leaderboards.pseudo import pseudo_votes, read_results

    try:
        rows = read_results(args.results)
        votes = pseudo_votes(rows, metric=args.metric, criterion=args.criterion)
    except (VotesError, ValueError) as exc:
        return _fail("leaderboard votes pseudo", exc)
    if not votes:
        return _fail(
            "votes pseudo",
            ValueError(
                f"no pair of models was scored on the same prompt with metric {args.metric!r}"
            ),
        )
    write_votes(votes, args.out)
    print(f"{len(votes)} votes from {len(rows)} results -> {args.out}")
    return 0


def run_convert(args: argparse.Namespace) -> int:
    """Rewrite a votes / ComparisonResults file as votes."""
    from eval.leaderboards import VotesError, read_votes, write_votes

    try:
        votes = read_votes(args.source)
    except VotesError as exc:
        return _fail("leaderboard votes convert", exc)
    write_votes(votes, args.out)
    print(f"{len(votes)} votes -> {args.out}")
    return 0
