"""Probe pages: ``/ui/probes`` (list), ``/ui/probes/new`` (set-up), ``/ui/probes/{id}`` (tree).

The pages call the ``/v1/probes`` route functions themselves (same validation, same storage,
same errors), authenticated by the UI's key cookie (:mod:`api.ui.auth`). The probe page's
script polls ``/ui/probes/{id}/status.json`` (the body of ``GET /v1/probes/{id}``) while the
probe runs and posts overrides to ``/ui/probes/{id}/overrides`` (the body of
``POST /v1/probes/{id}/overrides``, same-origin only). The model under test is chosen from the
server's ``JUDGE_BACKENDS``; the form never takes an endpoint or a key.

Example::

    GET  /ui/probes/new           → the set-up form
    POST /ui/probes/new           topic=counting&backend=card&depth=2&... → 303 /ui/probes/<id>
    GET  /ui/probes/<id>          → the tree, node views, metrics, a stop button
    POST /ui/probes/<id>/stop     → DELETE /v1/probes/<id>, 303 back to the page
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from api.core.errors import error_body
from api.core.json_body import SafeJSONResponse
from api.probes import routes as api_probes
from api.probes.runner import BackendsError
from api.state import state_of
from api.ui import SECURITY_HEADERS, add_nav_link, error_page, page_router, render
from api.ui.auth import refused_cross_site, same_origin, sign_in_redirect, spend, ui_key
from eval.probing.criteria import criteria
from eval.probing.params import ProbeParams

router = page_router("/ui/probes")
add_nav_link("Probes", "/ui/probes/")
IMAGE_NAME = re.compile(r"[0-9a-f]{8,128}\.png")
NUMBERS = ("depth", "topics", "inputs", "images", "threshold", "bug_threshold")
FORM_DEFAULTS: dict[str, Any] = {
    k: ProbeParams.model_fields[k].default for k in (*NUMBERS, "strategy", "baseline", "criterion")
}


def _message(exc: HTTPException) -> str:
    detail = exc.detail
    return detail["error"]["message"] if isinstance(detail, dict) else str(detail)


def with_body(request: Request, body: bytes) -> Request:
    """The same request carrying ``body`` (to hand a form's JSON to an API route function)."""

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    return Request(request.scope, receive)


def _not_found(request: Request) -> HTMLResponse:
    return error_page(
        request,
        404,
        "Probe not found",
        "There is no probe at this address (unknown, expired, or started with another key).",
    )


def _backends(request: Request) -> tuple[list[str], str | None]:
    try:
        return sorted(state_of(request.app).t2i_backends()), None
    except BackendsError as exc:
        return [], str(exc)


@router.get("/", response_class=HTMLResponse)
async def probe_list(request: Request) -> Response:
    """The caller's probes, newest first."""
    key = await ui_key(request)
    if key is None:
        return sign_in_redirect(request)
    await spend(request, key, poll=True)
    state = state_of(request.app)
    listing = await api_probes.list_probes(key, state)
    probes = [{**p, "started": _when(p.get("created_at"))} for p in listing["probes"]]
    return render(request, "probes.html", {"title": "Probes", "probes": probes})


def _when(epoch: float | None) -> str:
    """A UTC time stamp for people.

    Example:
        >>> _when(0.0), _when(None)
        ('1970-01-01 00:00 UTC', '')
    """
    if epoch is None:
        return ""
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _new_page(
    request: Request, values: dict[str, Any], error: str | None = None, status: int = 200
) -> HTMLResponse:
    backends, problem = _backends(request)
    return render(
        request,
        "probe_new.html",
        {
            "title": "New probe",
            "backends": backends,
            "backends_problem": problem,
            "values": {**FORM_DEFAULTS, "topic": "", "backend": "", **values},
            "criteria": {k: v.get("description", k) for k, v in criteria().items()},
            "error": error,
        },
        status,
    )


@router.get("/new", response_class=HTMLResponse)
async def new_form(request: Request) -> Response:
    """The set-up form: topic, model under test, depth and counts."""
    if await ui_key(request) is None:
        return sign_in_redirect(request)
    return _new_page(request, {})


def form_to_options(form: Any) -> dict[str, Any]:
    """The probe options of the set-up form (numbers parsed; blanks left to the defaults).

    Example:
        >>> form_to_options({"topic": "cats", "backend": "card", "depth": "2", "inputs": ""})
        {'topic': 'cats', 'backend': 'card', 'depth': 2, 'baseline': False}
    """
    out: dict[str, Any] = {}
    for name in ("topic", "backend", "strategy", "criterion"):
        value = form.get(name)
        if isinstance(value, str) and (value.strip() or name == "topic"):
            out[name] = value
    for name in NUMBERS:
        value = form.get(name)
        if isinstance(value, str) and value.strip():
            text = value.strip()
            try:
                out[name] = (
                    int(text) if name in ("depth", "topics", "inputs", "images") else float(text)
                )
            except ValueError:
                out[name] = text  # the API names the field and the problem
    out["baseline"] = form.get("baseline") == "on"
    return out


@router.post("/new", response_class=HTMLResponse)
async def new_submit(request: Request) -> Response:
    """Start the probe through ``POST /v1/probes`` and go to its page."""
    if not same_origin(request):
        return refused_cross_site(request)
    key = await ui_key(request)
    if key is None:
        return sign_in_redirect(request)
    await spend(request, key)
    form = await request.form()
    options = form_to_options(form)  # never a model: the server picks the writer and judge
    state = state_of(request.app)
    try:
        answer = await api_probes.create_probe(
            with_body(request, json.dumps(options).encode()), key, state
        )
    except HTTPException as exc:
        return _new_page(request, options, _message(exc), exc.status_code)
    probe_id = json.loads(bytes(answer.body))["id"]
    return RedirectResponse(f"/ui/probes/{probe_id}", status_code=303, headers=SECURITY_HEADERS)


async def _status(request: Request, probe_id: str, key: str) -> dict[str, Any] | None:
    await spend(request, key, poll=True)
    state = state_of(request.app)
    try:
        status = await api_probes.get_probe(probe_id, key, state)
    except HTTPException:
        return None
    return status.model_dump()


@router.get("/{probe_id}", response_class=HTMLResponse)
async def probe_page(probe_id: str, request: Request) -> Response:
    """The tree coloured by pass rate, node views, metrics and live status."""
    key = await ui_key(request)
    if key is None:
        return sign_in_redirect(request)
    status = await _status(request, probe_id, key)
    if status is None:
        return _not_found(request)
    return render(
        request,
        "probe.html",
        {
            "title": f"Probe: {status['params'].get('topic', '')}"[:120],
            "probe": status,
            "tree_signature": tree_signature(status["tree"]),
        },
    )


def tree_signature(tree: dict[str, Any] | None) -> str:
    """What the page shows of a tree's progress (probe.js computes the same string and
    reloads the page when a poll's differs).

    Example:
        >>> tree_signature({"root": {"id": "n0", "tests": [{"judge_verdicts": [True, None]}],
        ...                          "failures": [], "reflection": None, "status": "done",
        ...                          "children": []}})
        'n0:1:1:0:0:done'
    """
    if not tree:
        return ""
    parts, stack = [], [tree["root"]]
    while stack:
        node = stack.pop(0)
        labelled = sum(v is not None for t in node["tests"] for v in t["judge_verdicts"])
        parts.append(
            f"{node['id']}:{len(node['tests'])}:{labelled}:{len(node['failures'])}:"
            f"{1 if node.get('reflection') else 0}:{node['status']}"
        )
        stack.extend(node["children"])
    return "|".join(parts)


def _json_error(status: int, code: str, message: str, field: str | None = None) -> SafeJSONResponse:
    return SafeJSONResponse(error_body(code, message, field), status, headers=SECURITY_HEADERS)


@router.get("/{probe_id}/status.json")
async def probe_status(probe_id: str, request: Request) -> Response:
    """What ``GET /v1/probes/{id}`` answers, for the page's polling."""
    key = await ui_key(request)
    if key is None:
        return _json_error(401, "unauthorized", "sign in at /ui/key first", "key")
    status = await _status(request, probe_id, key)
    if status is None:
        return _json_error(404, "not_found", f"no probe {probe_id[:64]!r}", "id")
    return SafeJSONResponse(status, headers=SECURITY_HEADERS)


@router.post("/{probe_id}/overrides")
async def probe_overrides(probe_id: str, request: Request) -> Response:
    """Record a person's verdict through ``POST /v1/probes/{id}/overrides``."""
    if not same_origin(request) or request.headers.get("origin") is None:
        return _json_error(403, "forbidden", "overrides must be sent from this site", "origin")
    key = await ui_key(request)
    if key is None:
        return _json_error(401, "unauthorized", "sign in at /ui/key first", "key")
    await spend(request, key)
    state = state_of(request.app)
    try:
        answer = await api_probes.add_overrides(probe_id, request, key, state)
    except HTTPException as exc:
        return SafeJSONResponse(exc.detail, exc.status_code, headers=SECURITY_HEADERS)
    return SafeJSONResponse(answer, headers=SECURITY_HEADERS)


@router.post("/{probe_id}/stop")
async def probe_stop(probe_id: str, request: Request) -> Response:
    """Stop a running probe through ``DELETE /v1/probes/{id}``; back to its page."""
    if not same_origin(request) or request.headers.get("origin") is None:
        return refused_cross_site(request)
    key = await ui_key(request)
    if key is None:
        return sign_in_redirect(request)
    await spend(request, key)
    state = state_of(request.app)
    try:
        await api_probes.cancel_probe(probe_id, key, state)
    except HTTPException:
        return _not_found(request)
    return RedirectResponse(f"/ui/probes/{probe_id}", status_code=303, headers=SECURITY_HEADERS)


@router.get("/{probe_id}/images/{name}")
async def probe_image(probe_id: str, name: str, request: Request) -> Response:
    """One rendered image of a probe (PNG)."""
    key = await ui_key(request)
    if key is None or not IMAGE_NAME.fullmatch(name):
        return error_page(request, 404, "Not found", "There is no such image.")
    state = state_of(request.app)
    try:
        png = await api_probes.probe_image(probe_id, name, key, state)
    except HTTPException:
        return error_page(request, 404, "Not found", "There is no such image.")
    headers = {**SECURITY_HEADERS, "Cache-Control": "private, max-age=3600"}
    return Response(png.body, media_type="image/png", headers=headers)
