"""A scripted judge for the docs walk, whose verdicts are known by construction.

It grades an image by its size and the task's prompt: for most prompts the larger image gets
the higher grade, for some the smaller one, for some both the same (:func:`preference`), so a
report's win rates can be recomputed from the suite alone. The model name tells the judge's
calls from the from-posts stages.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
from collections.abc import Callable, Iterable
from typing import Any

from PIL import Image

from tests.fakes.provider.responder import default_answer, messages_text

JUDGE = "fake-judge"
LARGE = 256
"""Images at least this wide count as large."""


def preference(prompt: str) -> str:
    """Which size the judge prefers for ``prompt``: ``large``, ``small`` or ``tie``."""
    return ("small", "tie", "large", "large")[hashlib.sha256(prompt.encode()).digest()[0] % 4]


def is_judge_call(body: dict[str, Any]) -> bool:
    """A call the study's judge makes (not a from-posts stage)."""
    return JUDGE in str(body.get("model", "")) and "response_format" in body


def image_widths(body: dict[str, Any]) -> list[int]:
    """The widths of the images a call carries, decoded from their data URLs."""
    widths = []
    for m in body.get("messages") or []:
        for p in m.get("content") if isinstance(m.get("content"), list) else []:
            if isinstance(p, dict) and p.get("type") == "image_url":
                raw = base64.b64decode(p["image_url"]["url"].partition(",")[2])
                with Image.open(io.BytesIO(raw)) as img:
                    widths.append(img.width)
    return widths


def _regrade(value: Any, grade: int) -> Any:
    if isinstance(value, dict):
        return {k: grade if k == "score" and isinstance(v, int) else _regrade(v, grade)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_regrade(v, grade) for v in value]
    return value


def size_judge(prompts: Iterable[str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A reply for the fake provider: a schema-valid answer whose every integer ``score`` is 5
    for the preferred image of the prompt (among ``prompts``) the call carries, 4 otherwise
    (calls without an image or a prompt, such as the safety screen, keep the default answer).
    ``prompts`` may be filled after the rule is registered."""
    known = prompts

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        answer = json.loads(default_answer(body))
        widths = image_widths(body)
        if not widths:
            return answer
        text = messages_text(body)
        found = [p for p in known if p in text]
        if not found:  # the image safety screen: no prompt, no score
            return answer
        prompt = max(found, key=len)
        size = "large" if min(widths) >= LARGE else "small"
        return _regrade(answer, 5 if preference(prompt) in (size, "tie") else 4)

    return reply
