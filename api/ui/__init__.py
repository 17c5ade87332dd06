"""The web UI: server-rendered Jinja2 pages under ``/ui/`` with local CSS/JS
(docs/design.md#the-web-ui).

Every page goes through :func:`render`, which escapes all template values (autoescape on for
every template) and sends the UI's security headers: a strict Content-Security-Policy (only
this origin's scripts, styles and images; no inline script; forms post only here; no
framing), ``nosniff``, ``same-origin`` referrers (so form posts carry an Origin the pages
check). Pages extend ``templates/base.html``.

Adding a page: a router module (``prefix="/ui/..."``, ``include_in_schema=False``; a section
with an index page takes :func:`page_router`) listed in ``api.app.ROUTERS``, beside its
subsystem's routes when the page belongs to one (``api/probes/pages.py``,
``api/studies/pages.py``), here when it spans several; a template that
``{% extends "base.html" %}`` and fills ``content`` (and ``head`` for an extra stylesheet or
script from ``static/``, ``nav`` for page-local links); :func:`add_nav_link` puts a section
in the main navigation; handlers return :func:`render` or :func:`error_page`. Static files go
in ``static/`` (``.css``, ``.js``, ``.svg``), served at ``/ui/static/<name>``; no inline
script or style (the CSP refuses them).

Example::

    from api.ui import render
    return render(request, "index.html", {"title": "Home"})
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from jinja2 import Environment, FileSystemLoader, StrictUndefined

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; connect-src 'self'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}

NAV_LINKS: list[tuple[str, str]] = []
"""(label, href) of the main navigation's sections, after the home link."""


def add_nav_link(label: str, href: str) -> None:
    """Show a section in every page's main navigation (once per href).

    Example:
        >>> add_nav_link("Example", "/ui/example/"); ("Example", "/ui/example/") in NAV_LINKS
        True
        >>> NAV_LINKS.remove(("Example", "/ui/example/"))
    """
    if all(h != href for _, h in NAV_LINKS):
        NAV_LINKS.append((label, href))


_ENV = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def page_router(prefix: str) -> APIRouter:
    """The router of a UI section under ``prefix``, kept out of the OpenAPI document, whose
    address without the final slash sends the browser on to the index page (308 to
    ``prefix/``).

    Example:
        >>> [(r.path, r.name) for r in page_router("/ui/example").routes]
        [('/ui/example', 'section_root')]
    """
    router = APIRouter(prefix=prefix, include_in_schema=False)

    @router.get("", response_class=RedirectResponse)
    async def section_root() -> RedirectResponse:
        return RedirectResponse(f"{prefix}/", status_code=308)

    return router


def render(
    request: Request, template: str, context: dict[str, Any] | None = None, status: int = 200
) -> HTMLResponse:
    """A page from ``template`` with the UI's security headers."""
    html = _ENV.get_template(template).render(
        request_path=request.url.path, nav_links=NAV_LINKS, **(context or {})
    )
    # stored text may hold a lone surrogate (not encodable): show it escaped, never fail
    body = html.encode("utf-8", "backslashreplace")
    return HTMLResponse(body, status_code=status, headers=SECURITY_HEADERS)


def error_page(request: Request, status: int, title: str, message: str) -> HTMLResponse:
    """A friendly error page (the same message an API client would get as JSON)."""
    return render(request, "error.html", {"title": title, "message": message}, status)
