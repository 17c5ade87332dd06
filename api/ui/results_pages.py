"""Results viewer: scoring batches and study runs, ``/ui/results/...``.

- ``/ui/results/`` — open a batch by id; the study runs of ``JUDGE_SERVE_STUDY_RUNS`` (admins only:
  runs hold participants' prompts and images).
- ``/ui/results/batches/{id}`` — a batch's results (owner only, as ``GET /v1/batches``).
- ``/ui/results/studies/{run}`` — a study run's ``results.jsonl``: the run is a sub-folder of
  the server-configured ``JUDGE_SERVE_STUDY_RUNS`` directory (the service never reads a path a
  client names); ``/ui/results/studies/{run}/files/{path}`` serves the run's images (PNG/JPEG/WebP
  inside the run folder only; ``..``, absolute paths and links out of it are refused, and so
  is a ``results.jsonl`` that links out of it). A run's page shows :data:`PAGE_ROWS` lines
  at a time (``?page=N``); lines over :data:`MAX_LINE_BYTES` are skipped as unreadable.

Both filter by status, dimension (only results with a score on it; the score is shown) and,
for studies, prompter and backend: images, scores and rationales side by side. No model is
needed: these pages only read what is stored.

Example::

    JUDGE_SERVE_STUDY_RUNS=/srv/study-runs judge serve
    GET /ui/results/studies/demo-2026-11?prompter=gpt-skilled&status=scored
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from api.core.deps import is_admin
from api.jobs.store import is_batch_id, owner_tag
from api.state import state_of
from api.ui import SECURITY_HEADERS, add_nav_link, error_page, page_router, render
from api.ui.auth import sign_in_redirect, spend, ui_key
from api.ui.result_view import batch_row, dimensions_of, filter_rows, study_row

router = page_router("/ui/results")
add_nav_link("Results", "/ui/results/")
RUN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
}
MAX_ROWS = 2000
PAGE_ROWS = 200
MAX_LINE_BYTES = 1024 * 1024
MAX_PAGE = 1_000_000


def runs_root(request: Request) -> Path | None:
    """The directory of study runs (``JUDGE_SERVE_STUDY_RUNS`` when the app was created), or
    None."""
    raw = state_of(request.app).settings.study_runs
    return Path(raw).resolve() if raw else None


def run_dir(root: Path, name: str) -> Path | None:
    """The folder of run ``name`` under ``root``; None for bad names, links out, or no run.

    Example:
        >>> run_dir(Path("/nonexistent"), "../etc") is None
        True
    """
    if not RUN_NAME.fullmatch(name) or ".." in name:
        return None
    path = (root / name).resolve()
    results = path / "results.jsonl"
    if path.parent != root or not results.is_file():
        return None
    if not results.resolve().is_relative_to(path):  # a link out of the run
        return None
    return path


def _list_runs(root: Path) -> list[str]:
    """The run names under ``root`` (blocking: file system)."""
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if run_dir(root, p.name) is not None)


def _lines(fh: Any) -> Any:
    """(line number, bytes or None when over :data:`MAX_LINE_BYTES`) of the non-blank lines."""
    n = 0
    while True:
        line = fh.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        n += 1
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):  # skip the rest of the long line
                line = fh.readline(MAX_LINE_BYTES)
            yield n, None
        elif line.strip():
            yield n, line


def _read_rows(path: Path, page: int = 1) -> tuple[list[dict[str, Any]], int, bool]:
    """Page ``page`` (:data:`PAGE_ROWS` lines) of a run's ``results.jsonl``: its rows, the
    count of unreadable lines on it, and whether more lines follow (blocking: file system)."""
    rows: list[dict[str, Any]] = []
    bad = 0
    skip = (page - 1) * PAGE_ROWS
    with (path / "results.jsonl").open("rb") as fh:
        for index, (n, line) in enumerate(_lines(fh)):
            if index < skip:
                continue
            if index >= skip + PAGE_ROWS:
                return rows, bad, True
            try:
                if line is None:
                    raise ValueError("line too long")
                rows.append(study_row(json.loads(line.decode("utf-8", "replace")), n))
            except (ValueError, TypeError, AttributeError, RecursionError):
                bad += 1
    return rows, bad, False


def _page(request: Request) -> int:
    raw = request.query_params.get("page", "1")
    return min(int(raw), MAX_PAGE) if raw.isdigit() and int(raw) >= 1 else 1


def _read_image(root: Path, run: str, rel: str) -> tuple[bytes, str] | None:
    """An image file inside run ``run`` and its media type; None for anything else, a path
    outside the run included (blocking: file system)."""
    path = run_dir(root, run)
    if path is None or rel.startswith("/") or "\\" in rel:
        return None
    target = (path / rel).resolve()
    media = IMAGE_TYPES.get(target.suffix.lower())
    if not target.is_relative_to(path) or media is None or not target.is_file():
        return None
    return target.read_bytes(), media


def _filters(request: Request) -> dict[str, str]:
    q = request.query_params
    return {k: q.get(k, "")[:200] for k in ("status", "dimension", "prompter", "backend")}


@router.get("/", response_class=HTMLResponse)
async def results_index(request: Request) -> Response:
    """Open a batch; list the study runs."""
    key = await ui_key(request)
    if key is None:
        return sign_in_redirect(request)
    root = runs_root(request)
    admin = is_admin(state_of(request.app).settings, key)
    runs = await asyncio.to_thread(_list_runs, root) if root is not None and admin else []
    batch = request.query_params.get("batch", "").strip().lower()
    if batch:
        return RedirectResponse(
            f"/ui/results/batches/{batch if is_batch_id(batch) else 'invalid'}",
            status_code=303,
            headers=SECURITY_HEADERS,
        )
    return render(
        request,
        "results_index.html",
        {"title": "Results", "runs": runs, "runs_configured": root is not None, "admin": admin},
    )


@router.get("/batches/{batch_id}", response_class=HTMLResponse)
async def batch_page(batch_id: str, request: Request) -> Response:
    """One scoring batch's results, filtered."""
    key = await ui_key(request)
    if key is None:
        return sign_in_redirect(request)
    await spend(request, key, poll=True)
    store = state_of(request.app).batches
    info = await store.info(batch_id, owner_tag(key)) if is_batch_id(batch_id) else None
    if info is None or info.status == "deleted":
        return error_page(
            request,
            404,
            "Batch not found",
            "No batch with this id (unknown, expired, deleted or submitted with another key).",
        )
    rows = []
    async for line in store.lines(batch_id, info.total):
        rows.append(batch_row(json.loads(line)))
        if len(rows) >= MAX_ROWS:
            break
    chosen = _filters(request)
    return render(
        request,
        "results_list.html",
        {
            "title": f"Batch {batch_id[:8]}",
            "heading": f"Batch {batch_id}",
            "summary": f"{info.status}: {info.done} done, {info.failed} failed of {info.total}",
            "rows": filter_rows(rows, chosen),
            "n_all": len(rows),
            "filters": chosen,
            "options": _options(rows),
            "kind": "batch",
        },
    )


