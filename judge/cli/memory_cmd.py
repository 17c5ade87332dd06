"""``judge memory``: build, extend, search and inspect exemplar memories.

Example:
    $ judge memory build prompt-CO --from exemplars/prompt_co.jsonl
    $ judge memory search prompt-CO --text "a four-panel comic" --k 3 --json
    $ judge memory list
    $ judge memory stats prompt-CO --verify
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``memory`` verb and its sub-verbs."""
    p = sub.add_parser("memory", help="exemplar memories: build, add, search, list, stats")
    verbs = p.add_subparsers(dest="memory_command", required=True, metavar="VERB")

    def common(q: argparse.ArgumentParser) -> None:
        q.add_argument(
            "--store",
            type=Path,
            help="use this store alone (env JUDGE_MEMORY_DIR); default: your store under the "
            "user data folder, over the shipped read-only memories",
        )

    b = verbs.add_parser("build", help="create or replace a memory from an exemplar JSONL file")
    b.add_argument("name")
    b.add_argument(
        "--from",
        dest="source",
        required=True,
        help="exemplars JSONL, or SOURCE:DIR for a dataset layout (e.g. avt:DIR)",
    )
    b.add_argument(
        "--encoder",
        help="encoder spec (default: minilm for prompts, "
        "efficientnet-lite0 for images); see memory/encoders",
    )
    b.add_argument("--index", choices=["flat", "hnsw"], help="default: flat below 50k")
    common(b)
    b.set_defaults(handler=build)

    a = verbs.add_parser("add", help="add new exemplars to an existing memory")
    a.add_argument("name")
    a.add_argument("--from", dest="source", required=True, help="exemplars JSONL or SOURCE:DIR")
    common(a)
    a.set_defaults(handler=add)

    s = verbs.add_parser("search", help="nearest exemplars to a text or an image")
    s.add_argument("name")
    group = s.add_mutually_exclusive_group(required=True)
    group.add_argument("--text")
    group.add_argument("--image", type=Path)
    s.add_argument("--k", type=int, default=3)
    s.add_argument("--json", action="store_true", help='a list of {"id", "similarity"}')
    common(s)
    s.set_defaults(handler=search)

    ls = verbs.add_parser("list", help="memories in the store")
    ls.add_argument("--json", action="store_true")
    common(ls)
    ls.set_defaults(handler=list_memories)

    st = verbs.add_parser("stats", help="a memory's manifest and score distribution")
    st.add_argument("name")
    st.add_argument("--json", action="store_true")
    st.add_argument("--verify", action="store_true", help="recompute the checksum")
    common(st)
    st.set_defaults(handler=stats)


def _fail(message: str) -> int:
    print(f"judge memory: {message}", file=sys.stderr)
    return 2


def _store(args: argparse.Namespace):
    from memory.store import MemoryStore

    return MemoryStore(args.store)


def _guard(fn):
    def run(args: argparse.Namespace) -> int:
        from memory.exemplar import ExemplarError

        try:
            return fn(args)
        except (ExemplarError, KeyError, ValueError, RuntimeError) as exc:
            msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            return _fail(str(msg))

    return run


def _records(source: str):
    from memory.exemplar import load_exemplars
    from memory.sources import from_source, is_source_spec

    if is_source_spec(source):
        return from_source(source)
    path = Path(source)
    return load_exemplars(path), path.resolve().parent


@_guard
def build(args: argparse.Namespace) -> int:
    """Build NAME from a JSONL file or a dataset source."""
    records, base = _records(args.source)
    mem = _store(args).build(
        args.name,
        records,
        base_dir=base,
        encoder=args.encoder,
        index_kind=args.index,
        source=str(args.source),
        progress=True,
    )
    m = mem.manifest
    print(
        f"built {m.name} {m.version_label}: {m.count} {m.modality} exemplars, "
        f"{m.encoder.id} ({m.encoder.dim}-d), {m.index} index, in {mem.folder}"
    )
    return 0


@_guard
def add(args: argparse.Namespace) -> int:
    """Add exemplars to NAME."""
    records, base = _records(args.source)
    mem = _store(args).add(args.name, records, base_dir=base, progress=True)
    print(f"{mem.name} {mem.manifest.version_label}: now {mem.manifest.count} exemplars")
    return 0


@_guard
def search(args: argparse.Namespace) -> int:
    """Print the top-k exemplars."""
    mem = _store(args).load(args.name)
    if args.k < 1:
        return _fail("--k must be at least 1")
    if args.image is not None:
        from memory.memory import open_image

        query = open_image(args.image)
    else:
        query = args.text
    hits = mem.search(query, k=args.k)
    rows = [{"id": h.record.id, "similarity": round(h.similarity or 0.0, 4)} for h in hits]
    if args.json:
        print(json.dumps(rows))
        return 0
    for h in hits:
        scores = ", ".join(f"{d}={v:g}" for d, v in h.record.scores.items())
        print(f"{h.similarity:.4f}  {h.record.id}  [{scores}]")
    return 0


@_guard
def list_memories(args: argparse.Namespace) -> int:
    """One line per memory."""
    store = _store(args)
    rows = [store.load(n).manifest for n in store.names()]
    if args.json:
        print(json.dumps([m.model_dump(mode="json") for m in rows], indent=2))
        return 0
    if not rows:
        print(f"no memories in {store.root}")
    for m in rows:
        print(
            f"{m.name:24} {m.modality:6} {m.count:>8} exemplars  {m.encoder.id:32} "
            f"{m.index:5} {m.version_label}"
        )
    return 0


@_guard
def stats(args: argparse.Namespace) -> int:
    """Manifest plus per-dimension score counts."""
    from memory.stats import memory_stats

    info = memory_stats(_store(args).load(args.name), verify=args.verify)
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    for key, value in info.items():
        print(f"{key}: {json.dumps(value) if isinstance(value, dict | list) else value}")
    return 0 if info.get("checksum_ok", True) else 1
