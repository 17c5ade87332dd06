"""Helpers for the runner tests: the example suite in a temporary folder, study files against
the fake provider, a scripted fake MLLM prompter and reading an output folder."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.fakes.provider import FakeProvider
from tests.fakes.provider.responder import messages_text

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "study"
FAST_JUDGE = (
    'options = {retrieval = "none", subjective_batching = "per_modality", '
    'checkpoint_batching = "per_modality"}'
)


def copy_suite(folder: Path) -> list[dict[str, Any]]:
    """The example suite (tasks, targets, people's prompts) copied into ``folder``."""
    for name in ("tasks.jsonl", "human_prompts.jsonl"):
        shutil.copy(EXAMPLE / name, folder / name)
    shutil.copytree(EXAMPLE / "targets", folder / "targets", dirs_exist_ok=True)
    return read_jsonl(folder / "tasks.jsonl")


def subset(folder: Path, tasks: list[dict[str, Any]], ids: tuple[str, ...]) -> list[dict[str, Any]]:
    """``folder/small.jsonl`` with only the tasks ``ids``; returns them."""
    chosen = [t for t in tasks if t["id"] in ids]
    (folder / "small.jsonl").write_text("".join(json.dumps(t) + "\n" for t in chosen))
    return chosen


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def study_file(
    folder: Path,
    base_url: str,
    *,
    human: bool = True,
    mllm: tuple[str, ...] = ("novice", "skilled"),
    prompter_model: str = "openai/fake-prompter",
    backend: str = "builtin",
    images_base: str | None = None,
    images: int = 2,
    judge: str | None = "openai/fake-judge",
    tasks: str = "tasks.jsonl",
    extra: str = "",
) -> Path:
    """A study file in ``folder``; ``backend`` ``builtin`` (renderer) or ``fake`` (images
    endpoint of the fake provider at ``images_base``, default ``base_url``)."""
    parts = [f'[study]\nname = "test"\ntasks = "{tasks}"\nimages_per_prompt = {images}\n']
    if human:
        parts.append(
            '[[prompters]]\nid = "people"\nkind = "human"\nprompts = "human_prompts.jsonl"\n'
        )
    for cond in mllm:
        parts.append(
            f'[[prompters]]\nid = "fake-{cond}"\nkind = "mllm"\nmodel = "{prompter_model}"\n'
            f'condition = "{cond}"\napi_base = "{base_url}"\n'
        )
    if backend == "builtin":
        parts.append(
            '[[backends]]\nid = "renderer"\nmodel = "builtin/renderer"\nsize = "256x256"\n'
        )
    else:
        parts.append(
            f'[[backends]]\nid = "fake-images"\nmodel = "openai/fake-image"\n'
            f'api_base = "{images_base or base_url}"\napi_key_env = "FAKE_IMAGES_KEY"\n'
            'size = "256x256"\n'
        )
    if judge:
        parts.append(f'[judge]\nmodel = "{judge}"\napi_base = "{base_url}"\n{FAST_JUDGE}\n')
    parts.append(extra)
    path = folder / "study.toml"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


def script_prompter(
    provider: FakeProvider, tasks: list[dict[str, Any]], folder: Path, model: str = "fake-prompter"
) -> None:
    """The fake MLLM answers each task with a prompt naming the task and the condition (an
    imitation task is recognised by its target image, as sent)."""
    from judge.io.images import load_image

    targets = {
        load_image(t["target_image"], field="t", base_dir=folder).data_url: t["id"]
        for t in tasks
        if t.get("target_image") and (folder / t["target_image"]).exists()
    }

    def is_prompter(body: dict[str, Any]) -> bool:
        return body.get("model") == model

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        text = messages_text(body)
        task_id = next((t["id"] for t in tasks if t["brief"] in text), "unknown")
        urls = [
            p["image_url"]["url"]
            for m in body["messages"]
            if isinstance(m.get("content"), list)
            for p in m["content"]
            if p.get("type") == "image_url"
        ]
        task_id = next((targets[u] for u in urls if u in targets), task_id)
        schema = body["response_format"]["json_schema"]["schema"]
        skilled = "working_notes" in schema["properties"]
        prompt = f"{'skilled' if skilled else 'novice'} prompt for {task_id}: a careful picture"
        return (
            {"working_notes": "intent; constraints; check", "prompt": prompt}
            if skilled
            else {"prompt": prompt}
        )

    provider.on(is_prompter, reply)


def calls_by_model(provider: FakeProvider, start: int = 0) -> dict[str, int]:
    """Requests the fake accepted since call ``start``, by model (images under their model)."""
    out: dict[str, int] = {}
    for call in provider.wire_calls[start:]:
        model = str(call.body.get("model"))
        out[model] = out.get(model, 0) + 1
    return out


def stable(line: dict[str, Any]) -> dict[str, Any]:
    """A results line without what differs between equal runs (timings)."""
    out = {k: v for k, v in line.items() if k != "usage"}
    if isinstance(out.get("result"), dict):
        out["result"] = {k: v for k, v in out["result"].items() if k != "usage"}
    return out


def kill_after_items(
    proc: subprocess.Popen, out: Path, items: int, timeout_s: float, kind: str = "item"
) -> Path:
    """SIGKILL the ``judge study run`` in ``proc`` once its journal in ``out`` holds ``items``
    finished items (steps of ``kind``; it must still be running then); the journal's path."""
    journal = out / "journal" / "events.jsonl"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        if journal.exists() and journal.read_text(encoding="utf-8").count(f'"k": "{kind}') >= items:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    return journal
