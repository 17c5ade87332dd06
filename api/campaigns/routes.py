"""Campaign routes (docs/design.md#human-label-campaigns): the admin's (``/v1/campaigns``,
admin key), the annotator's (``/v1/label/{token}``, authorised by the invitation token alone)
and the images' (``/v1/campaign-images/{id}/{alias}``, no credential: an alias of the image
in one served task, :mod:`api.campaigns.aliases`, that nobody can derive). The annotator's
hot routes also run on a lean path (:mod:`api.campaigns.fast`) through :func:`next_payload`,
:func:`answer_payload` and :func:`image_parts`.

Example::

    POST /v1/campaigns {"id": "c1", "kind": "pairwise", "criterion": "preference", "items": [...]}
    POST /v1/campaigns/c1/invitations {"count": 40}
    GET  /v1/label/<token>/next        → 200 {"task": {...}} | 204
    GET  /v1/campaign-images/c1/<key>  → the image (ETag, Cache-Control: public, immutable)
    POST /v1/label/<token>/answers     {"task": "t…", "choice": "a"} → {"accepted", "penalty_s"}
    GET  /v1/campaigns/c1/votes        → JSONL (``?format=csv`` for CSV), streamed
    GET  /v1/campaigns/c1/report
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from api.campaigns.aliases import ALIAS
from api.campaigns.serving import (
    Ended,
    Limited,
    answer,
    current_record,
    next_task,
    public_task,
)
from api.campaigns.store import CampaignStore, Limits
from api.campaigns.streams import attempt_lines, excluded_annotators, table_parts
from api.campaigns.translations import Translations
from api.core.clock import seconds_left
from api.core.deps import AdminKeyDep
from api.core.errors import ERROR_RESPONSES, error_body
from api.core.limits import client_address
from api.core.secret_throttle import check_secret
from api.state import state_of
from eval.campaigns.demographics import Profile
from eval.campaigns.exports import (
    edit_ratings_lines,
    rating_rows,
    to_jsonl,
)
from eval.campaigns.ingest import ingest
from eval.campaigns.models import (
    CAMPAIGN_ID,
    Answer,
    CampaignCreate,
    CampaignCreated,
    Invitations,
    Revocation,
)
from eval.campaigns.record import CampaignRecord
from eval.campaigns.report import ATTEMPT_FIELDS, annotator_flags, build_report
from judge.errors import InputError

router = APIRouter(tags=["campaigns"], responses=ERROR_RESPONSES)
_ID = re.compile(CAMPAIGN_ID)
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{32}$")
_IMAGE = re.compile(r"^[0-9a-f]{24}$")
Format = Literal["jsonl", "csv"]


def store_of(request: Request) -> CampaignStore:
    """The app's campaign store (:class:`api.state.ServiceState`)."""
    return state_of(request.app).campaigns


async def campaign_or_404(request: Request, cid: str) -> CampaignRecord:
    rec = await store_of(request).record(cid) if _ID.fullmatch(cid) else None
    if rec is None:
        raise HTTPException(404, error_body("not_found", f"no campaign {cid[:80]!r} here", "id"))
    return rec


async def invitation_or_404(
    request: Request, token: str, fresh: bool = False
) -> tuple[CampaignRecord, str]:
    """The campaign and annotator of a token; 404 (one failure counted, 429 past the
    address's budget) when it is not a live invitation. Tokens go through the service's one
    throttle for secrets (:func:`api.core.secret_throttle.check_secret`) — except a token
    this process has already seen live, unless ``fresh``: the label scripts check it again
    in their one round trip, so a revoked token still ends there."""
    found: list[tuple[CampaignRecord, str]] = []
    known = None if fresh else store_of(request).known_owner(token)
    if known is not None:
        rec = await store_of(request).record(known.campaign, fresh_status=False)
        if rec is not None:
            return rec, known.annotator

    async def live(candidate: str) -> bool:
        store = store_of(request)
        owner = await store.token_owner(candidate) if _TOKEN.fullmatch(candidate) else None
        rec = await store.record(owner.campaign, fresh_status=False) if owner else None
        if rec is None or owner is None:
            return False
        found[:] = [(rec, owner.annotator)]
        return True

    if not await check_secret(request, "invitation", token, live, count_missing=True):
        raise HTTPException(
            404,
            error_body(
                "not_found",
                "this invitation link is not valid; check the link you were given",
                "token",
            ),
        )
    if not found:  # proven before from this address, but not looked up on this call
        await live(token)
    if not found:
        raise HTTPException(404, error_body("not_found", "this invitation has ended", "token"))
    return found[0]


