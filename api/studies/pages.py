"""The participant page of a study: ``/ui/studies/{id}``.

A participant enters their code (kept in an HttpOnly, SameSite=Strict cookie scoped to the
study's path), then sees one task at a time — the brief, the target image for IM tasks, a text
box — and submits. Without ``?task=N`` the page shows the first task not yet answered, so a
participant who comes back continues where they left; ``?task=N`` reopens any task to revise
it. Mistakes (unknown study, wrong code, empty or oversized prompt) get a friendly page.

Example::

    GET  /ui/studies/demo            → code form, or the next task once the code is known
    POST /ui/studies/demo/code       code=K7QM-3XPD-W9RT
    POST /ui/studies/demo/prompts    task_id=oe_1&prompt=...
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from api.studies.access import (
    known_participant,
    participant_or_403,
    public_study_or_404,
    store_of,
)
from api.studies.models import clean_prompt
from api.studies.record import StudyRecord
from api.ui import SECURITY_HEADERS, error_page, render
from api.ui.auth import refused_cross_site, same_origin
from judge.errors import InputError

router = APIRouter(prefix="/ui/studies", include_in_schema=False)
COOKIE = "judge_participant"


def _detail(exc: HTTPException) -> str:
    detail = exc.detail
    return detail["error"]["message"] if isinstance(detail, dict) else str(detail)


async def _study(request: Request, study_id: str) -> StudyRecord | HTMLResponse:
    try:
        return await public_study_or_404(request, store_of(request), study_id)
    except HTTPException as exc:
        if exc.status_code == 429:
            raise
        return error_page(
            request,
            exc.status_code,
            "Study not found",
            "There is no study at this address. Check the link you were given.",
        )


async def _posted_study(request: Request, study_id: str) -> StudyRecord | HTMLResponse:
    """The study a form was posted to, or the page to answer instead (no such study, or a form
    sent from another site)."""
    meta = await _study(request, study_id)
    if isinstance(meta, HTMLResponse) or same_origin(request):
        return meta
    return refused_cross_site(request)


async def _known_code(request: Request, study_id: str) -> str | None:
    """The participant code of this browser's cookie when valid (wrong ones are counted)."""
    return await known_participant(
        request, store_of(request), study_id, request.cookies.get(COOKIE)
    )


def _redirect(study_id: str, query: str = "") -> RedirectResponse:
    return RedirectResponse(
        f"/ui/studies/{study_id}{query}", status_code=303, headers=SECURITY_HEADERS
    )


def _task_page(
    request: Request,
    meta: StudyRecord,
    index: int,
    answers: dict,
    *,
    prompt: str | None = None,
    error: str | None = None,
    saved: str | None = None,
    status: int = 200,
) -> HTMLResponse:
    task = meta.tasks[index - 1]
    current = answers.get(task.id, {}).get("prompt", "")
    return render(
        request,
        "study_task.html",
        {
            "title": f"Task {index} of {len(meta.tasks)}",
            "study": meta,
            "task": task,
            "index": index,
            "n_tasks": len(meta.tasks),
            "answered": len(answers),
            "prompt": current if prompt is None else prompt,
            "error": error,
            "saved": saved,
            "max_chars": meta.max_prompt_chars,
        },
        status,
    )


@router.get("/{study_id}", response_class=HTMLResponse)
async def study_page(study_id: str, request: Request) -> Response:
    """The code form, the next unanswered task, a chosen task (``?task=N``), or the end."""
    meta = await _study(request, study_id)
    if isinstance(meta, HTMLResponse):
        return meta
    n = len(meta.tasks)
    code = await _known_code(request, study_id)
    if code is None:
        return render(
            request,
            "study_code.html",
            {"title": meta.name, "study": meta, "n_tasks": n, "code": "", "error": None},
        )
    answers = await store_of(request).prompts(study_id, code)
    saved = request.query_params.get("saved")
    saved = saved if saved and saved.isdigit() else None
    chosen = request.query_params.get("task")
    if chosen is not None:
        if not chosen.isdigit() or not 1 <= int(chosen) <= n:
            return error_page(request, 404, "No such task", f"This study has tasks 1 to {n}.")
        return _task_page(request, meta, int(chosen), answers, saved=saved)
    for i, task in enumerate(meta.tasks, start=1):
        if task.id not in answers:
            return _task_page(request, meta, i, answers, saved=saved)
    return render(
        request,
        "study_done.html",
        {"title": "Thank you", "study": meta, "n_tasks": n, "tasks": meta.tasks, "saved": saved},
    )


