"""Looking up a study and checking a participant code, shared by the JSON routes and pages.

Wrong codes count towards the caller address's failed-authentication budget (the same one
wrong API keys use), so codes cannot be guessed at speed.

Example::

    meta = await study_or_404(store, "demo")
    code = await participant_or_403(request, store, "demo", "k7qm-3xpd-w9rt")
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import HTTPException, Request

from api.core.errors import error_body
from api.core.limits import check_auth_failures, client_address
from api.studies.codes import normalize_code
from api.studies.models import STUDY_ID
from api.studies.store import StudyStore

_ID = re.compile(STUDY_ID)


def store_of(request: Request) -> StudyStore:
    """The app's study store (made on first use, on the app's Redis client)."""
    state = request.app.state
    if getattr(state, "study_store", None) is None:
        state.study_store = StudyStore(state.redis)
    return state.study_store


async def study_or_404(store: StudyStore, study: str) -> dict[str, Any]:
    """The study's record; 404 naming ``id`` when there is none."""
    meta = await store.meta(study) if _ID.fullmatch(study) else None
    if meta is None:
        raise HTTPException(
            404, error_body("not_found", f"no study {study[:80]!r} on this service", "id")
        )
    return meta


async def participant_or_403(request: Request, store: StudyStore, study: str, raw: object) -> str:
    """The canonical code when it belongs to the study; 403 (and one failure counted) if not."""
    redis = request.app.state.redis
    per_minute = request.app.state.settings.auth_failures_per_minute
    address = client_address(request)
    await check_auth_failures(redis, address, per_minute, count=False)
    code = normalize_code(raw)
    if code is None or not await store.is_participant(study, code):
        await check_auth_failures(redis, address, per_minute, count=True)
        raise HTTPException(
            403,
            error_body(
                "forbidden",
                "this participant code is not valid for this study; check it and try again",
                "participant",
            ),
        )
    return code
