"""A probe run in a folder: options, journal, images and ``tree.json``; resumable.

Example::

    tree = await run_in_dir(params, spec, Path("runs/p1"), {"api_base": None, "model": None})
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from eval.kit.journal import Journal
from eval.probing.overrides import apply_overrides
from eval.probing.params import ProbeParams
from eval.probing.runner import export, run_probe
from eval.probing.setup import NO_LLM, build_context
from eval.probing.storage import FileImages
from eval.probing.tree import Override, ProbeNode
from memory.io.atomic import write_atomic


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (a killed run never leaves half a file)."""
    write_atomic(path, json.dumps(data, indent=1, ensure_ascii=False))


def read_overrides(out: Path) -> dict[str, Override]:
    """``DIR/overrides.json`` (``{"n0/1/2": {"verdict", "who", "when"}}``), when present."""
    path = out / "overrides.json"
    if not path.exists():
        return {}
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {k: Override.model_validate(v) for k, v in raw.items()}


def make_judge(overrides: dict[str, Any], params: ProbeParams) -> Any:
    """The judge from the environment, flags over it; ``--model`` stands in for a missing
    judge model."""
    from judge.config import JudgeSettings
    from judge.engine import Judge

    settings = JudgeSettings().merged(**{k: v for k, v in overrides.items() if v})
    if not settings.models() and params.model:
        settings = settings.merged(model=params.model)
    if not settings.models():
        raise ValueError(NO_LLM)
    return Judge(settings)


async def run_in_dir(
    params: ProbeParams, spec: Any, out: Path, overrides: dict[str, Any], *, quiet: bool = False
) -> dict[str, Any]:
    """Run (or resume) the probe in ``out`` and return the exported tree."""
    from tqdm import tqdm

    from eval.t2i import ImageGenerator

    judge = make_judge(overrides, params)
    out.mkdir(parents=True, exist_ok=True)
    backend = spec.model_dump(exclude={"extra"}) if hasattr(spec, "model_dump") else {}
    write_json(out / "probe.json", {"params": params.model_dump(), "backend": backend})
    total = params.node_count() * params.inputs * (2 if params.baseline else 1)
    bar = tqdm(
        total=total, desc="probe tests", unit="input", file=sys.stderr, disable=quiet, leave=False
    )

    async def current() -> dict[str, Override]:
        return read_overrides(out)

    ctx = build_context(
        params,
        judge,
        ImageGenerator(judge.settings),
        spec,
        Journal(out / "journal.jsonl"),
        FileImages(out),
        overrides=current,
        progress=lambda stage, n: bar.update(n),
    )

    async def save(root: ProbeNode) -> None:
        apply_overrides(root, read_overrides(out))
        write_json(out / "tree.json", {**export(root, ctx), "status": "running"})

    try:
        tree = await run_probe(ctx, save)
    finally:
        bar.close()
    tree["status"] = "done"
    write_json(out / "tree.json", tree)
    return tree
