"""``judge study import-prompts`` and ``judge study publish``.

Example:
    $ judge study publish examples/study/tasks.jsonl --url http://127.0.0.1:8080 \\
          --study pilot --participants 12 --codes-out codes.txt
    $ judge study import-prompts --url http://127.0.0.1:8080 --study pilot \\
          --out runs/pilot/human_prompts.jsonl
    $ judge study import-prompts --url http://127.0.0.1:8080 --study pilot \\
          --out runs/pilot/prompts --per-participant

The admin key is read from the environment variable named by ``--admin-key-env``
(default ``JUDGE_ADMIN_KEY``; none is sent when it is unset and the flag was not given).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from eval.kit.admin import DEFAULT_KEY_ENV, AdminClient, admin_key, refusal
from judge.transport import ServiceError


def register(actions: argparse._SubParsersAction) -> None:
    """Add ``import-prompts`` and ``publish`` to the ``study`` verb."""
    p = actions.add_parser(
        "import-prompts", help="download participants' prompts as human prompter files"
    )
    p.add_argument("--url", required=True, help="the service, e.g. http://127.0.0.1:8080")
    p.add_argument("--study", required=True, help="the study id")
    p.add_argument(
        "--out",
        type=Path,
        required=True,
        help="JSONL file {task_id, prompt, participant} per line; with "
        "--per-participant a folder of <code>.jsonl files {task_id, prompt}",
    )
    p.add_argument(
        "--per-participant",
        action="store_true",
        help="one file per participant, each what a `human` prompter reads",
    )
    p.add_argument("--participant", help="only this participant's prompts")
    p.add_argument("--admin-key-env", help=f"variable holding an admin key ({DEFAULT_KEY_ENV})")
    p.set_defaults(handler=run_import)

    q = actions.add_parser("publish", help="register a study on the service from a suite file")
    q.add_argument(
        "suite",
        type=Path,
        help="task suite JSONL (IM targets relative to it), or an edit study's TOML (people "
        "then write edit instructions for its tasks)",
    )
    q.add_argument("--url", required=True, help="the service, e.g. http://127.0.0.1:8080")
    q.add_argument("--study", required=True, help="the new study's id")
    q.add_argument("--name", help="the title participants see (default: the id)")
    who = q.add_mutually_exclusive_group(required=True)
    who.add_argument("--participants", type=int, help="how many codes to issue")
    who.add_argument("--codes", type=Path, help="a file of codes to accept, one per line")
    q.add_argument("--max-prompt-chars", type=int, help="longest prompt accepted (default 4000)")
    q.add_argument("--instructions", default="", help="text shown before the first task")
    q.add_argument("--codes-out", type=Path, help="write the participant codes here")
    q.add_argument("--admin-key-env", help=f"variable holding an admin key ({DEFAULT_KEY_ENV})")
    q.set_defaults(handler=run_publish)


def _fail(action: str, message: str, code: int = 2) -> int:
    print(f"judge study {action}: {message}", file=sys.stderr)
    return code


def run_import(args: argparse.Namespace) -> int:
    """Write the study's prompts (latest version of each) for the study runner."""
    from eval.studies.participants.prompts_file import write_combined, write_per_participant

    try:
        with AdminClient(args.url, admin_key(args.admin_key_env)) as client:
            rows = client.study_prompts(args.study)
    except ValueError as exc:
        return _fail("import-prompts", str(exc))
    except ServiceError as exc:
        return _fail("import-prompts", *refusal(exc, args.url))
    if args.participant:
        rows = [r for r in rows if r["participant"] == args.participant.strip().upper()]
        if not rows:
            return _fail("import-prompts", f"--participant: no prompts from {args.participant!r}")
    try:
        if args.per_participant:
            paths = write_per_participant(rows, args.out)
            print(f"wrote {len(rows)} prompts of {len(paths)} participants to {args.out}/")
        else:
            write_combined(rows, args.out)
            people = len({r["participant"] for r in rows})
            print(f"wrote {len(rows)} prompts of {people} participants to {args.out}")
    except OSError as exc:
        return _fail("import-prompts", f"--out {args.out}: {exc.strerror or exc}")
    return 0


def run_publish(args: argparse.Namespace) -> int:
    """Register the suite as a study and print (or save) the participant codes."""
    from eval.studies.edits.config import is_edit_study
    from eval.studies.participants.publish import SuiteFileError, edit_study_body, study_body

    try:
        who: int | list[str] = args.participants
        if args.codes is not None:
            who = [
                c.strip() for c in args.codes.read_text(encoding="utf-8").splitlines() if c.strip()
            ]
        make = edit_study_body if is_edit_study(args.suite) else study_body
        body, lines = make(
            args.suite,
            study_id=args.study,
            name=args.name or args.study,
            participants=who,
            max_prompt_chars=args.max_prompt_chars,
            instructions=args.instructions,
        )
        with AdminClient(args.url, admin_key(args.admin_key_env)) as client:
            made = client.create_study(body)
    except (SuiteFileError, ValueError, OSError) as exc:
        return _fail("publish", str(exc))
    except ServiceError as exc:
        text, code = refusal(exc, args.url)
        message = re.sub(
            r"tasks\[(\d+)\]",
            lambda m: f"{args.suite}:{lines[int(m[1])]}" if int(m[1]) < len(lines) else m[0],
            text,
        )
        return _fail("publish", message, code)
    codes = "\n".join(made["participants"]) + "\n"
    if args.codes_out:
        args.codes_out.write_text(codes, encoding="utf-8")
    print(
        f"study {made['id']!r}: {made['n_tasks']} tasks, page {args.url.rstrip('/')}{made['page']}"
    )
    print(codes, end="")
    return 0