def _admins_only(request: Request) -> Response:
    return error_page(
        request,
        403,
        "Admins only",
        "Study runs hold participants' prompts and images: sign in with an admin key "
        "(one of JUDGE_SERVE_ADMIN_KEYS) to see them.",
    )


def _options(rows: list[dict[str, Any]]) -> dict[str, list[str]]:
    return {
        "status": sorted({r["status"] for r in rows}),
        "dimension": dimensions_of(rows),
        "prompter": sorted({r["prompter"] for r in rows if r.get("prompter")}),
        "backend": sorted({r["backend"] for r in rows if r.get("backend")}),
    }


@router.get("/studies/{run}", response_class=HTMLResponse)
async def study_page(run: str, request: Request) -> Response:
    """One study run's results (a page of them), filtered; admins only."""
    key = await ui_key(request)
    if key is None:
        return sign_in_redirect(request)
    if not is_admin(state_of(request.app).settings, key):
        return _admins_only(request)
    root = runs_root(request)
    if root is None:
        return error_page(
            request,
            404,
            "No study runs",
            "This service shows study runs from the directory "
            "named by JUDGE_SERVE_STUDY_RUNS; it is not set.",
        )
    path = await asyncio.to_thread(run_dir, root, run)
    if path is None:
        return error_page(request, 404, "Run not found", "There is no study run of that name.")
    page = _page(request)
    rows, bad, more = await asyncio.to_thread(_read_rows, path, page)
    chosen = _filters(request)
    return render(
        request,
        "results_list.html",
        {
            "title": f"Study {run}",
            "heading": f"Study run {run}",
            "summary": f"{len(rows)} results"
            + (f" on page {page}" if page > 1 or more else "")
            + (f"; {bad} unreadable lines skipped" if bad else ""),
            "rows": filter_rows(rows, chosen),
            "n_all": len(rows),
            "filters": chosen,
            "options": _options(rows),
            "kind": "study",
            "run": run,
            "page": page,
            "more": more,
        },
    )


@router.get("/studies/{run}/files/{rel:path}")
async def study_file(run: str, rel: str, request: Request) -> Response:
    """An image of a study run (inside the run's folder only)."""
    root = runs_root(request)
    missing = error_page(request, 404, "Not found", "There is no such image in this run.")
    key = await ui_key(request)
    if root is None or key is None or not is_admin(state_of(request.app).settings, key):
        return missing
    found = await asyncio.to_thread(_read_image, root, run, rel)
    if found is None:
        return missing
    data, media = found
    headers = {**SECURITY_HEADERS, "Cache-Control": "private, max-age=300"}
    return Response(data, media_type=media, headers=headers)
