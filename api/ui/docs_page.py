"""``GET /docs``: the API reference as a plain page of this service, with no script at all.

FastAPI's own ``/docs`` (Swagger UI) and ``/redoc`` load unpinned scripts from a CDN on the
service's origin — the origin whose ``/ui`` cookie holds the UI key (issue 22, finding 14).
No Python package here ships those assets, so this page lists the routes of
``/openapi.json`` server-side (method, path, summary, description) under the UI's strict
Content-Security-Policy; ``/openapi.json`` stays for tools, and ``/redoc`` is off.

Example::

    GET /docs          → every route with its summary, rendered from the OpenAPI schema
    GET /openapi.json  → the schema itself
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from api.ui import render

router = APIRouter(include_in_schema=False)
METHODS = ("get", "post", "put", "patch", "delete")


def operations(schema: dict[str, Any]) -> list[dict[str, str]]:
    """One row per (path, method) of an OpenAPI schema, in path order.

    Example:
        >>> operations({"paths": {"/v1/x": {"post": {"summary": "Do x"}}}})
        [{'method': 'POST', 'path': '/v1/x', 'summary': 'Do x', 'description': ''}]
    """
    rows = []
    for path, item in sorted(schema.get("paths", {}).items()):
        for method in METHODS:
            op = item.get(method)
            if isinstance(op, dict):
                rows.append(
                    {
                        "method": method.upper(),
                        "path": path,
                        "summary": str(op.get("summary") or ""),
                        "description": str(op.get("description") or "").strip(),
                    }
                )
    return rows


@router.get("/docs", response_class=HTMLResponse)
async def docs(request: Request) -> HTMLResponse:
    """The API reference (no scripts; the schema is at /openapi.json)."""
    rows = operations(request.app.openapi())
    return render(request, "docs.html", {"title": "API reference", "operations": rows})
