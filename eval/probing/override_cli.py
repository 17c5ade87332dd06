"""``judge probe override``: a person's verdict on one image of a probe run in a folder.

The CLI twin of ``POST /v1/probes/{id}/overrides``. Overrides live in ``DIR/overrides.json``
(``{"n0.1/2/0": {"verdict", "who", "when", "note"}}``); a run in progress reads them before its
next step (later inputs, topics and reflections see them), and a finished run's ``tree.json``
is rewritten at once with the override applied and the metrics recomputed. Writers take a lock
on ``DIR/overrides.lock``, so two people correcting at once both land.

Example::

    $ judge probe override --out runs/p1 --node n0.1 --test 2 --image 0 --verdict fail --who ana
    $ judge probe override --out runs/p1 --node n0.1 --test 2 --image 0 --clear
    $ judge probe override --out runs/p1 --list
"""

from __future__ import annotations

import argparse
import fcntl
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from eval.probing.overrides import OverrideError, make_override, target_key
from eval.probing.tree import ProbeNode

EXIT_INPUT = 2


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``override`` action to the ``probe`` verb."""
    p = sub.add_parser("override", help="override the judge's verdict on one image of a probe run")
    p.add_argument("--out", type=Path, required=True, help="the probe's run folder")
    p.add_argument("--node", help="node id, as in tree.json (e.g. n0.1)")
    p.add_argument("--test", type=int, help="index of the input within the node (from 0)")
    p.add_argument("--image", type=int, help="index of the image within the input (from 0)")
    p.add_argument("--verdict", choices=["pass", "fail"], help="the person's verdict")
    p.add_argument("--who", help="who gives the verdict (1-128 characters)")
    p.add_argument("--note", help="why (up to 2000 characters)")
    p.add_argument("--clear", action="store_true", help="remove this image's override")
    p.add_argument("--list", action="store_true", help="print the run's overrides as JSON")
    p.set_defaults(handler=run_override_cli)


def _fail(message: str) -> int:
    print(f"judge probe override: {message}", file=sys.stderr)
    return EXIT_INPUT


@contextmanager
def _locked(out: Path) -> Iterator[None]:
    with (out / "overrides.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _read_json(path: Path, what: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise OverrideError(f"{path} is not readable {what} ({exc})") from exc
    if not isinstance(data, dict):
        raise OverrideError(f"{path} is not {what} (expected a JSON object)")
    return data


def _stored_overrides(out: Path) -> dict[str, Any]:
    """The run's overrides as JSON, read (and validated) as a run reads them."""
    from eval.probing.stored import read_overrides

    try:
        return {k: v.model_dump(mode="json") for k, v in read_overrides(out).items()}
    except (OSError, UnicodeDecodeError, ValueError, AttributeError) as exc:
        raise OverrideError(f"{out / 'overrides.json'} is not readable overrides ({exc})") from exc


def _change(args: argparse.Namespace, tree: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """The address and the new override (None to clear), checked against the tree."""
    missing = [f"--{f}" for f in ("node", "test", "image") if getattr(args, f) is None]
    if missing:
        raise OverrideError(f"{', '.join(missing)} required (which image to override)")
    key = target_key(ProbeNode.from_json(tree["root"]), args.node, args.test, args.image)
    if args.clear:
        return key, None
    if args.verdict is None or args.who is None:
        raise OverrideError("--verdict pass|fail and --who NAME are required (or --clear)")
    try:
        ov = make_override(args.verdict == "pass", args.who, note=args.note)
    except ValidationError as exc:
        problem = exc.errors()[0]
        raise OverrideError(f"--{problem['loc'][0]}: {problem['msg']}") from exc
    return key, ov.model_dump(mode="json")


def run_override_cli(args: argparse.Namespace) -> int:
    """Set, clear or list overrides; exit 2 naming the problem on bad input."""
    tree_path = args.out / "tree.json"
    if not tree_path.is_file():
        return _fail(f"{tree_path} does not exist; run `judge probe run --out {args.out}` first")
    try:
        if args.list:
            print(json.dumps(_stored_overrides(args.out), indent=1, ensure_ascii=False))
            return 0
        with _locked(args.out):
            tree = _read_json(tree_path, "a probe tree")
            if "root" not in tree:
                raise OverrideError(f"{tree_path} has no root node; is it a probe's tree.json?")
            key, value = _change(args, tree)
            overrides = _stored_overrides(args.out)
            if value is None and key not in overrides:
                raise OverrideError(f"{key} has no override to clear")
            if value is None:
                del overrides[key]
            else:
                overrides[key] = value
            from eval.probing.stored import export_json, write_json

            write_json(args.out / "overrides.json", overrides)
            # a finished run's tree is rewritten now; a running one applies them at its next step
            rewritten = tree.get("status") == "done"
            if rewritten:
                params = tree.get("params") or {}
                write_json(tree_path, export_json(tree, overrides, params))
    except OverrideError as exc:
        return _fail(str(exc))
    action = "cleared" if value is None else f"set to {args.verdict}"
    where = "tree.json updated" if rewritten else "the run applies it at its next step"
    print(f"{key}: override {action} ({len(overrides)} in this run; {where})")
    return 0
