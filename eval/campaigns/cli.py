"""``judge campaign``: run a human label campaign on the service from the command line.

Example:
    $ judge campaign create runs/pilot --url http://127.0.0.1:8080 --id pilot-pref \\
          --kind pairwise --criterion preference --votes-per-item 5
    $ judge campaign invite pilot-pref --url http://127.0.0.1:8080 --count 40 --out links.csv
    $ judge campaign status pilot-pref --url http://127.0.0.1:8080
    $ judge campaign close pilot-pref --url http://127.0.0.1:8080
    $ judge campaign revoke pilot-pref a02 --url http://127.0.0.1:8080
    $ judge campaign reservations pilot-pref --url http://127.0.0.1:8080 --release-expired
    $ judge campaign votes pilot-pref --url http://127.0.0.1:8080 --out runs/pilot-votes
    $ judge leaderboard rank runs/pilot-votes/votes.jsonl --method bt
    $ judge campaign report pilot-pref --url http://127.0.0.1:8080 --out runs/pilot-report
    $ judge campaign add-to-memory rate-1 --url http://127.0.0.1:8080 --memory my-raters \\
          --holdout 0.25 --split-out runs/rate-1-split.json

The admin key is read from the variable named by ``--admin-key-env`` (default
``JUDGE_ADMIN_KEY``). ``votes`` writes ``votes.jsonl`` (or ``ratings.jsonl`` and, for edits,
``edits.jsonl``) with the images under ``images/``: the folder is what ``meta-eval --dataset
votes`` (or ``edit-ratings``) reads.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from eval.campaigns import loop_cli
from eval.kit.admin import DEFAULT_KEY_ENV, AdminClient, admin_key, refusal
from eval.leaderboards.cli import add_selection_flags
from judge.transport import ServiceError
from memory.io.jsonl import parse_jsonl


def _common(p: argparse.ArgumentParser, campaign: bool = True) -> None:
    if campaign:
        p.add_argument("campaign", help="the campaign id")
    p.add_argument("--url", required=True, help="the service, e.g. http://127.0.0.1:8080")
    p.add_argument("--admin-key-env", help=f"variable holding an admin key ({DEFAULT_KEY_ENV})")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``campaign`` verb and its actions."""
    verb = sub.add_parser("campaign", help="collect human votes, ratings or rankings")
    actions = verb.add_subparsers(dest="campaign_command", required=True, metavar="ACTION")
    c = actions.add_parser("create", help="create a campaign from a study/probe run or images")
    c.add_argument("source", type=Path, help="study run, probe run, image folder or manifest")
    _common(c, campaign=False)
    c.add_argument("--id", required=True, help="the new campaign's id")
    c.add_argument("--kind", choices=("pairwise", "rating", "ranking"), default="pairwise")
    c.add_argument("--criterion", default="preference", help="a compare card or 1–5 dimension")
    c.add_argument("--votes-per-item", type=int)
    c.add_argument("--extra-votes", type=int, help="more votes where votes disagree most")
    c.add_argument("--pairs-per-model", type=int, help="balanced subset of pairs per prompt")
    c.add_argument("--compare", choices=("models", "prompters", "outputs"),
                   help="study runs: pair image models (default), prompters, or every output "
                   "of a task")  # fmt: skip
    c.add_argument("--session-size", type=int)
    c.add_argument("--min-seconds", type=float)
    c.add_argument("--penalty-seconds", type=float)
    c.add_argument("--validation", choices=("auto", "none"))
    c.add_argument("--title", help="shown to annotators")
    c.add_argument("--instructions", help="shown to annotators")
    c.add_argument(
        "--from-judge",
        type=Path,
        metavar="RESULTS",
        help="judge compare results (or votes): send humans only the pairs drawn "
        "by the judge's uncertainty (needs --budget and --selection-out)",
    )
    c.add_argument(
        "--from-abstained",
        type=Path,
        metavar="RESULTS",
        help="results marked by a trust policy (judge trust apply, or --trust): send people "
        "only the source's items whose --criterion decision no judge trusted",
    )
    add_selection_flags(c, required=False, note="with --from-judge: ")
    c.add_argument(
        "--selection-out",
        type=Path,
        metavar="FILE",
        help="with --from-judge: where to write every pair's selection probability",
    )
    c.set_defaults(handler=run_create)
    i = actions.add_parser("invite", help="issue invitation links")
    _common(i)
    who = i.add_mutually_exclusive_group(required=True)
    who.add_argument("--count", type=int, help="this many new annotators (a01, a02, …)")
    who.add_argument("--names", nargs="+", metavar="NAME",
                     help="these annotators; a name invited before gets a new link and its "
                     "old one stops working")  # fmt: skip
    i.add_argument("--out", type=Path, help="CSV annotator,url,token (else printed)")
    i.set_defaults(handler=run_invite)
    for name, helptext, handler in (
        ("status", "progress of a campaign", run_status),
        ("close", "stop serving new tasks", run_close),
    ):
        s = actions.add_parser(name, help=helptext)
        _common(s)
        s.set_defaults(handler=handler)
    k = actions.add_parser("revoke", help="end annotators' links at once")
    _common(k)
    k.add_argument("names", nargs="+", metavar="ANNOTATOR")
    k.set_defaults(handler=run_revoke)
    h = actions.add_parser("reservations", help="list (or release) the pending tasks")
    _common(h)
    h.add_argument(
        "--release",
        nargs="+",
        metavar="ANNOTATOR",
        help="drop these annotators' pending tasks (items back to the pool)",
    )
    h.add_argument("--release-expired", action="store_true",
                   help="drop every pending task whose lease has ended")  # fmt: skip
    h.set_defaults(handler=run_reservations)
    v = actions.add_parser("votes", help="export votes (or ratings) with their images")
    _common(v)
    v.add_argument("--out", type=Path, required=True, help="folder to write")
    v.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")
    v.set_defaults(handler=run_votes)
    r = actions.add_parser("report", help="the campaign report with figures")
    _common(r)
    r.add_argument("--out", type=Path, required=True, help="folder to write")
    r.add_argument("--bootstrap", type=int, default=1000)
    loop_cli.report_options(r)
    r.set_defaults(handler=run_report)
    loop_cli.register_add(actions, _common, run_add_to_memory)


