"""``judge datasets``: list the public human-judgment sets and fetch them.

Example:
    $ judge datasets list
    $ judge datasets fetch hpdv2 --to data/HPDv2
    $ judge datasets fetch tifa --to data/tifa --archive ~/Downloads/tifa_v1.0_images.zip
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

EXIT_MANUAL = 3
"""Exit code when the automatic part is done and a manual download is left."""

EPILOG = """\
exit codes: 0 the set is complete and its adapter reads the folder; 2 an error (the message
says which file and what to do); 3 fetched what can be fetched, a manual download is left
(printed with where its files go).

Hugging Face files come through huggingface_hub: HF_ENDPOINT picks the Hub (or a mirror) and
HF_HUB_OFFLINE=1 stops the fetch with a message. The authors' own files come from their
repositories, or from --mirror."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``datasets`` verb and its actions."""
    p = sub.add_parser(
        "datasets",
        help="list the public human-judgment sets; fetch one into the layout meta-eval reads",
        description="List the public human-judgment sets (source, licence, whether they can be "
        "fetched) and fetch one into the folder `judge meta-eval --dataset NAME --data DIR` "
        "reads.",
    )
    actions = p.add_subparsers(dest="datasets_command", required=True, metavar="ACTION")
    ls = actions.add_parser("list", help="each set: source, licence, whether it can be fetched")
    ls.add_argument("--json", action="store_true", help="print the list as JSON")
    ls.set_defaults(handler=run_list)

    f = actions.add_parser(
        "fetch",
        help="download a set into the layout its adapter reads (resumable, checked)",
        description="Download a public set through its publisher's channels into DIR, in the "
        "layout `judge meta-eval --dataset NAME --data DIR` reads; a second run skips complete "
        "files and resumes partial ones.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    f.add_argument("name", help="the set (see `judge datasets list`)")
    f.add_argument("--to", type=Path, required=True, metavar="DIR", help="folder to fill")
    f.add_argument(
        "--archive",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="an archive you downloaded by hand for the set's manual step (its files are put "
        "where the set's adapter reads them)",
    )
    f.add_argument(
        "--mirror",
        metavar="URL",
        help="fetch the authors' repository files from URL/HOST/PATH instead (a local copy)",
    )
    f.add_argument(
        "--keep-archives", action="store_true", help="keep archives after unpacking them"
    )
    f.add_argument("--no-progress", action="store_true", help="no progress bars")
    f.set_defaults(handler=run_fetch)


def run_list(args: argparse.Namespace) -> int:
    """Print every set with its source, licence and whether it can be fetched."""
    from eval.datasets.fetch.catalog import catalog

    sets = catalog()
    if args.json:
        rows = [
            {"name": s.name, "fetch": s.fetchable, "source": s.source, "licence": s.licence,
             "citation": s.citation}
            for s in sets.values()
        ]  # fmt: skip
        print(json.dumps(rows, indent=1))
        return 0
    for s in sets.values():
        print(f"{s.name:<12} fetch: {s.fetchable}")
        print(f"  source:  {s.source}")
        print(f"  licence: {s.licence}")
    return 0


def run_fetch(args: argparse.Namespace) -> int:
    """Fetch one set; exit 0 when complete, 3 when a manual step is left, 2 on an error."""
    from eval.datasets.fetch.catalog import FetchError
    from eval.datasets.fetch.run import fetch, manual_instructions

    try:
        outcome = fetch(
            args.name,
            args.to,
            archives=args.archive,
            mirror=args.mirror,
            keep_archives=args.keep_archives,
            progress=not args.no_progress,
        )
    except FetchError as exc:
        print(f"judge datasets fetch: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"judge datasets fetch: {exc.filename or args.to}: {exc.strerror}", file=sys.stderr)
        return 2
    done = f"{len(outcome.fetched)} file(s) fetched, {len(outcome.skipped)} already there"
    if outcome.manual_left:
        print(f"{done}; {len(outcome.manual_left)} manual download(s) left:")
        print(manual_instructions(args.name, args.to, outcome.manual_left))
        return EXIT_MANUAL
    print(f"{done}; the {args.name} adapter reads {outcome.items} items from {args.to}")
    print(f"next: judge meta-eval --dataset {args.name} --data {args.to} --dry-run")
    return 0
