"""Campaign items from what the project already produces, as a ``POST /v1/campaigns`` body.

* a **study run** folder (``results.jsonl`` of ``judge study run``): the outputs of one task
  by one prompter across backends (model = backend; ``prompter/backend`` when the run has
  several prompters) — pairs by :func:`eval.campaigns.planning.pair_plan`, k-way rankings,
  or one rating per output; the judge's mean image score rides along for the agreement report;
* a **probe run** folder (``tree.json``): every generated image with its input (ratings);
* a **folder of images** ``<model>/<prompt_id>.<ext>`` (prompts from ``prompts.jsonl``
  ``{"prompt_id", "prompt"}`` when present), or a **manifest** JSONL of
  ``{"prompt_id", "model", "image", "prompt"?, "source_image"?, "instruction"?}``.

Problems raise :class:`SourceError` naming the file and line.

Example::

    body = campaign_body(Path("runs/pilot"), campaign_id="c1", kind="pairwise",
                         criterion="preference")
"""

from __future__ import annotations

import json
import stat
from collections import defaultdict
from pathlib import Path
from typing import Any

from eval.campaigns.planning import pair_plan
from judge.config import JudgeSettings
from judge.io.confine import PathEscape, inside
from judge.io.data_urls import file_data_url
from judge.judged_by import MADE_UP, judged_by_text
from memory.io.jsonl import read_jsonl

EXTS = {".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp"}


class SourceError(ValueError):
    """A source that cannot become campaign items; the message says where and why."""


def data_url(path: Path, where: str, root: Path | None = None) -> str:
    """The image at ``path`` as a data: URL; a :class:`SourceError` when it lies outside
    ``root`` (the source's folder: absolute paths and ``..`` that leave it, or symlinks
    pointing out of it), is not a regular file (``/dev/zero``, a FIFO, a folder) or is over
    the service's image byte limit — each refused before a byte is read."""
    try:
        real = path.resolve(strict=True)
        if root is not None:
            inside(root, path, where=f"{where}: image", folder="the source folder")
        info = real.stat()
        if not stat.S_ISREG(info.st_mode):
            raise SourceError(f"{where}: image {path} is not a regular file")
        limit = JudgeSettings().image_max_bytes
        if info.st_size > limit:
            raise SourceError(f"{where}: image {path} is {info.st_size} bytes, over {limit}")
        return file_data_url(real)
    except PathEscape as exc:
        raise SourceError(str(exc)) from None
    except OSError as exc:
        raise SourceError(f"{where}: cannot read image {path} ({exc.strerror})") from None


def _jsonl(path: Path) -> list[tuple[int, dict[str, Any]]]:
    return list(read_jsonl(path, objects=True, error=SourceError))


def _outputs(source: Path, compare: str = "models") -> list[dict[str, Any]]:
    """``{"prompt_id", "prompt", "model", "image" (path), "judge"?, ...}`` per output."""
    if (source / "results.jsonl").is_file():
        return _study(source / "results.jsonl", compare)
    if (source / "tree.json").is_file():
        return _probe(source / "tree.json")
    if source.is_file() and source.suffix == ".jsonl":
        return _manifest(source)
    if (source / "manifest.jsonl").is_file():
        return _manifest(source / "manifest.jsonl")
    if source.is_dir():
        return _folder(source)
    raise SourceError(
        f"{source}: not a study run (results.jsonl), probe run (tree.json), manifest "
        "(.jsonl) or folder of <model>/<prompt_id>.png images"
    )


COMPARE = {
    "models": "image models (backends); each pair shares its task and prompter",
    "prompters": "prompters; each pair shares its task and image model",
    "outputs": "prompter/image-model pairs; each pair shares its task",
}
"""What a campaign from a study run compares (``--compare``), as the report says it."""


def _study(path: Path, compare: str = "models") -> list[dict[str, Any]]:
    """Outputs of a study run grouped so that a pair shares everything but what is compared:
    ``models`` pairs backends within a task and prompter (the backends' names are the
    entities, so every prompter's pairs meet in one comparison graph); ``prompters`` pairs
    prompters within a task and backend; ``outputs`` pairs every output of a task."""
    rows = [(n, r) for n, r in _jsonl(path) if r.get("images") and r.get("status") != "blocked"]
    several = len({r.get("prompter") for _, r in rows}) > 1
    out = []
    for n, r in rows:
        pick = r.get("selected_image") or 0
        task, prompter, backend = str(r["task_id"]), str(r.get("prompter")), str(r["backend"])
        if compare == "prompters":
            group, entity = f"{task}.{backend}", prompter
        elif compare == "outputs":
            group, entity = task, f"{prompter}/{backend}" if several else backend
        else:
            group, entity = (f"{task}.{prompter}" if several else task), backend
        judged = (r.get("summary") or {}).get("subjective_image")
        out.append({
            "prompt_id": group, "prompt": r.get("prompt"), "model": entity,
            "image": path.parent / r["images"][min(pick, len(r["images"]) - 1)],
            "judge": judged, "where": f"{path}:{n}",
        })  # fmt: skip
    return out