@router.post("/v1/campaigns", status_code=201)
async def create_campaign(
    body: CampaignCreate, request: Request, _: AdminKeyDep
) -> CampaignCreated:
    """Register a campaign; images are checked and stored once each (off the event loop)."""
    state = state_of(request.app)
    record, images = await asyncio.to_thread(ingest, body, state.judge.settings, state.pixel_budget)
    if not await store_of(request).create(record, images):
        raise HTTPException(
            409, error_body("conflict", f"a campaign {body.id!r} exists already", "id")
        )
    items = record.items
    n_val = len(record.validation_ids)
    return CampaignCreated(
        id=body.id,
        status="open",
        kind=body.kind,
        criterion=body.criterion,
        n_items=len(items) - n_val,
        n_validation=n_val,
        n_images=len(images),
        target_votes=(len(items) - n_val) * body.votes_per_item,
    )


@router.get("/v1/campaigns/{cid}")
async def campaign_status(cid: str, request: Request, _: AdminKeyDep) -> dict[str, Any]:
    """Status and progress: items, planned votes, annotators."""
    rec = await campaign_or_404(request, cid)
    store = store_of(request)
    planned = await store.planned(cid)
    outcomes = await store.outcomes(cid)
    target = rec.votes_per_item
    done = {i: len(o) for i, o in outcomes.items()}
    return {
        "id": cid,
        "status": rec.status,
        "kind": rec.kind,
        "criterion": rec.criterion,
        "n_items": len(planned),
        "target_votes": target * len(planned),
        "labels": sum(done.values()),
        "served": sum(planned.values()),
        "items_complete": sum(1 for i in planned if done.get(i, 0) >= target),
        "annotators": await store.annotators(cid),
        "revoked": await store.revoked(cid),
    }


class StatusChange(BaseModel):
    model_config = ConfigDict(extra="forbid")
    status: Literal["open", "closed"]


@router.post("/v1/campaigns/{cid}/status")
async def set_status(
    cid: str, body: StatusChange, request: Request, _: AdminKeyDep
) -> dict[str, str]:
    """Close a campaign (no new tasks; pending ones can still be answered) or reopen it."""
    await campaign_or_404(request, cid)
    await store_of(request).set_status(cid, body.status)
    return {"id": cid, "status": body.status}


@router.post("/v1/campaigns/{cid}/invitations", status_code=201)
async def invite(cid: str, body: Invitations, request: Request, _: AdminKeyDep) -> dict[str, Any]:
    """``count`` new annotators (``<prefix>01``, …) with their unguessable links, or the
    ``names`` given: a name invited before gets a new link (its old one stops working), so
    an annotator never holds two live links however often, or concurrently, they are
    invited."""
    await campaign_or_404(request, cid)
    store = store_of(request)
    existing = await store.annotators(cid)
    adding = len(body.names or ()) or body.count
    if len(existing) + adding > 5_000:
        field = "names" if body.names else "count"
        raise InputError(field, f"a campaign has at most 5000 annotators; it has {len(existing)}")
    if body.names:
        people = {name: secrets.token_urlsafe(24) for name in body.names}
        await store.invite(cid, people, rotate=True)
    else:
        for _attempt in range(5):  # a concurrent request took these numbers: count again
            start = len(existing) + 1
            width = max(2, len(str(start + body.count)))
            people = {
                f"{body.prefix}{n:0{width}d}": secrets.token_urlsafe(24)
                for n in range(start, start + body.count)
            }
            taken = await store.invite(cid, people)
            if not taken:
                break
            existing = await store.annotators(cid)
        else:
            raise HTTPException(
                409,
                error_body(
                    "conflict", f"annotator {taken[0]!r} exists; use another prefix", "prefix"
                ),
            )
    return {
        "invitations": [
            {"annotator": name, "token": tok, "url": f"/ui/label/{tok}"}
            for name, tok in people.items()
        ]
    }


