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

from collections.abc import Sequence
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
    if isinstance(first, dict):
        return first
    if image_a is None or image_b is None:
        raise InputError("comparison", "give both images: compare(prompt, image_a, image_b)")
    return comparison(first, image_a, image_b, **fields)


def edit_request(first: dict[str, Any] | str, source_image: Any, images: Any,
                 fields: dict[str, Any]) -> dict:
    """An edit dict as given (marked ``"mode": "edit"``), or the one :func:`edit_form`
    builds."""
    if isinstance(first, dict):
        return {**first, "mode": "edit"}
    if source_image is None or images is None:
        raise InputError("edit", "give the source image and the edited image(s): "
                         "edit(instruction, source_image, images)")
    return edit_form(first, source_image, images, **fields)


def checkpoint(item: Any, index: int) -> dict[str, Any]:
    """One checklist entry as a checkpoint dict. A plain string is an image check filed
    under the primitive ``hard_constraint``; a dict or :class:`Checkpoint` is kept as is
    (its ``id`` defaults to ``c<n>``)."""
    from judge.domain.task import Checkpoint, Primitive

    if isinstance(item, Checkpoint):
        return item.model_dump(mode="json", exclude_none=True)
    if isinstance(item, str):
        return {"id": f"c{index + 1}", "primitive": Primitive.hard_constraint.value,
                "image_check": item}
    if isinstance(item, dict):
        return {"id": f"c{index + 1}", **item}
    raise InputError(f"checklist[{index}]", "expected a string, a dict or a Checkpoint")


def submission(
    prompt: str,
    images: Any = (),
    *,
    checklist: Sequence[Any] | None = None,
    brief: str | None = None,
    category: str | None = None,
    target_image: Any = None,
    task_id: str = "task",
    id: str | None = None,
) -> dict[str, Any]:
    """The Submission dict :func:`judge.score` sends. ``category`` defaults to ``IM`` with a
    ``target_image``, ``CO`` with a checklist, else ``OE``; ``brief`` defaults to the prompt."""
    from judge.io.refs import image_ref, image_refs

    items = [checkpoint(c, i) for i, c in enumerate(listed(checklist, "checklist") or [])]
    cat = category or ("IM" if target_image is not None else "CO" if items else "OE")
    task = {"id": task_id, "category": cat, "brief": prompt if brief is None else brief,
            "checklist": items}
    if target_image is not None:
        task["target_image"] = image_ref(target_image, "task.target_image")
    sub: dict[str, Any] = {"task": task, "prompt": prompt, "images": image_refs(images)}
    if id:
        sub["id"] = id
    return sub


def listed(value: Sequence[Any] | None, field: str) -> Sequence[Any] | None:
    """``value`` when it is a list (or None); one string is refused, as iterating it would
    make one item of every character.

    Example:
        >>> listed(["The cube is red."], "checklist")
        ['The cube is red.']
        >>> try:
        ...     listed("The cube is red.", "checklist")
        ... except InputError as exc:
        ...     print(exc)
        checklist: expected a list, got one string: pass ['The cube is red.']
    """
    if isinstance(value, str):
        raise InputError(field, f"expected a list, got one string: pass [{value[:80]!r}]")
    return value


def comparison(prompt: str, image_a: Any, image_b: Any, *, model_a: str | None = None,
               model_b: str | None = None, criteria: Sequence[str] | None = None,
               brief: str | None = None, prompt_id: str | None = None,
               id: str | None = None) -> dict[str, Any]:
    """The Comparison dict :func:`judge.compare` sends."""
    from judge.io.refs import image_ref

    data: dict[str, Any] = {
        "prompt": prompt, "brief": brief, "id": id, "prompt_id": prompt_id,
        "a": {"image": image_ref(image_a, "a.image"), "model": model_a},
        "b": {"image": image_ref(image_b, "b.image"), "model": model_b},
    }
    if criteria:
        data["criteria"] = list(listed(criteria, "criteria") or [])
    return data


def edit_form(instruction: str, source_image: Any, images: Any, *,
                 editor: str | None = None, id: str | None = None) -> dict[str, Any]:
    """The edit request dict :func:`judge.edit` sends."""
    from judge.io.refs import image_ref, image_refs

    return {"mode": "edit", "instruction": instruction, "id": id, "editor": editor,
            "source_image": image_ref(source_image, "source_image"),
            "images": image_refs(images)}
