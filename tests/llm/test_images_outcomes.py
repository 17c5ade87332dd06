"""Provider errors → generation status, on litellm's own exception classes as providers raise
them (messages in the shapes OpenAI, Azure and Vertex use)."""

from __future__ import annotations

import httpx
import litellm
import pytest

from eval.t2i import Generation
from eval.t2i.outcomes import classify


def bad_request(message: str, body: dict | None = None) -> litellm.BadRequestError:
    exc = litellm.BadRequestError(message, "m", "openai")
    exc.body = body
    return exc


@pytest.mark.parametrize(
    ("exc", "status", "needle"),
    [
        (litellm.ContentPolicyViolationError("prompt rejected", "m", "openai"), "refused",
         "prompt rejected"),
        (bad_request("rejected", {"message": "Your request was rejected by the safety system.",
                                  "code": "moderation_blocked"}), "blocked", "moderation_blocked"),
        (bad_request("Image generation failed: all images were filtered out (raiFilteredReason)"),
         "blocked", "filtered"),
        (bad_request("This prompt violates our usage policy."), "refused", "usage policy"),
        (bad_request("size must be one of 1024x1024, 1792x1024"), "failed", "size must be"),
        (litellm.AuthenticationError("bad key", "openai", "m"), "failed", "api_key_env"),
        (litellm.InternalServerError("safety system overloaded", "openai", "m"), "failed",
         "safety system overloaded"),
    ],
)  # fmt: skip
def test_classify(exc: Exception, status: str, needle: str) -> None:
    got, reason = classify(exc, "b", "m")
    assert got == status and needle in reason


def test_unreachable_server_names_api_base() -> None:
    cause = httpx.ConnectError("[Errno 111] Connection refused")
    exc = litellm.APIConnectionError("Connection error.", "openai", "m")
    exc.__cause__ = cause
    status, reason = classify(exc, "local", "openai/sdxl")
    assert status == "failed" and "connection refused" in reason and "api_base" in reason


def test_generation_json_carries_images_as_base64() -> None:
    g = Generation(status="ok", images=[b"\x89PNG\r\n"], usage={"calls": 1})
    again = Generation.model_validate_json(g.model_dump_json())
    assert again.images == [b"\x89PNG\r\n"] and '"iVBORw0K"' in g.model_dump_json()
