"""Every error is JSON naming what went wrong: ``{"error": {"code", "field", "message"}}``.

Bad input is always a 4xx; the catch-all 500 exists only for bugs and says so. Every fault
of the request itself (a missing or unknown field, a wrong type, a value out of range, a bad
image) is ``400 invalid_input`` on every route, naming the field; ``422`` is kept for valid
requests refused by a configured limit (a probe's bounds and budget).

Example:
    >>> error_body("invalid_input", "images[0]: not readable", "images[0]")["error"]["field"]
    'images[0]'
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from judge.errors import ConfigError, InputError
from judge.io.pixel_budget import DecodeBusy
from judge.validation import as_input_error, problem_list

log = logging.getLogger("judge.api")


class ErrorDetail(BaseModel):
    """What went wrong and where."""

    code: str
    field: str | None = None
    message: str


class ErrorBody(BaseModel):
    """The body of every error response."""

    error: ErrorDetail


ERROR_RESPONSES: dict[int | str, dict] = {
    code: {"model": ErrorBody, "description": text}
    for code, text in [
        (400, "invalid input (the field is named)"),
        (401, "missing or wrong API key"),
        (413, "body too large"),
        (429, "rate limited"),
    ]
}
"""The error answers every route documents; a route that can refuse a valid request by a
limit adds :data:`LIMIT_RESPONSE`."""

CONFIG_RESPONSE: dict[int | str, dict] = {
    409: {"model": ErrorBody, "description": "the service is not set up to do this (e.g. "
          "no_judge_model: a request for the judge model of a service without one)"}
}  # fmt: skip
"""The answer of the routes that judge when the service cannot do what a valid request asks."""

LIMIT_RESPONSE: dict[int | str, dict] = {
    422: {"model": ErrorBody, "description": "a valid request refused by a limit (bounds, budget)"}
}


class TooLarge(HTTPException):
    """A body over the configured limit (raised while reading it)."""

    def __init__(self, limit: int):
        super().__init__(
            413, error_body("too_large", f"the request body is over {limit} bytes", "(body)")
        )


def error_body(code: str, message: str, field: str | None = None) -> dict:
    """The JSON shape of every error."""
    return {"error": {"code": code, "field": field, "message": message}}


def _loc(loc: tuple) -> str:
    parts = [str(p) for p in loc if p not in ("body",)]
    out = ""
    for p in parts:
        out += f"[{p}]" if p.isdigit() else (f".{p}" if out else p)
    return out or "(body)"


def validation_as_400(schema: dict) -> dict:
    """The OpenAPI document with FastAPI's automatic ``422 Validation Error`` answers
    described as what the service sends for them: ``400`` with the error body."""
    ref = {"$ref": "#/components/schemas/ErrorBody"}
    for ops in schema.get("paths", {}).values():
        for op in ops.values():
            responses = op.get("responses", {}) if isinstance(op, dict) else {}
            if (responses.get("422") or {}).get("description") == "Validation Error":
                del responses["422"]
                responses.setdefault(
                    "400",
                    {
                        "description": "invalid input (the field is named)",
                        "content": {"application/json": {"schema": ref}},
                    },
                )
    return schema


def install(app: FastAPI) -> None:
    """Register the handlers on ``app``."""

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        if not errors or any(e.get("type") == "json_invalid" for e in errors):
            named = InputError("(body)", "the body is not valid JSON")
        else:  # every fault, the likeliest first (judge.validation)
            named = as_input_error(problem_list(errors, loc=_loc))
        return JSONResponse(error_body("invalid_input", str(named), named.field), 400)

    @app.exception_handler(InputError)
    async def _input(request: Request, exc: InputError) -> JSONResponse:
        return JSONResponse(error_body("invalid_input", str(exc), exc.field), 400)

    @app.exception_handler(ConfigError)
    async def _config(request: Request, exc: ConfigError) -> JSONResponse:
        # the request is fine; the service is not set up to do it: 409, nothing to retry
        code = getattr(exc, "code", "not_configured")
        return JSONResponse(error_body(code, str(exc), getattr(exc, "field", None)), 409)

    @app.exception_handler(DecodeBusy)
    async def _busy(request: Request, exc: DecodeBusy) -> JSONResponse:
        return JSONResponse(error_body("busy", str(exc)), 503, headers={"Retry-After": "5"})

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if isinstance(exc.detail, dict):
            detail = exc.detail
        elif exc.status_code == 400:  # body parsing (bad JSON, bad encoding, too deep)
            detail = error_body("invalid_input", f"(body): {exc.detail}", "(body)")
        else:
            detail = error_body("http_error", str(exc.detail))
        return JSONResponse(detail, exc.status_code, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception) -> JSONResponse:
        rid = getattr(request.state, "request_id", "?")
        log.exception("unhandled error (request %s)", rid)
        return JSONResponse(
            error_body("internal_error", f"an internal error occurred; request id {rid}"), 500
        )
