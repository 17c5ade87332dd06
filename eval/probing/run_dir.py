"""A probe run in a folder: options, journal, images and ``tree.json``; resumable.

Example::

    tree = await run_in_dir(params, spec, Path("runs/p1"), {"api_base": None, "model": None})
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from eval.kit.journal import Journal
from eval.probing.overrides import apply_overrides
from eval.probing.params import ProbeParams
from eval.probing.run_record import ProbeRun
from eval.probing.runner import export, run_probe
from eval.probing.setup import NO_LLM, build_context
from eval.probing.storage import FileImages
from eval.probing.stored import read_overrides, write_json
from eval.probing.tree import Override, ProbeNode


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
    params: ProbeParams,
    spec: Any,
    out: Path,
    overrides: dict[str, Any],
    *,
    quiet: bool = False,
    sources: Any = None,
) -> dict[str, Any]:
    """Run (or resume) the probe in ``out`` and return the exported tree; with ``sources``
    (:class:`eval.probing.editing.SourcePictures`) ``spec`` is an editor probed on them."""
    from tqdm import tqdm

    from eval.t2i import ImageGenerator

    judge = make_judge(overrides, params)
    out.mkdir(parents=True, exist_ok=True)
    folder = Path(sources.folder) if sources is not None else None
    ProbeRun.of(params, spec, folder).write(out)
    total = params.node_count() * params.inputs * (2 if params.baseline else 1)
    bar = tqdm(
        total=total, desc="probe tests", unit="input", file=sys.stderr, disable=quiet, leave=False
    )

    async def current() -> dict[str, Override]:
        return read_overrides(out)

    journal, images = Journal(out / "journal.jsonl"), FileImages(out)
    hooks: dict[str, Any] = {"overrides": current, "progress": lambda stage, n: bar.update(n)}
    if sources is not None:
        from eval.i2i import ImageEditor
        from eval.probing.editing import build_edit_context

        editor = ImageEditor(judge.settings)
        ctx = build_edit_context(params, judge, editor, spec, sources, journal, images, **hooks)
    else:
        generator = ImageGenerator(judge.settings)
        ctx = build_context(params, judge, generator, spec, journal, images, **hooks)

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