def _probe(path: Path) -> list[dict[str, Any]]:
    tree = json.loads(path.read_text(encoding="utf-8"))
    out: list[dict[str, Any]] = []

    def walk(node: dict[str, Any]) -> None:
        for t_n, test in enumerate(node.get("tests", [])):
            for i_n, img in enumerate(test.get("images", [])):
                out.append({"prompt_id": f"{node['id']}-{t_n}-{i_n}", "prompt": test.get("input"),
                            "model": "backend", "image": path.parent / img,
                            "where": f"{path} node {node['id']}"})  # fmt: skip
        for child in node.get("children", []):
            walk(child)

    walk(tree["root"])
    return out


def _manifest(path: Path) -> list[dict[str, Any]]:
    out = []
    for n, r in _jsonl(path):
        missing = [k for k in ("prompt_id", "model", "image") if not r.get(k)]
        if missing:
            raise SourceError(f"{path}:{n}: field {missing[0]!r} is missing")
        extra = {k: r[k] for k in ("instruction",) if r.get(k)}
        if r.get("source_image"):
            extra["source_image"] = path.parent / r["source_image"]
        out.append({"prompt_id": str(r["prompt_id"]), "prompt": r.get("prompt"),
                    "model": str(r["model"]), "image": path.parent / r["image"],
                    "where": f"{path}:{n}", **extra})  # fmt: skip
    return out


def _folder(root: Path) -> list[dict[str, Any]]:
    prompts = {}
    if (root / "prompts.jsonl").is_file():
        prompts = {str(r["prompt_id"]): r.get("prompt") for _, r in _jsonl(root / "prompts.jsonl")}
    out = []
    for model_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        for img in sorted(p for p in model_dir.iterdir() if p.suffix.lower() in EXTS):
            out.append({"prompt_id": img.stem, "prompt": prompts.get(img.stem),
                        "model": model_dir.name, "image": img, "where": str(img)})  # fmt: skip
    if not out:
        raise SourceError(f"{root}: no images in <model>/<prompt_id>.<ext> sub-folders")
    return out


def _winner(a: Any, b: Any) -> dict[str, str] | None:
    if a is None or b is None:
        return None
    return {"winner": "a" if a > b else "b" if b > a else "tie"}


def campaign_items(
    source: Path, kind: str, per_model: int | None = None, compare: str = "models"
) -> list[dict[str, Any]]:
    """The items of a campaign of ``kind`` built from ``source`` (``compare``: see
    :data:`COMPARE`; study runs only)."""
    if compare not in COMPARE:
        raise SourceError(f"--compare {compare!r}: expected one of {sorted(COMPARE)}")
    outputs = _outputs(source, compare)
    root = source if source.is_dir() else source.parent

    def url(o: dict[str, Any], key: str = "image") -> str:
        return data_url(o[key], o["where"], root)

    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for o in outputs:
        groups[o["prompt_id"]].append(o)
    items: list[dict[str, Any]] = []
    if kind == "rating":
        for o in outputs:
            item = {"id": f"{o['prompt_id']}:{o['model']}", "prompt": o.get("prompt"),
                    "model": o["model"], "image": url(o)}  # fmt: skip
            if o.get("source_image"):
                item["source_image"] = url(o, "source_image")
                item["instruction"] = o.get("instruction") or o.get("prompt") or ""
            if o.get("judge") is not None:
                item["judge"] = {"score": o["judge"]}
            items.append(item)
        return items
    for n, (pid, outs) in enumerate(sorted(groups.items())):
        by_model = {o["model"]: o for o in outs}
        if len(by_model) < 2:
            continue
        prompt = next((o.get("prompt") for o in outs if o.get("prompt")), None)
        if kind == "ranking":
            items.append({"id": pid, "prompt": prompt, "outputs": [
                {"model": m, "image": url(o)} for m, o in by_model.items()
            ][:8]})  # fmt: skip
            continue
        for a, b in pair_plan(sorted(by_model), per_model, rotation=n):
            oa, ob = by_model[a], by_model[b]
            item = {"id": f"{pid}:{a}-vs-{b}", "prompt": prompt,
                    "a": {"model": a, "image": url(oa)},
                    "b": {"model": b, "image": url(ob)}}  # fmt: skip
            judged = _winner(oa.get("judge"), ob.get("judge"))
            if judged:
                item["judge"] = judged
            items.append(item)
    if not items:
        raise SourceError(f"{source}: no prompt has outputs of two or more models to compare")
    return items


def study_judge(run: Path) -> str | None:
    """Who judged a study run (``judge_info`` of its ``study.json``, :mod:`judge.judged_by`),
    in the words the campaign report prints; None when the run does not say."""
    try:
        info = json.loads((run / "study.json").read_text(encoding="utf-8")).get("judge_info")
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        return None
    if not isinstance(info, dict):
        return None
    text = judged_by_text(info)
    return f"{text} ({MADE_UP})" if info.get("made_up") else text


def campaign_body(
    source: Path, *, campaign_id: str, kind: str, criterion: str, per_model: int | None = None,
    compare: str | None = None, **settings: Any,
) -> dict[str, Any]:  # fmt: skip
    """The ``POST /v1/campaigns`` body (``settings``: votes_per_item, session_size, …); from
    a study run it says what is compared (``compared``)."""
    study = (source / "results.jsonl").is_file()
    compare = compare or "models"
    body = {"id": campaign_id, "kind": kind, "criterion": criterion,
            "items": campaign_items(source, kind, per_model, compare)}  # fmt: skip
    if study and kind != "rating":
        body["compared"] = COMPARE[compare]
    if study and (said := study_judge(source)):
        body["judged_by"] = said
    body.update({k: v for k, v in settings.items() if v is not None})
    return body