def _fail(action: str, message: str, code: int = 2) -> int:
    print(f"judge campaign {action}: {message}", file=sys.stderr)
    return code


def _guarded(action: str, args: argparse.Namespace, work: Any) -> int:
    try:
        with AdminClient(args.url, admin_key(args.admin_key_env)) as client:
            return work(client)
    except (ValueError, OSError) as exc:
        return _fail(action, str(exc))
    except ServiceError as exc:
        return _fail(action, *refusal(exc, args.url))


def run_create(args: argparse.Namespace) -> int:
    """Build the items from the source and register the campaign."""
    from eval.campaigns.sources import campaign_body

    if args.from_judge and (args.budget is None or args.selection_out is None):
        return _fail("create", "--from-judge needs --budget N and --selection-out FILE")
    if args.from_judge and args.from_abstained:
        return _fail("create", "give --from-judge or --from-abstained, not both")

    def work(client: AdminClient) -> int:
        body = campaign_body(
            args.source, campaign_id=args.id, kind=args.kind, criterion=args.criterion,
            per_model=args.pairs_per_model, compare=args.compare,
            votes_per_item=args.votes_per_item,
            extra_votes=args.extra_votes, session_size=args.session_size,
            min_seconds=args.min_seconds, penalty_s=args.penalty_seconds,
            validation=args.validation, title=args.title, instructions=args.instructions,
        )  # fmt: skip
        if args.from_judge:
            from eval.campaigns.active import select_for_campaign
            from eval.leaderboards.selection import write_selection

            body, rows = select_for_campaign(body, args.from_judge, budget=args.budget,
                                             floor=args.floor,
                                             pair_boost=args.pair_boost)  # fmt: skip
            write_selection(rows, args.selection_out)
            print(f"{len(body['items'])} of {len(rows)} judged pairs drawn for humans; "
                  f"probabilities -> {args.selection_out}")  # fmt: skip
        if args.from_abstained:
            from eval.campaigns.abstained import abstained_for_campaign

            body, note = abstained_for_campaign(body, args.from_abstained)
            print(note)
        made = client.create_campaign(body)
        print(
            f"campaign {made['id']!r}: {made['n_items']} items, {made['n_validation']} "
            f"validation tasks, {made['target_votes']} labels planned"
        )
        return 0

    return _guarded("create", args, work)


def run_invite(args: argparse.Namespace) -> int:
    def work(client: AdminClient) -> int:
        got = client.invite(args.campaign, args.count, names=args.names)
        base = args.url.rstrip("/")
        lines = ["annotator,url,token"] + [
            f"{g['annotator']},{base}{g['url']},{g['token']}" for g in got
        ]
        if args.out:
            args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
            print(f"wrote {len(got)} invitations to {args.out} (keep it private: links are keys)")
        else:
            print("\n".join(lines))
        return 0

    return _guarded("invite", args, work)


def run_status(args: argparse.Namespace) -> int:
    def work(client: AdminClient) -> int:
        s = client.campaign(args.campaign)
        print(
            f"{s['id']} ({s['status']}): {s['labels']} of {s['target_votes']} labels, "
            f"{s['items_complete']} of {s['n_items']} items complete, "
            f"{len(s['annotators'])} annotators"
        )
        return 0

    return _guarded("status", args, work)


def run_close(args: argparse.Namespace) -> int:
    def work(client: AdminClient) -> int:
        client.close_campaign(args.campaign)
        print(f"{args.campaign}: closed (no new tasks are served)")
        return 0

    return _guarded("close", args, work)


