"""``judge probe run``: grow a DyEval-style topic tree against a T2I model.

Example:
    $ judge probe run --topic "spatial relations" --backend builtin/renderer --out runs/probe1
    $ judge probe run --topic counting --backend openai/dall-e-3 --model openai/gpt-4o \\
        --depth 3 --topics 3 --inputs 5 --images 4 --threshold 0 --baseline --out runs/p2
    $ judge probe run --out runs/p2      # resume an interrupted run with its stored options

The run folder holds ``probe.json`` (the options), ``journal.jsonl`` (every finished step; a
re-run resumes from it, also after ``kill -9``), ``images/`` and ``tree.json`` (rewritten as
the tree grows; docs/design.md#probes).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

EXIT_INPUT = 2
EXIT_CONFIG = 3
MAX_NOTES = 12
#: --help's two groups: the fields of ``ProbeParams`` (generated), and the rest
PROBE_OPTIONS = "probe options (ProbeParams; stored in probe.json, the paper's defaults)"
RUN_OPTIONS = "where the model under test and the LLMs are, and the run folder"


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``probe`` verb with its actions ``run`` and ``override``."""
    group = sub.add_parser("probe", help="adaptively probe a text-to-image model (topic tree)")
    actions = group.add_subparsers(dest="probe_command", required=True, metavar="ACTION")
    run = actions.add_parser("run", help="grow a topic tree of tests against a T2I model")
    from eval.probing.params import ProbeParams
    from judge.cli.model_options import add_model_options

    add_model_options(run.add_argument_group(PROBE_OPTIONS), ProbeParams)
    p = run.add_argument_group(RUN_OPTIONS)
    p.add_argument(
        "--editor",
        help="probe an image editor instead: litellm edit model, builtin/editor, or an editor "
        "id of JUDGE_BACKENDS' [[editors]] (needs --sources)",
    )
    p.add_argument("--sources", type=Path, help="with --editor: folder of pictures to edit")
    p.add_argument("--backend-api-base", help="endpoint of the model (or editor) under test")
    p.add_argument("--backend-api-key-env", help="variable holding its key")
    p.add_argument("--judge-model", help="judge model (default: JUDGE_MODEL, else --model)")
    p.add_argument("--api-base", help="endpoint of the LLM and judge (default: JUDGE_API_BASE)")
    p.add_argument("--out", type=Path, required=True, help="run folder (resumed if it exists)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    run.set_defaults(handler=run_probe_cli)

    from eval.probing.override_cli import register as register_override

    register_override(actions)


def _fail(message: str, code: int = EXIT_INPUT) -> int:
    print(f"judge probe run: {message}", file=sys.stderr)
    return code


def resolve_params(args: argparse.Namespace) -> tuple[Any, str | None]:
    """The run's :class:`ProbeParams` (stored ones when resuming) or an error message."""
    from eval.probing.params import ProbeParams
    from eval.probing.run_record import ProbeRun
    from judge.cli.model_options import flag_of
    from judge.cli.model_options import given as given_options

    given = given_options(args, ProbeParams.model_fields)
    if getattr(args, "editor", None):
        if args.backend:
            return None, "give --backend (an image model) or --editor (an image editor), not both"
        given["backend"] = args.editor
    run = ProbeRun.read(args.out)
    if run is not None:
        stored = run.params
        clash = {k: v for k, v in given.items() if stored.get(k) != v}
        if clash:
            names = ", ".join(
                f"{k} ({stored.get(k)!r} stored, {v!r} given)" for k, v in clash.items()
            )
            return None, (
                f"{args.out} holds a probe with other options: {names}; "
                "use a new --out, or repeat the same options (or none) to resume"
            )
        return ProbeParams.model_validate(stored), None
    if not given.get("topic") and "topic" not in given:
        return None, "--topic is required for a new run (or --out an existing run to resume)"
    if not given.get("backend"):
        return None, (
            "--backend is required for a new run (e.g. --backend builtin/renderer; "
            "--editor for an image editor)"
        )
    try:
        return ProbeParams.model_validate(given), None
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "options"
        return None, f"{flag_of(field, ProbeParams)}: {first['msg']}"


def backend_spec(args: argparse.Namespace, name: str) -> Any:
    """The model under test: an id of ``JUDGE_BACKENDS`` or a model string with flags."""
    from eval.t2i import BackendSpec, load_backends
    from eval.t2i.settings import backends_file

    path = backends_file()
    if path:
        known = load_backends(Path(path))
        if name in known:
            return known[name]
    ident = "".join(c if c.isalnum() or c in "-_." else "-" for c in name)[:64] or "backend"
    return BackendSpec(
        id=ident,
        model=name,
        api_base=args.backend_api_base,
        api_key_env=args.backend_api_key_env,
    )


def run_probe_cli(args: argparse.Namespace) -> int:
    """Run or resume a probe; exit 2 on bad options, 3 when no LLM is configured, 1 when the
    run labelled no image at all (the reasons are printed and kept in tree.json)."""
    from eval.probing.run_dir import run_in_dir

    params, problem = resolve_params(args)
    if problem:
        return _fail(problem)
    from eval.probing.editing import editor_run

    try:
        edit = editor_run(args, params.backend)
        spec = edit[0] if edit else backend_spec(args, params.backend)
    except Exception as exc:  # BackendConfigError, a bad JUDGE_BACKENDS file, a bad spec
        return _fail(f"{'editor' if args.editor else 'backend'} {params.backend!r}: {exc}")
    overrides = {"api_base": args.api_base, "model": args.judge_model or None}
    sources = edit[1] if edit else None
    try:
        tree = asyncio.run(
            run_in_dir(params, spec, args.out, overrides, quiet=args.quiet, sources=sources)
        )
    except ValueError as exc:
        return _fail(str(exc), EXIT_CONFIG)
    m = tree["metrics"]
    apr = "n/a" if m["apr"] is None else f"{m['apr']:.3f}"
    print(
        f"{m['n_nodes']} nodes, {m['n_inputs']} inputs, {m['n_images']} images: "
        f"{m['bugs']} bugs, APR {apr} -> {args.out / 'tree.json'}"
    )
    if "comparison" in tree:
        c = tree["comparison"]
        print(f"baseline: {c['baseline']['bugs']} bugs, APR gap {c['apr_gap']}")
    if not m["n_images"]:
        reasons = sorted({f"{t['status']}: {t['reason']}" for t in tree["root"]["tests"]})
        why = "; ".join(reasons[:3]) or tree["root"].get("reason") or "no input was generated"
        print(
            f"judge probe run: no image was labelled ({why}); check the backend and the LLM, "
            f"then run the same command again to resume",
            file=sys.stderr,
        )
        notes = node_notes(tree["root"])
        if notes:
            print("what the nodes noted:", *(f"  {n}" for n in notes), sep="\n", file=sys.stderr)
        return 1
    return 0


def node_notes(root: dict[str, Any], limit: int = MAX_NOTES) -> list[str]:
    """The notes of every node of a stored tree (``tree.json``'s ``root``) as ``id: note``,
    repeated notes once, at most ``limit`` (the rest counted on a last line).

    Example:
        >>> node_notes({"id": "n0", "notes": ["a", "a", "b"], "children": []}, limit=1)
        ['n0: a', '(1 more note in tree.json)']
    """
    found: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop(0)
        for note in node.get("notes") or []:
            line = f"{node.get('id')}: {note}"
            if line not in found:
                found.append(line)
        stack += node.get("children") or []
    rest = len(found) - limit
    tail = [f"({rest} more note{'s' if rest > 1 else ''} in tree.json)"] if rest > 0 else []
    return found[:limit] + tail