@router.post("/v1/campaigns/{cid}/invitations/revoke")
async def revoke(cid: str, body: Revocation, request: Request, _: AdminKeyDep) -> dict[str, Any]:
    """End the named annotators' links at once (their pending tasks return to the pool);
    their answers so far stay. Inviting a name again gives it a new link."""
    await campaign_or_404(request, cid)
    store = store_of(request)
    unknown = sorted(set(body.names) - set(await store.annotators(cid)))
    if unknown:
        raise InputError("names", f"no annotator {unknown[0]!r} in campaign {cid!r}")
    return {"id": cid, "revoked": await store.revoke(cid, body.names)}


class Release(BaseModel):
    """``POST /v1/campaigns/{id}/reservations/release``: the annotators whose reservation
    to release, or ``expired: true`` for every reservation past its lease."""

    model_config = ConfigDict(extra="forbid")
    annotators: list[Annotated[str, Field(min_length=1, max_length=64)]] = Field(
        default_factory=list, max_length=5_000
    )
    expired: bool = False


@router.get("/v1/campaigns/{cid}/reservations")
async def reservations(cid: str, request: Request, _: AdminKeyDep) -> dict[str, Any]:
    """Pending tasks and their leases (``stuck``: past the lease, not yet swept), with how
    many leases expired and how many reservations an admin released so far."""
    await campaign_or_404(request, cid)
    store = store_of(request)
    now = time.time()
    held = await store.reservations(cid)
    for r in held:
        r["stuck"] = r["lease_until"] <= now
    return {"id": cid, "now": now, "reservations": held, "counts": await store.stats(cid)}


@router.post("/v1/campaigns/{cid}/reservations/release")
async def release_reservations(
    cid: str, body: Release, request: Request, _: AdminKeyDep
) -> dict[str, Any]:
    """Drop pending tasks (their items go back to the pool): the named annotators', or
    every expired one with ``expired: true``."""
    await campaign_or_404(request, cid)
    if bool(body.annotators) == body.expired:
        raise InputError("annotators", "name the annotators to release, or send expired: true")
    names = None if body.expired else body.annotators
    released = await store_of(request).release(cid, names, time.time())
    return {"id": cid, "released": released}


MEDIA = {"csv": "text/csv; charset=utf-8", "jsonl": "application/x-ndjson; charset=utf-8"}


async def _streamed(request: Request, rec: CampaignRecord, fmt: str) -> StreamingResponse:
    """The votes or ratings of ``rec``, streamed from the log (:mod:`api.campaigns.streams`)."""
    store = store_of(request)
    checked = await excluded_annotators(store, rec)
    return StreamingResponse(table_parts(store, rec, checked, fmt), media_type=MEDIA[fmt])


@router.get("/v1/campaigns/{cid}/votes", response_class=Response)
async def export_votes(
    cid: str, request: Request, _: AdminKeyDep, format: Annotated[Format, Query()] = "jsonl"
) -> Response:
    """Votes (rankings as pairwise votes), excluded ones flagged; never validation tasks.
    Streamed: memory does not grow with the number of votes."""
    rec = await campaign_or_404(request, cid)
    if rec.kind == "rating":
        raise InputError(
            "id", f"campaign {cid!r} collects ratings: use /v1/campaigns/{cid}/ratings"
        )
    return await _streamed(request, rec, format)


@router.get("/v1/campaigns/{cid}/ratings", response_class=Response)
async def export_ratings(
    cid: str,
    request: Request,
    _: AdminKeyDep,
    format: Annotated[Literal["jsonl", "csv", "edit-ratings"], Query()] = "jsonl",
) -> Response:
    """Ratings, one per line, streamed (``edit-ratings``: kept ratings of edits grouped per
    item)."""
    rec = await campaign_or_404(request, cid)
    if rec.kind != "rating":
        raise InputError("id", f"campaign {cid!r} collects {rec.kind} answers: use /votes")
    if format != "edit-ratings":
        return await _streamed(request, rec, format)
    attempts = await store_of(request).attempts(rec.id)
    people = await asyncio.to_thread(annotator_flags, rec, attempts)
    excluded = {a for a, p in people.items() if p["flagged"]}
    rows = await asyncio.to_thread(rating_rows, rec, attempts, excluded)
    return Response(to_jsonl(edit_ratings_lines(rows)).encode(), media_type=MEDIA["jsonl"])


@router.get("/v1/campaigns/{cid}/attempts", response_class=Response)
async def export_attempts(cid: str, request: Request, _: AdminKeyDep) -> Response:
    """Everything annotators sent, accepted or not, oldest first (JSONL, streamed)."""
    await campaign_or_404(request, cid)
    return StreamingResponse(attempt_lines(store_of(request), cid), media_type=MEDIA["jsonl"])


