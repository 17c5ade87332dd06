"""What an annotator gets next and what happens to their answer.

``next_task``: one atomic round trip (:meth:`CampaignStore.reserve`): the pending task if
there is one and its lease has not ended (so a reload, or thirty concurrent calls, get the
same task), else a new reservation — on a validation turn (drawn at random, about one task
in ``validation_every``) a validation item, otherwise a least-voted item the annotator has
not seen (read off a sorted set: O(log n) in items, not a scan). The display order
(left/right, or the order of a ranking's outputs) is drawn from the task's seed. A lease
ends after ``lease_seconds`` (default :data:`LEASE_S`): the item goes back to the pool. None
when nothing is left or the campaign is closed.

``answer``: checks the answer fits the pending task, then in one atomic round trip
(:meth:`CampaignStore.record_answer`) — answered after the task's lease ended: refused, the
task released (its item back in the pool, as the next sweep would do); answered during a
penalty pause: not accepted, the pause's remaining seconds returned; faster than
``min_seconds``: not accepted, a pause of ``penalty_s`` starts (it counts as time spent
looking, so an answer right after it meets the floor); otherwise accepted, logged and the
task closed. Every attempt is logged (append-only).

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

from api.campaigns.store import NO_LIMITS, Limits
from eval.campaigns.models import Answer
from eval.campaigns.planning import choose_item, shown_order
from eval.campaigns.record import CampaignRecord, StoredItem
from eval.campaigns.validation import passes
from judge.errors import InputError

_RNG = random.SystemRandom()
LEASE_S = 600.0
"""How long a served task stays reserved for its annotator unless the campaign says
otherwise (``lease_seconds``)."""


class Ended(Exception):
    """The invitation was revoked (``why`` = ``"revoked"``) or its campaign closed
    (``"closed"``): the link no longer works."""

    def __init__(self, why: str):
        self.why = why
        super().__init__(
            "this campaign has closed; thank you"
            if why == "closed"
            else "this invitation has ended; ask for a new link"
        )


class Limited(Exception):
    """Over a budget: ``"token"`` or ``"address"`` requests per minute, or ``"cap"`` (the
    most answers one invitation may send)."""

    def __init__(self, what: str):
        self.what = what
        super().__init__(
            "this invitation has sent as many answers as its campaign allows"
            if what == "cap"
            else f"too many requests from this {'link' if what == 'token' else 'address'} "
            "this minute; wait a moment"
        )


def answer_cap(record: CampaignRecord) -> int:
    """The most answers (accepted or not) one annotator may send: twice the campaign's
    tasks (items and validation items) plus 20."""
    return 2 * len(record.items) + 20


def _raise_for(what: str) -> None:
    if what in ("revoked", "closed"):
        raise Ended(what)
    if what.startswith("rate-"):
        raise Limited(what.removeprefix("rate-"))


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _width(record: CampaignRecord, item: StoredItem) -> int:
    if record.kind == "pairwise":
        return 2
    return len(item.outputs or ()) if record.kind == "ranking" else 1


def expand(record: CampaignRecord, stored: dict[str, Any]) -> dict[str, Any]:
    """A stored task (``id``, ``item``, ``validation``, ``served_at``, ``number``, ``seed``,
    ``until``) with its display ``order`` (drawn from its seed) and ``session`` position."""
    item = record.item(stored["item"])
    size = record.session_size
    number = int(stored["number"])
    return {
        **stored,
        "order": stored.get("order")  # a task served before orders were drawn from seeds
        or shown_order(_width(record, item), random.Random(stored.get("seed", 0))),
        "session": {"index": number % size + 1, "size": size, "number": number // size + 1},
    }


async def current_record(store: Any, record: CampaignRecord, item_id: str) -> CampaignRecord:
    """``record``, or the record as stored now when ``record`` has no item ``item_id``: the
    campaign was created again under its id since this process read it (after a Redis
    loss, say). :class:`Ended` when the campaign is gone or still lacks the item."""
    if record.find(item_id) is not None:
        return record
    fresh = await store.record(record.id)
    if fresh is None or fresh.find(item_id) is None:
        raise Ended("revoked")
    return fresh


def _validation_pool(record: CampaignRecord, rng: random.Random) -> list[str]:
    """Up to 16 of the campaign's validation items (generated and admin gold alike), in
    random order: the candidates of a validation turn, which the serving script draws."""
    pool = record.validation_ids
    return rng.sample(pool, min(16, len(pool)))


async def next_task(
    store: Any,
    record: CampaignRecord,
    who: str,
    clock: Callable[[], float] = time.time,
    rng: random.Random = _RNG,
    token: str | None = None,
    limits: Limits = NO_LIMITS,
) -> dict[str, Any] | None:
    """The annotator's current task, a new one, or None when nothing is left for them;
    :class:`Ended` when the invitation was revoked or the campaign closed, :class:`Limited`
    over ``limits``.
    ``rng`` (validation turns, display orders, ties) and ``clock`` are replaceable for
    reproducible simulations; ``token`` is the invitation (checked in the same round trip),
    None to skip the check (simulations that hold no token)."""
    cid = record.id
    common = {
        "now": clock(),
        "lease_s": float(record.lease_seconds),
        "target": record.votes_per_item,
    }
    what, task = await store.reserve(
        cid, who, token, task_id="t" + secrets.token_hex(8), seed=rng.randrange(2**31),
        start=rng.random(), validation=_validation_pool(record, rng),
        validation_rate=1.0 / record.validation_every, draw=rng.random(),
        limits=limits, **common,
    )  # fmt: skip
    extra = record.extra_votes
    if what == "none" and extra:
        # every item this annotator may still see has its target: extra votes go where the
        # votes disagree most (reads the campaign's counts; only in this last phase)
        item_id = choose_item(
            await store.planned(cid),
            seen=await store.seen(cid, who),
            target=record.votes_per_item,
            rng=rng,
            extra=extra,
            outcomes=await store.outcomes(cid),
        )
        if item_id is not None:
            what, task = await store.reserve(
                cid, who, token, task_id="t" + secrets.token_hex(8),
                seed=rng.randrange(2**31), start=0.0, item=item_id, **common,
            )  # fmt: skip
    _raise_for(what)
    if task is None:
        return None
    return expand(await current_record(store, record, task["item"]), task)


def public_task(
    record: CampaignRecord, task: dict[str, Any], image_url: Callable[[str], str]
) -> dict[str, Any]:
    """The task as the annotator sees it (no item id, no model names, no answer)."""
    item = record.item(task["item"])
    card = record.card
    out: dict[str, Any] = {
        "id": task["id"],
        "kind": record.kind,
        "criterion": record.criterion,
        "title": card.title if "title" in card.model_fields_set else record.criterion,
        "question": card.question,
        "session": task["session"],
        "min_seconds": record.min_seconds,
    }
    prompt = item.prompt
    if record.kind == "pairwise" and item.a is not None and item.b is not None:
        sides = [item.a, item.b] if task["order"] == [0, 1] else [item.b, item.a]
        out["images"] = {"a": image_url(sides[0].image), "b": image_url(sides[1].image)}
        out["reveal"] = record.criterion == "alignment"
        if card.show_prompt and prompt:
            out["prompt"] = prompt
    elif record.kind == "ranking" and item.outputs:
        out["images"] = [image_url(item.outputs[j].image) for j in task["order"]]
        if card.show_prompt and prompt:
            out["prompt"] = prompt
    else:
        out["images"] = [image_url(item.image or "")]
        if item.source_image:
            out["images"].insert(0, image_url(item.source_image))
            out["instruction"] = item.instruction
        if prompt:
            out["prompt"] = prompt
        out["anchors"] = card.anchors
    return out


def _decode(
    record: CampaignRecord, item: StoredItem, task: dict[str, Any], body: Answer
) -> dict[str, Any]:
    kind = record.kind
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
    outputs = item.outputs or []
    k = len(outputs)
    if body.order is None or sorted(body.order) != list(range(k)):
        raise InputError(
            "order",
            f"this is a ranking task: send 'order', the positions 0–{k - 1} "
            "as shown, best first, each once",
        )
    return {"order": [outputs[task["order"][p]].model for p in body.order]}


async def answer(
    store: Any,
    record: CampaignRecord,
    who: str,
    body: Answer,
    clock: Callable[[], float] = time.time,
    token: str | None = None,
    limits: Limits = NO_LIMITS,
) -> dict[str, Any]:
    """``{"accepted", "penalty_s"}`` for one answer (see the module docstring); ``clock``
    (seconds) is replaceable so simulations need not wait out real time floors; ``token``
    as for :func:`next_task`."""
    cid = record.id
    stored = await store.pending(cid, who, body.task)
    if stored is None:
        raise InputError("task", "this task is not open for this invitation; load the next task")
    record = await current_record(store, record, stored["item"])
    task = expand(record, stored)
    item = record.item(task["item"])
    decoded = _decode(record, item, task, body)
    entry: dict[str, Any] = {
        "task": task["id"],
        "item": item.id,
        "annotator": who,
        "at": now_iso(),
        "validation": bool(task["validation"]),
        "reason": (body.reason or "").strip()[:1000] or None,
        "lang": body.lang,
        "prompt_language": body.prompt_language,
        **decoded,
    }
    if item.validation is not None:
        entry["correct"] = passes(item.validation, decoded)
    what, seconds = await store.record_answer(
        cid, who, token, entry, now=clock(),
        min_seconds=float(record.min_seconds), penalty_s=float(record.penalty_s),
        cap=answer_cap(record), limits=limits,
    )  # fmt: skip
    if what == "ok":
        return {"accepted": True, "penalty_s": 0.0}
    if what in ("paused", "fast"):
        return {"accepted": False, "penalty_s": round(seconds, 3)}
    if what == "cap":
        raise Limited("cap")
    if what == "expired":
        raise InputError(
            "task",
            f"this task's time ran out (it was held for {record.lease_seconds:g} s) and it "
            "went back to the pool; load the next task",
        )
    _raise_for(what)
    raise InputError("task", "this task is not open for this invitation; load the next task")