@router.post("/{study_id}/code", response_class=HTMLResponse)
async def enter_code(study_id: str, request: Request) -> Response:
    """Check a participant code and remember it for this study's pages."""
    meta = await _posted_study(request, study_id)
    if isinstance(meta, HTMLResponse):
        return meta
    form = await request.form()
    raw = form.get("code")
    try:
        code = await participant_or_403(request, store_of(request), study_id, raw)
    except HTTPException as exc:
        shown = raw if isinstance(raw, str) else ""
        return render(
            request,
            "study_code.html",
            {
                "title": meta.name,
                "study": meta,
                "n_tasks": len(meta.tasks),
                "code": shown[:64],
                "error": _detail(exc),
            },
            exc.status_code,
        )
    response = _redirect(study_id)
    response.set_cookie(
        COOKIE,
        code,
        httponly=True,
        samesite="strict",
        path=f"/ui/studies/{study_id}",
        secure=request.url.scheme == "https",
        max_age=180 * 24 * 3600,
    )
    return response


@router.post("/{study_id}/prompts", response_class=HTMLResponse)
async def submit(study_id: str, request: Request) -> Response:
    """Store the participant's prompt for one task, then show the next task."""
    meta = await _posted_study(request, study_id)
    if isinstance(meta, HTMLResponse):
        return meta
    code = await _known_code(request, study_id)
    if code is None:
        return _redirect(study_id)
    form = await request.form()
    task_id, text = form.get("task_id"), form.get("prompt")
    index = meta.task_index(task_id) if isinstance(task_id, str) else None
    if not isinstance(task_id, str) or index is None:
        return error_page(
            request,
            400,
            "Unknown task",
            "This task is not part of the study; go back to the study page.",
        )
    store = store_of(request)
    try:
        prompt = clean_prompt(text, meta.max_prompt_chars, kind=meta.kind)
    except InputError as exc:
        answers = await store.prompts(study_id, code)
        shown = text if isinstance(text, str) else ""
        return _task_page(
            request, meta, index, answers, prompt=shown, error=exc.message, status=400
        )
    await store.submit(study_id, code, task_id, prompt)
    return _redirect(study_id, f"?saved={index}")


@router.post("/{study_id}/leave", response_class=HTMLResponse)
async def leave(study_id: str, request: Request) -> Response:
    """Forget the code on this browser (a form of this site only)."""
    if not same_origin(request):
        return refused_cross_site(request)
    response = _redirect(study_id)
    response.delete_cookie(COOKIE, path=f"/ui/studies/{study_id}")
    return response


@router.get("/{study_id}/targets/{task_id:path}")
async def target(study_id: str, task_id: str, request: Request) -> Response:
    """An IM task's target image, for the study's participants only."""
    meta = await _study(request, study_id)
    if isinstance(meta, HTMLResponse):
        return meta
    if await _known_code(request, study_id) is None:
        return error_page(request, 403, "Code needed", "Enter your participant code first.")
    got = await store_of(request).target(study_id, task_id)
    if got is None:
        return error_page(request, 404, "Not found", "This task has no target image.")
    data, mime = got
    headers = {**SECURITY_HEADERS, "Cache-Control": "private, max-age=3600"}
    return Response(data, media_type=mime, headers=headers)