@router.get("/v1/campaigns/{cid}/report")
async def report(
    cid: str,
    request: Request,
    _: AdminKeyDep,
    bootstrap: Annotated[int, Query(ge=0, le=10_000)] = 1000,
) -> dict[str, Any]:
    """Progress, exclusions and why, α, agreement, leaderboard, judge agreement."""
    rec = await campaign_or_404(request, cid)
    attempts = await store_of(request).attempts(cid, fields=ATTEMPT_FIELDS)
    profiles = await store_of(request).profiles(cid) if rec.demographics else None
    return await asyncio.to_thread(build_report, rec, attempts, n_boot=bootstrap, profiles=profiles)


NO_IMAGE = error_body("not_found", "no such image in this campaign", "image")


async def image_parts(
    request: Request, cid: str, key: str, public: bool = False
) -> tuple[int, dict[str, str], bytes]:
    """``(status, headers, body)`` of an image by its alias (or key): immutable content, so
    a strong ``ETag`` (the URL's name: an alias never reveals the key), a year of
    ``Cache-Control`` (``public`` when the URL carries no credential) and ``304`` when the
    client already has it (no read at all); 404 with :data:`NO_IMAGE` when the campaign has
    no such image."""
    if not _ID.fullmatch(cid):
        return 404, {}, b""
    name = key  # what the URL says: an alias (served tasks) or the key itself (admin, old)
    if ALIAS.fullmatch(name):
        aliases = await store_of(request).aliases(cid)
        key = (aliases.key_of(name) if aliases else None) or ""
    if not _IMAGE.fullmatch(key):
        return 404, {}, b""
    headers = {
        "ETag": f'"{name}"',
        "Cache-Control": f"{'public' if public else 'private'}, max-age=31536000, immutable",
        "X-Content-Type-Options": "nosniff",
    }
    tags = request.headers.get("if-none-match", "")
    matches = f'"{name}"' in tags or tags.strip() == "*"
    if matches and await store_of(request).image_exists(cid, key):
        return 304, headers, b""
    got = await store_of(request).image(cid, key)
    if got is None:
        return 404, {}, b""
    return 200, {**headers, "Content-Type": got[1]}, got[0]


async def image_response(request: Request, cid: str, key: str, public: bool = False) -> Response:
    """:func:`image_parts` as a response."""
    status, headers, data = await image_parts(request, cid, key, public)
    if status == 404:
        raise HTTPException(404, NO_IMAGE)
    return Response(data, status_code=status, headers=headers)


@router.get("/v1/campaigns/{cid}/images/{key}", response_class=Response)
async def admin_image(cid: str, key: str, request: Request, _: AdminKeyDep) -> Response:
    """One of the campaign's images (exports name them ``images/<key>.<ext>``)."""
    await campaign_or_404(request, cid)
    return await image_response(request, cid, key)


def _limits(request: Request) -> Limits:
    state = state_of(request.app)
    return Limits(
        per_token=state.settings.label_per_token_per_minute,
        per_address=state.settings.label_per_address_per_minute,
        address=client_address(request),
        clock=state.clock,
    )


def _refusal(exc: Ended | Limited, limits: Limits | None = None) -> HTTPException:
    """410 ``closed``/``revoked`` for a link that ended; 429 over a budget (``limits`` gives
    the clock of its Retry-After)."""
    if isinstance(exc, Ended) or limits is None:
        return HTTPException(410, error_body(getattr(exc, "why", "revoked"), str(exc), "token"))
    retry = {"Retry-After": str(seconds_left(limits.clock, 60))}
    headers = {} if exc.what == "cap" else retry
    return HTTPException(429, error_body("rate_limited", str(exc), "token"), headers=headers)


def translations_of(request: Request) -> Translations:
    """The app's prompt translations (:class:`api.state.ServiceState`)."""
    return state_of(request.app).campaign_translations


LANG = re.compile(r"^[a-z]{2,3}(_[A-Z]{2})?$")


def image_url(cid: str, name: str) -> str:
    """The token-free URL of a campaign image: ``name`` is the image's alias in the task
    it is shown in (:mod:`api.campaigns.aliases`), so item and validation images look
    alike and no URL recurs from one task to another."""
    return f"/v1/campaign-images/{cid}/{name}"


