"""What an annotator gets next and what happens to their answer.

``next_task``: the pending task if there is one (so a reload resumes it), else a new one — a
validation task on the annotator's validation turns (:func:`is_validation_turn`), otherwise
the item :func:`choose_item` picks; the display order (left/right, or the order of a
ranking's outputs) is drawn per task and kept with it. None when nothing is left.

``answer``: checks the answer fits the pending task, then — answered during a penalty pause:
not accepted, the pause's remaining seconds returned; faster than ``min_seconds``: not
accepted, a pause of ``penalty_s`` starts (it counts as time spent looking, so an answer
right after it meets the floor); otherwise
accepted, logged and the task closed. Every attempt is logged (append-only).

Example::

    task = await next_task(store, record, "a01")
    result = await answer(store, record, "a01", Answer(task=task["id"], choice="a"))
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from eval.campaigns.models import Answer
from eval.campaigns.planning import choose_item, is_validation_turn, shown_order
from eval.campaigns.validation import passes
from judge.errors import InputError

_RNG = random.SystemRandom()


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _items(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    cached = record.get("_by_id")
    if cached is None:
        cached = {i["id"]: i for i in record["items"]}
    return cached


def _width(record: dict[str, Any], item: dict[str, Any]) -> int:
    return (
        2
        if record["kind"] == "pairwise"
        else len(item["outputs"])
        if record["kind"] == "ranking"
        else 1
    )


async def next_task(
    store: Any,
    record: dict[str, Any],
    who: str,
    clock: Callable[[], float] = time.time,
    rng: random.Random = _RNG,
) -> dict[str, Any] | None:
    """The annotator's current task (stored form), a new one, or None when done; ``rng``
    (display orders, ties) and ``clock`` are replaceable for reproducible simulations."""
    cid = record["id"]
    state = await store.state(cid, who)
    if state["pending"] is not None:
        return state["pending"]
    if record.get("status") != "open":
        return None
    items = _items(record)
    seen = await store.seen(cid, who)
    item_id = None
    validation = False
    if is_validation_turn(who, state["served"], int(record.get("validation_every", 4))):
        pool = [i["id"] for i in record["items"] if i.get("validation") and i["id"] not in seen]
        if pool:
            item_id, validation = rng.choice(sorted(pool)), True
    if item_id is None:
        planned = await store.planned(cid)
        extra = int(record.get("extra_votes", 0))
        outcomes = await store.outcomes(cid) if extra else None
        item_id = choose_item(
            planned,
            seen=seen,
            target=int(record["votes_per_item"]),
            rng=rng,
            extra=extra,
            outcomes=outcomes,
        )
        if item_id is None:
            return None
    item = items[item_id]
    size = int(record["session_size"])
    task = {
        "id": "t" + secrets.token_hex(8),
        "item": item_id,
        "validation": validation,
        "order": shown_order(_width(record, item), rng),
        "served_at": clock(),
        "number": state["served"],
        "session": {
            "index": state["served"] % size + 1,
            "size": size,
            "number": state["served"] // size + 1,
        },
    }
    await store.serve(cid, who, task, counted=not validation)
    return task


def public_task(record: dict[str, Any], task: dict[str, Any], image_url: Any) -> dict[str, Any]:
    """The task as the annotator sees it (no item id, no model names, no answer)."""
    item = _items(record)[task["item"]]
    card = record["card"]
    out: dict[str, Any] = {
        "id": task["id"],
        "kind": record["kind"],
        "criterion": record["criterion"],
        "title": card.get("title", record["criterion"]),
        "question": card["question"],
        "session": task["session"],
        "min_seconds": record["min_seconds"],
    }
    prompt = item.get("prompt")
    if record["kind"] == "pairwise":
        sides = ["a", "b"] if task["order"] == [0, 1] else ["b", "a"]
        out["images"] = {
            "a": image_url(item[sides[0]]["image"]),
            "b": image_url(item[sides[1]]["image"]),
        }
        out["reveal"] = record["criterion"] == "alignment"
        if card.get("show_prompt") and prompt:
            out["prompt"] = prompt
    elif record["kind"] == "ranking":
        out["images"] = [image_url(item["outputs"][j]["image"]) for j in task["order"]]
        if card.get("show_prompt") and prompt:
            out["prompt"] = prompt
    else:
        out["images"] = [image_url(item["image"])]
        if item.get("source_image"):
            out["images"].insert(0, image_url(item["source_image"]))
            out["instruction"] = item.get("instruction")
        if prompt:
            out["prompt"] = prompt
        out["anchors"] = card.get("anchors", {})
    return out


def _decode(
    record: dict[str, Any], item: dict[str, Any], task: dict[str, Any], body: Answer
) -> dict[str, Any]:
    kind = record["kind"]
    if kind == "pairwise":
        if body.choice is None:
            raise InputError(
                "choice", "this is a pairwise task: send 'choice' ('a' = left, 'b' = right)"
            )
        sides = ["a", "b"] if task["order"] == [0, 1] else ["b", "a"]
        return {"choice": sides[0 if body.choice == "a" else 1], "shown_left": sides[0]}
    if kind == "rating":
        if body.rating is None:
            raise InputError("rating", "this is a rating task: send 'rating' (1–5)")
        return {"rating": body.rating}
    k = len(item["outputs"])
    if body.order is None or sorted(body.order) != list(range(k)):
        raise InputError(
            "order",
            f"this is a ranking task: send 'order', the positions 0–{k - 1} "
            "as shown, best first, each once",
        )
    return {"order": [item["outputs"][task["order"][p]]["model"] for p in body.order]}


async def answer(
    store: Any,
    record: dict[str, Any],
    who: str,
    body: Answer,
    clock: Callable[[], float] = time.time,
) -> dict[str, Any]:
    """``{"accepted", "penalty_s"}`` for one answer (see the module docstring); ``clock``
    (seconds) is replaceable so simulations need not wait out real time floors."""
    cid = record["id"]
    state = await store.state(cid, who)
    task = state["pending"]
    if task is None or task["id"] != body.task:
        raise InputError("task", "this task is not open for this invitation; load the next task")
    item = _items(record)[task["item"]]
    decoded = _decode(record, item, task, body)
    now = clock()
    entry: dict[str, Any] = {
        "task": task["id"],
        "item": item["id"],
        "annotator": who,
        "at": now_iso(),
        "seconds": round(now - task["served_at"], 3),
        "validation": bool(task["validation"]),
        "reason": (body.reason or "").strip()[:1000] or None,
        **decoded,
    }
    if now < state["penalty_until"]:
        wait = round(state["penalty_until"] - now, 3)
        await store.log(cid, {**entry, "accepted": False, "fast": False, "paused": True})
        return {"accepted": False, "penalty_s": wait}
    if now - task["served_at"] < float(record["min_seconds"]):
        pause = float(record["penalty_s"])
        # the pause counts as looking time: right after it the floor is met
        task = {**task, "served_at": now + pause - float(record["min_seconds"])}
        await store.update_pending(cid, who, task, now + pause)
        await store.log(cid, {**entry, "accepted": False, "fast": True})
        return {"accepted": False, "penalty_s": pause}
    entry.update(accepted=True, fast=False)
    if item.get("validation"):
        entry["correct"] = passes(item["validation"], decoded)
    if not await store.close_task(cid, who, task, entry):
        raise InputError("task", "this task was already answered; load the next task")
    return {"accepted": True, "penalty_s": 0.0}
