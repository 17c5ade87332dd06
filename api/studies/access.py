"""Looking up a study and checking a participant code, shared by the JSON routes and pages.

Wrong codes (typed, posted or sent in the page's cookie) and unknown study ids on the
participants' routes count towards the caller address's failed-authentication budget, the
one throttle every secret shares (:mod:`api.core.secret_throttle`), so neither codes nor
study ids can be guessed at speed.

Example::

    meta = await study_or_404(store, "demo")
    code = await participant_or_403(request, store, "demo", "k7qm-3xpd-w9rt")
"""

from __future__ import annotations

import re

from fastapi import HTTPException, Request

from api.core.errors import error_body
from api.core.secret_throttle import check_secret
from api.state import state_of
from api.studies.codes import normalize_code
from api.studies.models import STUDY_ID
from api.studies.record import StudyRecord
from api.studies.store import StudyStore

_ID = re.compile(STUDY_ID)


def store_of(request: Request) -> StudyStore:
    """The app's study store (:class:`api.state.ServiceState`)."""
    return state_of(request.app).studies


async def study_or_404(store: StudyStore, study: str) -> StudyRecord:
    """The study's record; 404 naming ``id`` when there is none."""
    meta = await store.meta(study) if _ID.fullmatch(study) else None
    if meta is None:
        raise HTTPException(
            404, error_body("not_found", f"no study {study[:80]!r} on this service", "id")
        )
    return meta


async def public_study_or_404(request: Request, store: StudyStore, study: str) -> StudyRecord:
    """:func:`study_or_404` for the participants' routes (no API key): an unknown study id
    counts as a failed authentication, so ids cannot be enumerated at speed (429 once the
    address is throttled, for ids it has not opened before)."""
    found: dict[str, StudyRecord] = {}

    async def exists(sid: str) -> bool:
        meta = await store.meta(sid) if _ID.fullmatch(sid) else None
        if meta is not None:
            found["meta"] = meta
        return meta is not None

    if not await check_secret(request, "study", study, exists, count_missing=True):
        raise HTTPException(
            404, error_body("not_found", f"no study {study[:80]!r} on this service", "id")
        )
    return found["meta"]


async def known_participant(
    request: Request, store: StudyStore, study: str, raw: object
) -> str | None:
    """The canonical code when it belongs to the study, else None (one failure counted when a
    code was given; 429 once the address is throttled)."""
    code = normalize_code(raw)
    given = raw.strip() if isinstance(raw, str) else None
    secret = f"{study}\0{code or given or ''}" if given else None

    async def valid(_: str) -> bool:
        return code is not None and await store.is_participant(study, code)

    ok = await check_secret(request, "participant", secret, valid, count_missing=False)
    return code if ok else None


async def participant_or_403(request: Request, store: StudyStore, study: str, raw: object) -> str:
    """The canonical code when it belongs to the study; 403 (and one failure counted) if not."""
    code = await known_participant(request, store, study, raw)
    if code is None:
        if not (isinstance(raw, str) and raw.strip()):
            await check_secret(request, "participant", None, bool, count_missing=True)
        raise HTTPException(
            403,
            error_body(
                "forbidden",
                "this participant code is not valid for this study; check it and try again",
                "participant",
            ),
        )
    return code