def run_revoke(args: argparse.Namespace) -> int:
    def work(client: AdminClient) -> int:
        done = client.revoke(args.campaign, args.names)
        print(f"{args.campaign}: revoked {', '.join(done)} (their links no longer work)")
        return 0

    return _guarded("revoke", args, work)


def run_reservations(args: argparse.Namespace) -> int:
    if args.release and args.release_expired:
        return _fail("reservations", "use --release NAMES or --release-expired, not both")

    def work(client: AdminClient) -> int:
        if args.release or args.release_expired:
            done = client.release(args.campaign, args.release)
            print(f"{args.campaign}: released {len(done)} reservation(s)"
                  + (f": {', '.join(done)}" if done else ""))  # fmt: skip
            return 0
        got = client.reservations(args.campaign)
        held = got["reservations"]
        expired, released = got["counts"].get("expired", 0), got["counts"].get("released", 0)
        print(f"{args.campaign}: {len(held)} pending task(s); leases expired so far: "
              f"{expired}, released by an admin: {released}")  # fmt: skip
        for r in held:
            left = r["lease_until"] - got["now"]
            state = "STUCK (lease ended)" if r["stuck"] else f"lease ends in {left:.0f} s"
            print(f"  {r['annotator']}\titem {r['item']}\t{state}")
        return 0

    return _guarded("reservations", args, work)


def _download_images(client: AdminClient, campaign: str, rows: list[dict], out: Path) -> int:
    from tqdm import tqdm

    wanted = sorted({r[k] for r in rows for k in ("image_a", "image_b", "image", "source_image")
                     if r.get(k)})  # fmt: skip
    for rel in tqdm(wanted, desc="images", unit="img", disable=None):
        target = out / rel
        if not target.is_file():
            raw = client.campaign_image(campaign, Path(rel).stem)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(raw)
    return len(wanted)


def run_votes(args: argparse.Namespace) -> int:
    """Votes (or ratings) with images, ready for leaderboards and meta-eval."""

    def work(client: AdminClient) -> int:
        kind = client.campaign(args.campaign)["kind"]
        what = "ratings" if kind == "rating" else "votes"
        jsonl = client.campaign_export(args.campaign, what)
        rows = [row for _, row in parse_jsonl(jsonl, f"{args.campaign}/{what}")]
        args.out.mkdir(parents=True, exist_ok=True)
        if args.format == "csv":
            (args.out / f"{what}.csv").write_text(
                client.campaign_export(args.campaign, what, "csv"), encoding="utf-8"
            )
        else:
            (args.out / f"{what}.jsonl").write_text(jsonl, encoding="utf-8")
        if kind == "rating":
            edits = client.campaign_export(args.campaign, "ratings", "edit-ratings")
            if edits.strip():
                (args.out / "edits.jsonl").write_text(edits, encoding="utf-8")
        n_img = _download_images(client, args.campaign, rows, args.out)
        kept = sum(1 for r in rows if not r["excluded"])
        print(f"wrote {len(rows)} {what} ({kept} kept) and {n_img} images to {args.out}/")
        return 0

    return _guarded("votes", args, work)


def run_report(args: argparse.Namespace) -> int:
    """The report (JSON, Markdown, figures) of a campaign."""
    from eval.campaigns.plots import write_report

    def work(client: AdminClient) -> int:
        report = client.campaign_report(args.campaign, bootstrap=args.bootstrap)
        loop_cli.before_after(client, args, report)
        if args.trust_results is not None:
            from eval.campaigns.trust_section import campaign_trust, export_of

            rows = client.campaign_rows(args.campaign, export_of(report["kind"]))
            record = {"id": args.campaign, "criterion": report["criterion"]}
            section = campaign_trust(record, rows, args.trust_results, args.trust_policy)
            if section:
                report["trust"] = section
        paths = write_report(report, args.out)
        flagged = sum(1 for a in report["annotators"] if a["flagged"])
        print(
            f"{args.campaign}: {report['progress']['labels']} labels, {flagged} annotators "
            f"excluded, alpha {report['alpha']['value']}; wrote {len(paths)} files to {args.out}/"
        )
        return 0

    return _guarded("report", args, work)


def run_add_to_memory(args: argparse.Namespace) -> int:
    """Kept ratings, aggregated per item, into an exemplar memory (a share held out)."""
    return _guarded("add-to-memory", args, lambda client: loop_cli.add_to_memory(client, args))


def main(argv: list[str] | None = None) -> int:
    """``python -m eval.campaigns.cli ACTION ...`` (the same as ``judge campaign ACTION ...``)."""
    parser = argparse.ArgumentParser(prog="judge")
    register(parser.add_subparsers(dest="verb", required=True))
    args = parser.parse_args(["campaign", *(argv if argv is not None else sys.argv[1:])])
    return int(args.handler(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