async def next_payload(
    request: Request, rec: CampaignRecord, who: str, token: str, lang: str | None
) -> dict[str, Any] | None:
    """The body of ``GET /v1/label/{token}/next`` (None: nothing left), shared by the route
    and the lean path (:mod:`api.campaigns.fast`); :class:`HTTPException` when refused."""
    limits = _limits(request)
    try:
        task = await next_task(store_of(request), rec, who, token=token, limits=limits)
    except (Ended, Limited) as exc:
        raise _refusal(exc, limits) from None
    if task is None:
        return None
    store = store_of(request)
    rec = await current_record(store, rec, task["item"])
    cid, aliases = rec.id, await store.aliases(rec.id)
    if aliases is None:  # the campaign went away since the task was served
        raise _refusal(Ended("revoked"))
    shown = public_task(rec, task, lambda key: image_url(cid, aliases.alias(task["id"], key)))
    if lang:
        await translations_of(request).localise(rec, shown, lang)
    return {"task": shown}


async def answer_payload(
    request: Request, rec: CampaignRecord, who: str, token: str, body: Answer
) -> dict[str, Any]:
    """The body of ``POST /v1/label/{token}/answers``, shared as :func:`next_payload` is."""
    limits = _limits(request)
    try:
        return await answer(store_of(request), rec, who, body, token=token, limits=limits)
    except (Ended, Limited) as exc:
        raise _refusal(exc, limits) from None


@router.get("/v1/label/{token}/next", responses={204: {"description": "nothing left"}})
async def label_next(
    token: str,
    request: Request,
    lang: Annotated[str | None, Query(pattern=LANG.pattern)] = None,
) -> Response:
    """The annotator's current or next task; 204 when there is nothing left. With ``lang``
    and a campaign that translates its texts, ``prompt``, ``question`` and ``anchors`` are
    in that language once translated (``prompt_original``, ``question_original`` and
    ``anchors_original`` keep the originals, ``prompt_language`` says which is shown)."""
    rec, who = await invitation_or_404(request, token)
    payload = await next_payload(request, rec, who, token, lang)
    if payload is None:
        return Response(status_code=204)
    return Response(
        json.dumps(payload),
        media_type="application/json",
        headers={"Cache-Control": "no-store"},
    )


@router.post("/v1/label/{token}/answers")
async def label_answer(token: str, body: Answer, request: Request) -> dict[str, Any]:
    """One answer to the pending task: ``{"accepted", "penalty_s"}``."""
    rec, who = await invitation_or_404(request, token)
    return await answer_payload(request, rec, who, token, body)


@router.post("/v1/label/{token}/profile", status_code=204, response_class=Response)
async def label_profile(token: str, body: Profile, request: Request) -> Response:
    """What the annotator chose to say about themselves (every field optional; ``{}`` =
    asked and nothing said), for campaigns that ask (``demographics``). The link and the
    campaign's status are read from Redis now, not from this process's memory (another
    worker may have revoked the link or closed the campaign): 404 for a link that ended,
    410 ``closed`` after the campaign closed."""
    rec, who = await invitation_or_404(request, token, fresh=True)
    rec = await store_of(request).record(rec.id) or rec  # its status read now
    if rec.status == "closed":
        raise _refusal(Ended("closed"))
    if not rec.demographics:
        raise InputError("(body)", "this campaign does not ask about its annotators")
    await store_of(request).set_profile(rec.id, who, body.model_dump(exclude_none=True))
    return Response(status_code=204)


@router.get("/v1/label/{token}/images/{key}", response_class=Response)
async def label_image(token: str, key: str, request: Request) -> Response:
    """An image of the invitation's campaign (links served before the token-free
    ``/v1/campaign-images/…`` URLs); the link is checked in Redis, so a revoked one ends
    here whichever worker revoked it."""
    rec, _ = await invitation_or_404(request, token, fresh=True)
    return await image_response(request, rec.id, key)


@router.get("/v1/campaign-images/{cid}/{key}", response_class=Response)
async def campaign_image(cid: str, key: str, request: Request) -> Response:
    """An image of a campaign, without a credential: the URL names it by its alias in one
    served task (sealed with the campaign's secret), so only someone the service showed it
    to knows the URL, and the same image has another URL in every task (a validation task's
    images look like any other's). ``Cache-Control: public``: a cache in front of the
    service can keep it, though each task's URLs are its own."""
    return await image_response(request, cid, key, public=True)
