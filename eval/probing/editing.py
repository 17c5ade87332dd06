"""Probing an image *editor*: the same topic tree, with edit instructions as inputs, a folder
of source pictures to edit, and the judge's edit mode as the verdict.

- **inputs** are edit instructions written by the probe's LLM from the edit prompt files
  (``prompts/edit/``: inputs, relevance, topics, reflection, baseline);
- each input edits one **source picture** of the ``--sources`` folder, the same one every time
  (chosen by a hash of the instruction: a resumed run edits the same picture);
- an edited image **passes** when the edit mode marks it successful (instruction following,
  image consistency and visual quality all at least the threshold); an image whose success is
  undecided (a criterion unscored) has no verdict;
- failure localisation cuts a failing instruction into the steps it asks for (the LLM's
  ``EditSteps``, :mod:`eval.probing.edit_steps`) and tests sets of steps the way a prompt's
  scene-graph atoms are tested, every sub-instruction on the input's own source picture: the
  minimal failing sub-instructions say which change the editor cannot make.

Example::

    sources = SourcePictures.from_folder(Path("photos"))
    ctx = build_edit_context(params, judge, ImageEditor(), spec, sources, journal, images)
    tree = await run_probe(ctx)
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from eval.kit.client import LocalJudge
from eval.kit.journal import StepStore
from eval.probing.context import LOCALISING, ProbeContext, no_overrides
from eval.probing.edit_steps import EditSteps, compose_steps, steps_graph
from eval.probing.labelling import JudgeLabels, blocked
from eval.probing.params import ProbeParams
from eval.probing.scene_graph import SceneGraph
from eval.probing.setup import writer_model
from eval.probing.storage import ImageSink
from eval.probing.tree import Override
from eval.probing.writer import PROMPTS, ProbeWriter
from judge.engine import Judge
from judge.io.data_urls import data_url
from judge.llm.usage import UsageMeter
from judge.modes.edit.result import EditResult

EDIT_PROMPTS = PROMPTS / "edit"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")
MAX_SOURCES = 500


class SourcePictures:
    """The pictures an editor probe edits; :meth:`for_input` picks one per instruction."""

    def __init__(self, paths: list[Path], folder: Path | None = None):
        if not paths:
            raise ValueError("no source pictures: give --sources a folder of PNG, JPEG or WebP")
        self.paths = sorted(paths)
        self.folder = folder or self.paths[0].parent

    @classmethod
    def from_folder(cls, folder: Path) -> SourcePictures:
        """Every picture directly in ``folder`` (PNG, JPEG, WebP; at most 500)."""
        folder = Path(folder)
        if not folder.is_dir():
            raise ValueError(f"--sources: {folder} is not a folder of pictures")
        found = [p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES]
        if len(found) > MAX_SOURCES:
            many = len(found)
            raise ValueError(f"--sources: {folder} has {many} pictures; {MAX_SOURCES} at most")
        try:
            return cls(found, folder)
        except ValueError as exc:
            raise ValueError(f"--sources: {folder}: {exc}") from None

    def for_input(self, instruction: str) -> Path:
        """The picture ``instruction`` edits (stable across runs); inside a localisation
        (:data:`eval.probing.context.LOCALISING`), the picture of the instruction being
        localised, whichever of its sub-instructions this is."""
        owner = LOCALISING.get() or instruction
        digest = hashlib.sha256(owner.encode()).digest()
        return self.paths[int.from_bytes(digest[:8], "big") % len(self.paths)]

    async def read(self, instruction: str) -> bytes:
        """The bytes of the picture ``instruction`` edits."""
        return await asyncio.to_thread(self.for_input(instruction).read_bytes)


class EditProbeWriter(ProbeWriter):
    """The probe's LLM for an editor: a failing instruction's "scene graph" is its steps."""

    async def scene_graph(self, prompt: str) -> SceneGraph:
        """The steps of edit instruction ``prompt``, as a graph of bare entities."""
        answer = await self._ask("edit_steps", {"INSTRUCTION": prompt}, EditSteps)
        return steps_graph(answer)


class EditLabeller(JudgeLabels):
    """Labels edited images pass/fail with the judge's edit mode (the probe's ``labeller``)."""

    def __init__(self, judge: Judge, sources: SourcePictures):
        self.judge = judge
        self.sources = sources
        self.client = LocalJudge(judge=judge, options={"edit_samples": 1})
        self.llm_calls = 0

    async def label(
        self, prompt: str, checks: list[str], images: list[bytes]
    ) -> tuple[list[bool | None], str | None]:
        """One verdict per edited image (its edit success), and why none when undecided.
        ``checks`` (the review's) are kept on the test but the edit mode uses its criteria."""
        source = await self.sources.read(prompt)
        submission = {
            "mode": "edit",
            "id": "probe",
            "instruction": prompt,
            "source_image": data_url(source, _mime(source)),
            "images": [data_url(png, "image/png") for png in images],
        }
        result = await self.judged(submission, EditResult)
        if (none := blocked(result, len(images))) is not None:
            return none
        verdicts: list[bool | None] = [None] * len(images)
        for img in result.images:
            if 0 <= img.index < len(images):
                verdicts[img.index] = img.success.passed if img.success else None
        success = result.success
        if len(images) == 1 and verdicts[0] is None:
            verdicts[0] = success.passed if success else None
        reason = None
        if not any(v is not None for v in verdicts):
            reason = (success.reason if success else None) or "no edit could be decided"
        return verdicts, reason


def _mime(data: bytes) -> str:
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    return "image/webp" if data[8:12] == b"WEBP" else "image/png"


def build_edit_context(
    params: ProbeParams,
    judge: Judge,
    editor: Any,
    spec: Any,
    sources: SourcePictures,
    journal: StepStore,
    images: ImageSink,
    *,
    overrides: Callable[[], Awaitable[dict[str, Override]]] = no_overrides,
    progress: Callable[[str, int], None] = lambda stage, n: None,
) -> ProbeContext:
    """A :class:`ProbeContext` whose model under test is ``editor.edit(spec, source, ...)``
    (an :class:`eval.i2i.ImageEditor` and an ``EditorSpec``) on the input's source picture."""
    client = judge.gateway.client(writer_model(params, judge), UsageMeter())

    async def render(prompt: str, n: int) -> Any:
        source = await sources.read(prompt)
        return await editor.edit(spec, source, prompt, n, seed=params.seed)

    return ProbeContext(
        params=params,
        writer=EditProbeWriter(client, prompts=EDIT_PROMPTS),
        render=render,
        labeller=EditLabeller(judge, sources),
        journal=journal,
        images=images,
        overrides=overrides,
        progress=progress,
        compose=compose_steps,
    )


def editor_spec(args: Any, name: str) -> Any:
    """The editor under test: an id of ``JUDGE_BACKENDS``' ``[[editors]]``, else a model
    string with ``--backend-api-base`` / ``--backend-api-key-env``."""
    import tomllib

    from eval.i2i import EditorSpec, load_editors
    from eval.t2i.settings import backends_file

    path = backends_file()
    if path and "editors" in tomllib.loads(Path(path).read_text(encoding="utf-8")):
        known = load_editors(Path(path))
        if name in known:
            return known[name]
    return EditorSpec.for_model(
        name, api_base=args.backend_api_base, api_key_env=args.backend_api_key_env
    )


def editor_run(args: Any, name: str) -> tuple[Any, SourcePictures] | None:
    """``(editor spec, source pictures)`` when this run probes an editor (``--editor``, or a
    resumed folder whose ``probe.json`` says so), else None."""
    from eval.probing.run_record import ProbeRun

    run = ProbeRun.read(Path(args.out))
    stored = run.sources if run is not None else None
    if not getattr(args, "editor", None) and not (run is not None and run.is_edit):
        if args.sources is not None:
            raise ValueError("--sources goes with --editor (the pictures an editor edits)")
        return None
    folder = args.sources or (Path(stored) if stored else None)
    if folder is None:
        raise ValueError("--sources is required with --editor: a folder of pictures to edit")
    if stored and Path(folder).resolve() != Path(stored):
        raise ValueError(f"{args.out} was run on the pictures of {stored}; "
                         "resume with the same --sources (or none)")  # fmt: skip
    return editor_spec(args, name), SourcePictures.from_folder(Path(folder))
