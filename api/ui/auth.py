"""Who is using the UI's probe and results pages: an API key kept in an HttpOnly cookie.

A browser cannot send ``Authorization`` on a link, so the pages ask once for a key of
``JUDGE_SERVE_API_KEYS`` / ``JUDGE_SERVE_ADMIN_KEYS`` (``/ui/key``) and keep it in an HttpOnly,
SameSite=Strict cookie scoped to ``/ui`` — page scripts never see it and no page ever prints
it. Without configured keys the UI acts as the anonymous caller, as the API does. Wrong keys
count towards the same throttle as the API's, whether typed in the form or sent in the
cookie (:mod:`api.core.secret_throttle`). Forms and the pages' JSON posts
must come from this origin (:func:`same_origin`).

Example::

    key = await ui_key(request)          # None → send the browser to sign_in_redirect(request)
    GET  /ui/key?next=/ui/probes/       → the key form
    POST /ui/key                        key=...&next=/ui/probes/
    POST /ui/key/forget                 → the cookie is dropped
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from api.core.deps import ANONYMOUS, key_variables, known_key
from api.core.limits import charge
from api.core.request_guard import host_allowed
from api.core.request_guard import same_origin as origin_matches
from api.core.secret_throttle import check_secret
from api.core.settings import ServiceSettings
from api.state import state_of
from api.ui import SECURITY_HEADERS, error_page, render

router = APIRouter(prefix="/ui/key", include_in_schema=False)
COOKIE = "judge_ui_key"


def _known(settings: ServiceSettings) -> Callable[[str], bool]:
    return lambda given: known_key(settings, given)


async def ui_key(request: Request) -> str | None:
    """The UI caller's key ("anonymous" when the service has no keys), or None to sign in.
    A wrong key in the cookie counts as a failed authentication (the API's throttle)."""
    settings = state_of(request.app).settings
    if not settings.auth_required:
        return ANONYMOUS
    given = request.cookies.get(COOKIE)
    ok = await check_secret(request, "api-key", given, _known(settings), count_missing=False)
    return given if ok else None


async def spend(request: Request, key: str, *, poll: bool = False) -> None:
    """Charge one unit of the key's rate limit, as the API route would (429 when over);
    ``poll`` uses the larger polling budget (page views, status polls)."""
    state = state_of(request.app)
    settings, redis, clock = state.settings, state.redis, state.clock
    if poll:
        await charge(redis, key, settings.poll_limit, bucket="poll", clock=clock)
    else:
        await charge(redis, key, settings.rate_limit_per_minute, clock=clock)


def same_origin(request: Request) -> bool:
    """True when a POST comes from this site: Origin equal to Host (or absent), and Host one
    this service answers for (:func:`api.core.request_guard.host_allowed`), so a spoofed Host
    (DNS rebinding) does not make a foreign page "same origin"."""
    host = request.headers.get("host")
    settings = state_of(request.app).settings
    return host_allowed(settings, host) and origin_matches(request.headers.get("origin"), host)


def refused_cross_site(request: Request) -> HTMLResponse:
    """The 403 page a form gets when it was not sent from this site (:func:`same_origin`)."""
    return error_page(request, 403, "Refused", "This form must be sent from this site.")


def safe_next(value: object) -> str:
    """A UI path to go back to after signing in (anything else → the UI's home).

    Example:
        >>> safe_next("/ui/probes/"), safe_next("//evil.example/"), safe_next("https://x/")
        ('/ui/probes/', '/ui/', '/ui/')
    """
    if isinstance(value, str) and value.startswith("/ui/") and len(value) <= 512:
        return value if "\\" not in value else "/ui/"
    return "/ui/"


def sign_in_redirect(request: Request) -> RedirectResponse:
    """Send the browser to the key form, coming back to this page afterwards."""
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(
        f"/ui/key?next={quote(safe_next(target))}", status_code=303, headers=SECURITY_HEADERS
    )


@router.get("", response_class=HTMLResponse)
async def key_form(request: Request) -> Response:
    """The key form."""
    nxt = safe_next(request.query_params.get("next"))
    signed_in = await ui_key(request) is not None
    return render(
        request,
        "key.html",
        {"title": "Sign in", "next": nxt, "error": None, "signed_in": signed_in},
    )


@router.post("", response_class=HTMLResponse)
async def key_submit(request: Request) -> Response:
    """Check a key and remember it in this browser (HttpOnly cookie for ``/ui``)."""
    if not same_origin(request):
        return refused_cross_site(request)
    settings = state_of(request.app).settings
    form = await request.form()
    nxt = safe_next(form.get("next"))
    given = form.get("key")
    given = given.strip() if isinstance(given, str) else ""
    ok = not settings.auth_required or await check_secret(
        request, "api-key", given, _known(settings), count_missing=True
    )
    if not ok:
        context = {
            "title": "Sign in",
            "next": nxt,
            "signed_in": False,
            "error": f"That key is not one of this service's keys ({key_variables(settings)}); "
            "check it.",
        }
        return render(request, "key.html", context, 401)
    response = RedirectResponse(nxt, status_code=303, headers=SECURITY_HEADERS)
    if settings.auth_required:
        response.set_cookie(
            COOKIE,
            given,
            httponly=True,
            samesite="strict",
            path="/ui",
            secure=request.url.scheme == "https",
            max_age=12 * 3600,
        )
    return response


@router.post("/forget", response_class=HTMLResponse)
async def key_forget(request: Request) -> Response:
    """Forget the key in this browser."""
    if not same_origin(request):
        return refused_cross_site(request)
    response = RedirectResponse("/ui/key", status_code=303, headers=SECURITY_HEADERS)
    response.delete_cookie(COOKIE, path="/ui")
    return response
