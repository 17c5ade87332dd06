"""Helpers for the edit-study tests: source images and task files in a temporary folder, and
edit-study files whose editors, writer model and judge are the fake provider."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

TASKS = (
    ("t_red", "Make the square blue.", "objects", "colour_change", "red"),
    ("t_green", "Remove the square.", "objects", "remove_object", "green"),
    ("t_sign", 'Add a sign that reads "OPEN".', "text_graphics", "text_change", "orange"),
)
FAST_JUDGE = 'options = {retrieval = "none", edit_samples = 1}'


def write_tasks(folder: Path) -> list[dict[str, Any]]:
    """Three source images and ``edits.jsonl`` in the format ``judge tasks edits`` writes."""
    rows = []
    for tid, instruction, category, family, colour in TASKS:
        img = Image.new("RGB", (96, 72), (228, 226, 215))
        ImageDraw.Draw(img).rectangle((30, 18, 66, 54), fill=colour)
        img.save(folder / f"{tid}.png")
        rows.append({"id": tid, "instruction": instruction, "source_image": f"{tid}.png",
                     "category": category, "edit_type": family})  # fmt: skip
    (folder / "edits.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return rows


def edit_study_file(
    folder: Path,
    base_url: str,
    *,
    mllm_writer: bool = True,
    builtin: bool = True,
    n: int = 2,
    extra: str = "",
    tasks: str = "edits.jsonl",
) -> Path:
    """An edit study: as_written (+ a fake MLLM rewriter) × the fake edit endpoint (+ the
    demo editor), judged by the fake judge."""
    parts = [f'[study]\nkind = "edit"\nname = "test"\ntasks = "{tasks}"\n'
             f"edits_per_instruction = {n}\n",
             '[[writers]]\nid = "as-written"\nkind = "as_written"\n']  # fmt: skip
    if mllm_writer:
        parts.append(f'[[writers]]\nid = "rewrite"\nkind = "mllm"\nmodel = "openai/fake-writer"\n'
                     f'api_base = "{base_url}"\n')  # fmt: skip
    parts.append(f'[[editors]]\nid = "fake"\nmodel = "openai/fake-editor"\n'
                 f'api_base = "{base_url}"\napi_key_env = "FAKE_EDIT_KEY"\n'
                 "max_retries = 2\ntimeout_s = 60\n")  # fmt: skip
    if builtin:
        parts.append('[[editors]]\nid = "demo"\nmodel = "builtin/editor"\n')
    parts.append(f'[judge]\nmodel = "openai/fake-judge"\napi_base = "{base_url}"\n{FAST_JUDGE}\n')
    parts.append(extra)
    path = folder / "study.toml"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


def script_writer(provider: Any) -> None:
    """The fake writer answers with the request it was given, rephrased and marked."""
    from tests.fakes.provider.responder import messages_text

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        text = messages_text(body)
        request = next((t[1] for t in TASKS if t[1] in text), "unknown request")
        return {"instruction": f"Please: {request}"}

    provider.on(lambda body: body.get("model") == "fake-writer", reply)


def calls(provider: Any, start: int = 0) -> dict[str, int]:
    """Accepted calls since ``start`` by kind: writer, edit, judge."""
    out = {"writer": 0, "edit": 0, "judge": 0}
    for call in provider.wire_calls[start:]:
        if call.path.endswith("/images/edits"):
            out["edit"] += 1
        elif call.body.get("model") == "fake-writer":
            out["writer"] += 1
        else:
            out["judge"] += 1
    return out


def pair_images(body: dict[str, Any]) -> list[Any]:
    """The decoded images of a judge call, in message order (SOURCE, FIRST, SECOND for an
    edit comparison)."""
    import base64
    import io

    out = []
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") == "image_url":
                url = (part.get("image_url") or {}).get("url", "")
                out.append(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))))
    return out


def is_pair_call(body: dict[str, Any]) -> bool:
    """A pairwise question (its answer schema has a ``choice``)."""
    from tests.fakes.provider.responder import response_schema

    return "choice" in ((response_schema(body) or {}).get("properties") or {})


def prefer_darker(provider: Any) -> None:
    """The fake judge answers every pairwise question with the darker of the two edits (by
    mean grey level), so its answers do not depend on the order it is shown them."""
    from PIL import ImageStat

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        first, second = (ImageStat.Stat(i.convert("L")).mean[0] for i in pair_images(body)[1:3])
        choice = "first" if first < second else "second"
        return {"rationale": "the fake judge prefers the darker edit", "choice": choice}

    provider.on(is_pair_call, reply)


def compared_tasks(provider: Any, start: int = 0) -> list[str]:
    """The task of each pairwise call since ``start``, told by its SOURCE image's square."""
    colours = {tid: Image.new("RGB", (1, 1), colour).getpixel((0, 0))
               for tid, *_, colour in TASKS}  # fmt: skip
    out = []
    for call in provider.wire_calls[start:]:
        if not call.path.endswith("/images/edits") and is_pair_call(call.body):
            px = pair_images(call.body)[0].convert("RGB").resize((96, 72)).getpixel((48, 36))
            out.append(
                min(
                    colours,
                    key=lambda t: sum((a - b) ** 2 for a, b in zip(px, colours[t], strict=True)),
                )
            )
    return out


def with_compare(study: Path) -> Path:
    """Turn ``[study] compare`` on in an edit-study file made by :func:`edit_study_file`."""
    text = study.read_text(encoding="utf-8")
    study.write_text(
        text.replace("\nedits_per_instruction", "\ncompare = true\nedits_per_instruction")
    )
    return study
