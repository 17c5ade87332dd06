"""The call forms :class:`judge.Client` shares with ``judge.score``/``compare``/``edit``.

Moving a script from in-process judging to a service should not change its calls: the
clients take a prompt and images (paths, URLs, bytes or PIL images) with the same keyword
fields, or the request dict itself. Keyword settings (``skills=[...]``, ``retrieval=...``)
become the request's options, which the service checks.

Example:
    >>> score_request("a red cube", [], {"checklist": ["The cube is red."]})["task"]["category"]
    'CO'
    >>> score_request({"prompt": "p", "images": []}, (), {})["prompt"]
    'p'
    >>> split_fields({"criteria": ["alignment"], "skills": ["@avt"]}, COMPARE_FIELDS)
    ({'criteria': ['alignment']}, {'skills': ['@avt']})
"""

from __future__ import annotations

from typing import Any

from judge.errors import InputError

SCORE_FIELDS = ("checklist", "brief", "category", "target_image", "task_id", "id")
COMPARE_FIELDS = ("model_a", "model_b", "criteria", "brief", "prompt_id", "id")
EDIT_FIELDS = ("editor", "id")


def merged_options(options: dict[str, Any] | None, settings: dict[str, Any]) -> dict | None:
    """``options=`` and the keyword settings as one options object (None when empty)."""
    merged = {**(options or {}), **settings}
    return merged or None


def split_fields(given: dict[str, Any], fields: tuple[str, ...]) -> tuple[dict, dict]:
    """Keyword arguments as (request fields, settings)."""
    return ({k: v for k, v in given.items() if k in fields},
            {k: v for k, v in given.items() if k not in fields})


def score_request(first: dict[str, Any] | str, images: Any, fields: dict[str, Any]) -> dict:
    """A submission dict as given, or the one :func:`judge.score` builds from a prompt."""
    from judge.front import submission

    given = {k: v for k, v in fields.items() if v is not None}
    if isinstance(first, dict):
        if images or given:
            raise InputError("submission", "give a submission dict, or a prompt with its images "
                             "and fields, not both")
        return first
    if not isinstance(first, str):
        raise InputError("prompt", f"expected a prompt or a submission dict, got "
                         f"{type(first).__name__}")
    return submission(first, images, **given)


def compare_request(first: dict[str, Any] | str, image_a: Any, image_b: Any,
                    fields: dict[str, Any]) -> dict:
    """A comparison dict as given, or the one :func:`judge.compare` builds."""
    from judge.front import comparison

    if isinstance(first, dict):
        return first
    if image_a is None or image_b is None:
        raise InputError("comparison", "give both images: compare(prompt, image_a, image_b)")
    return comparison(first, image_a, image_b, **fields)


def edit_request(first: dict[str, Any] | str, source_image: Any, images: Any,
                 fields: dict[str, Any]) -> dict:
    """An edit dict as given (marked ``"mode": "edit"``), or the one :func:`judge.edit`
    builds."""
    from judge.front import edit_request as build

    if isinstance(first, dict):
        return {**first, "mode": "edit"}
    if source_image is None or images is None:
        raise InputError("edit", "give the source image and the edited image(s): "
                         "edit(instruction, source_image, images)")
    return build(first, source_image, images, **fields)
