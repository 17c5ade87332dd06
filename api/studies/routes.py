"""Study routes: register a study (admin), follow it, export prompts (admin), and the
participants' own submission route (authenticated by their code, no API key).

Example::

    POST /v1/studies {"id": "demo", "name": "Demo", "tasks": [...], "participants": 12}
    → 201 {"id": "demo", "participants": ["K7QM-3XPD-W9RT", ...], "page": "/ui/studies/demo"}
    GET  /v1/studies/demo/prompts  → application/x-ndjson, one {"task_id", "prompt",
                                      "participant", "submitted_at"} per line
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Set as AbstractSet
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict

from api.core.deps import AdminKeyDep
from api.core.errors import ERROR_RESPONSES, error_body
from api.state import StateDep
from api.studies.access import participant_or_403, public_study_or_404, store_of, study_or_404
from api.studies.codes import new_code, normalize_code, weak_code
from api.studies.models import (
    MAX_PARTICIPANTS,
    ParticipantState,
    PromptStored,
    PromptSubmit,
    StudyCreate,
    StudyCreated,
    StudyInfo,
    clean_prompt,
    edit_task_problems,
    validated_tasks,
)
from api.studies.record import StudyRecord, StudyTask
from api.studies.store import now_iso
from api.studies.targets import target_images
from judge.errors import InputError

router = APIRouter(prefix="/v1/studies", tags=["studies"], responses=ERROR_RESPONSES)


def _codes(participants: int | list[str], avoid: AbstractSet[str] = frozenset()) -> list[str]:
    if isinstance(participants, int):
        if not 1 <= participants <= MAX_PARTICIPANTS:
            raise InputError("participants", f"issue between 1 and {MAX_PARTICIPANTS} codes")
        codes: set[str] = set()
        while len(codes) < participants:
            fresh = new_code()
            if fresh not in avoid:
                codes.add(fresh)
        return sorted(codes)
    if not 1 <= len(participants) <= MAX_PARTICIPANTS:
        raise InputError("participants", f"give between 1 and {MAX_PARTICIPANTS} codes")
    out: list[str] = []
    for i, raw in enumerate(participants):
        code = normalize_code(raw)
        if code is None:
            raise InputError(f"participants[{i}]", "a code is 4–64 letters, digits, '-' or '_'")
        weak = weak_code(code)
        if weak:
            raise InputError(f"participants[{i}]", weak)
        if code in out:
            raise InputError(f"participants[{i}]", f"code {code!r} appears more than once")
        out.append(code)
    return out


@router.post("", status_code=201)
async def create_study(body: StudyCreate, state: StateDep, _: AdminKeyDep) -> StudyCreated:
    """Register a study; the answer lists the participant codes to hand out."""
    tasks = validated_tasks(body.tasks)
    if body.kind == "edit":
        edit_task_problems(tasks)
    codes = _codes(body.participants)
    # decoding and checking target images is blocking work: off the event loop, as for scoring
    images = await asyncio.to_thread(target_images, tasks, body.targets, state.judge.settings)
    record = StudyRecord(
        id=body.id,
        name=body.name,
        instructions=body.instructions,
        kind=body.kind,
        tasks=[StudyTask.model_validate(t) for t in tasks],
        max_prompt_chars=body.max_prompt_chars,
        created_at=now_iso(),
    )
    if not await state.studies.create(record, codes, images):
        raise HTTPException(
            409,
            error_body("conflict", f"a study {body.id!r} exists already; pick another id", "id"),
        )
    return StudyCreated(
        id=body.id,
        name=body.name,
        n_tasks=len(tasks),
        participants=codes,
        page=f"/ui/studies/{body.id}",
    )


class AddParticipants(BaseModel):
    """``POST /v1/studies/{id}/participants``: more codes for a running study."""

    model_config = ConfigDict(extra="forbid")

    participants: int | list[str]


@router.post("/{study_id}/participants", status_code=201)
async def add_participants(
    study_id: str, body: AddParticipants, state: StateDep, _: AdminKeyDep
) -> dict[str, list[str]]:
    """Issue (a number) or accept (a list) more participant codes; answers the new codes."""
    store = state.studies
    await study_or_404(store, study_id)
    existing = set(await store.codes(study_id))
    wanted = body.participants
    if len(existing) + (wanted if isinstance(wanted, int) else len(wanted)) > MAX_PARTICIPANTS:
        raise InputError(
            "participants",
            f"a study has at most {MAX_PARTICIPANTS} codes; it has {len(existing)}",
        )
    codes = _codes(wanted, avoid=existing)
    taken = await store.add_codes(study_id, codes)
    if taken:
        raise HTTPException(
            409, error_body("conflict", f"code {taken[0]!r} is already in use", "participants")
        )
    return {"participants": codes}


@router.get("/{study_id}")
async def study_info(study_id: str, state: StateDep, _: AdminKeyDep) -> StudyInfo:
    """The study and every participant's progress."""
    store = state.studies
    meta = await study_or_404(store, study_id)
    states = [
        ParticipantState(participant=c, answered=await store.answered(study_id, c))
        for c in await store.codes(study_id)
    ]
    return StudyInfo(
        id=meta.id,
        name=meta.name,
        kind=meta.kind,
        n_tasks=len(meta.tasks),
        task_ids=meta.task_ids,
        max_prompt_chars=meta.max_prompt_chars,
        created_at=meta.created_at,
        participants=states,
    )


@router.get("/{study_id}/prompts", response_class=Response)
async def export_prompts(
    study_id: str,
    state: StateDep,
    _: AdminKeyDep,
    history: Annotated[bool, Query(description="every version, not only the latest")] = False,
) -> Response:
    """JSONL of the prompts: participants in code order, tasks in study order."""
    store = state.studies
    meta = await study_or_404(store, study_id)
    order = {t: i for i, t in enumerate(meta.task_ids)}
    lines: list[str] = []
    for code in await store.codes(study_id):
        if history:
            rows = await store.history(study_id, code)
        else:
            latest = await store.prompts(study_id, code)
            rows = [{"task_id": k, **v} for k, v in latest.items()]
            rows.sort(key=lambda r: order.get(r["task_id"], len(order)))
        for r in rows:
            line = {
                "task_id": r["task_id"],
                "prompt": r["prompt"],
                "participant": code,
                "submitted_at": r["submitted_at"],
            }
            lines.append(json.dumps(line, ensure_ascii=False))
    body = "".join(line + "\n" for line in lines)
    return Response(body.encode("utf-8"), media_type="application/x-ndjson; charset=utf-8")


@router.post("/{study_id}/prompts")
async def submit_prompt(study_id: str, body: PromptSubmit, request: Request) -> PromptStored:
    """A participant's prompt for one task (the code is the credential; no API key)."""
    store = store_of(request)
    meta = await public_study_or_404(request, store, study_id)
    code = await participant_or_403(request, store, study_id, body.participant)
    if meta.task_index(body.task_id) is None:
        raise InputError("task_id", f"no task {body.task_id[:80]!r} in study {study_id!r}")
    prompt = clean_prompt(body.prompt, meta.max_prompt_chars, kind=meta.kind)
    at, rev, answered = await store.submit(study_id, code, body.task_id, prompt)
    return PromptStored(
        task_id=body.task_id,
        participant=code,
        submitted_at=at,
        revision=rev,
        answered=answered,
        n_tasks=len(meta.tasks),
    )
