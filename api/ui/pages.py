"""The UI's home page and its static files (``/ui/static/<name>``, a fixed set, no listing).

Example::

    GET /ui/              → the home page
    GET /ui/static/ui.css → the stylesheet every page loads
"""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import HTMLResponse, Response

from api.ui import SECURITY_HEADERS, STATIC, error_page, page_router, render

router = page_router("/ui")
TYPES = {
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}
#: the committed static files, read once at import (never on a request's event loop)
FILES = {p.name: (p.read_bytes(), TYPES[p.suffix]) for p in STATIC.iterdir() if p.suffix in TYPES}


@router.get("/", response_class=HTMLResponse)
async def home(request: Request) -> HTMLResponse:
    """What the UI offers."""
    return render(request, "index.html", {"title": "Judge"})


@router.get("/static/{name}")
async def static(name: str, request: Request) -> Response:
    """One of the committed static files."""
    found = FILES.get(name)
    if found is None:
        return error_page(request, 404, "Not found", "There is no such file.")
    headers = {**SECURITY_HEADERS, "Cache-Control": "public, max-age=300"}
    return Response(found[0], media_type=found[1], headers=headers)
