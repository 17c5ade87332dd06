"""One-call judging from Python: ``judge.score``, ``judge.compare``, ``judge.edit``.

Each function builds the request from plain arguments, runs it through a :class:`Judge`
kept for these settings (one per distinct set of settings, so the response cache and the
warm engine are reused across calls), and returns the mode's result model, which has
``to_dict()`` (the JSON the CLI prints) and ``to_row()`` (one flat dict for a dataframe).

Images are paths, https URLs, ``data:`` URLs, bytes or PIL images. Settings are keyword
arguments named like ``JudgeSettings`` fields (``model``, ``api_base``, ``api_key``,
``backend``, ``skills``, ``panel``, ...); without a model the local backend judges.

Example:
    >>> r = score("a red cube on a white table", [], checklist=["The cube is red."],
    ...           backend="local")
    >>> r.status, r.to_row()["objective.image.total"]
    ('partial', 1)
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from judge.client_forms import compare_request, edit_request, score_request

if TYPE_CHECKING:  # the engine's modules load on first use: ``import judge`` stays cheap
    from judge.domain.result import Result

_JUDGES: dict[str, Any] = {}
_LOCK = threading.Lock()


def _judge(settings: dict[str, Any]) -> Any:
    """The :class:`Judge` for these settings, built once per process."""
    from judge.config import JudgeSettings, check_setting_names
    from judge.engine import Judge

    check_setting_names(settings, "this call")
    key = repr(sorted((k, repr(v)) for k, v in settings.items()))
    with _LOCK:
        if key not in _JUDGES:
            _JUDGES[key] = Judge(JudgeSettings().merged(**settings) if settings else None)
        return _JUDGES[key]


def _run(coro: Any) -> Any:
    """Run a coroutine from sync code, also when the caller already runs an event loop
    (a notebook): then in a worker thread with its own loop. Either loop is uvloop's, as in
    the service (:mod:`judge.event_loop`)."""
    from judge import event_loop

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return event_loop.run(coro)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = event_loop.run(coro)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=target)
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _with_remote(refs: list[str], settings: dict[str, Any]) -> dict[str, Any]:
    """URL images are fetched (https, public addresses only) when the caller passes them."""
    from judge.io.refs import any_remote

    if any_remote(refs):
        settings = {"allow_remote_images": True, **settings}
    return settings


async def ascore(
    prompt: str | dict[str, Any],
    images: Any = (),
    *,
    checklist: Sequence[Any] | None = None,
    brief: str | None = None,
    category: str | None = None,
    target_image: Any = None,
    task_id: str | None = None,
    id: str | None = None,
    **settings: Any,
) -> Result:
    """Score a prompt and its images, or a submission dict (async). See :func:`score`."""
    sub = score_request(
        prompt,
        images,
        {
            "checklist": checklist,
            "brief": brief,
            "category": category,
            "target_image": target_image,
            "task_id": task_id,
            "id": id,
        },
    )
    refs = [*sub.get("images", []), (sub.get("task") or {}).get("target_image") or ""]
    trust = settings.pop("trust", None)
    return await _judge(_with_remote(refs, settings)).ascore(sub, trust=trust)


def score(
    prompt: str | dict[str, Any],
    images: Any = (),
    *,
    checklist: Sequence[Any] | None = None,
    brief: str | None = None,
    category: str | None = None,
    target_image: Any = None,
    task_id: str | None = None,
    id: str | None = None,
    **settings: Any,
) -> Result:
    """Score a prompt and the images generated from it.

    Args:
        prompt: the prompt given to the image model (or a whole submission dict, as
            ``judge.Client(url).score`` takes too; then no images or fields beside it).
        images: one image or a list (best-of-n): paths, URLs, bytes or PIL images; empty
            scores the prompt alone.
        checklist: checks; a string is an image check (primitive ``hard_constraint``), a
            dict names its ``primitive`` and ``prompt_check``/``image_check``.
        brief: the task the prompt answers (default: the prompt itself).
        category: ``OE``, ``CO`` or ``IM`` (default from the other arguments).
        target_image: the image to imitate (``IM`` tasks).
        **settings: judge settings, e.g. ``model="openai/gpt-4o"``, ``api_key=...``,
            ``skills=["@avt"]``, ``backend="local"``; ``model="mock/judge"`` tries the
            pipeline with made-up answers.
            ``trust="policy.json"`` (or a ``TrustPolicy``) judges under a trust policy: every
            answer gets ``trusted`` (docs/trust.md).

    Returns:
        The Result: ``.status``, ``.objective``, ``.subjective``, ``.to_row()``, ``.to_dict()``.

    Example:
        >>> import judge
        >>> r = judge.score("a red cube", [], model="mock/judge")
        >>> r.status, r.provenance.judge_models
        ('scored', ['mock/judge'])
    """
    return _run(
        ascore(
            prompt,
            images,
            checklist=checklist,
            brief=brief,
            category=category,
            target_image=target_image,
            task_id=task_id,
            id=id,
            **settings,
        )
    )


def compare(
    prompt: str | dict[str, Any],
    image_a: Any = None,
    image_b: Any = None,
    *,
    model_a: str | None = None,
    model_b: str | None = None,
    criteria: Sequence[str] | None = None,
    brief: str | None = None,
    prompt_id: str | None = None,
    id: str | None = None,
    **settings: Any,
) -> Any:
    """Which of two images of one prompt is better, criterion by criterion (asked in both
    orders; a winner needs both to agree). Returns a ComparisonResult with ``to_row()``,
    ``to_dict()`` and ``votes()`` (rows for :func:`judge.leaderboard`).

    Example:
        >>> from PIL import Image
        >>> red, blue = Image.new("RGB", (64, 64), "red"), Image.new("RGB", (64, 64), "blue")
        >>> r = compare("a red square", red, blue, model="mock/judge", criteria=["alignment"])
        >>> r.to_row()["criteria.alignment.winner"] in ("a", "b", "tie")
        True
    """
    data = compare_request(
        prompt,
        image_a,
        image_b,
        {
            "model_a": model_a,
            "model_b": model_b,
            "criteria": criteria,
            "brief": brief,
            "prompt_id": prompt_id,
            "id": id,
        },
    )
    refs = [(data.get(side) or {}).get("image") or "" for side in ("a", "b")]
    trust = settings.pop("trust", None)
    return _run(_judge(_with_remote(refs, settings)).acompare(data, trust=trust))


def edit(
    instruction: str | dict[str, Any],
    source_image: Any = None,
    images: Any = None,
    *,
    editor: str | None = None,
    id: str | None = None,
    **settings: Any,
) -> Any:
    """Judge an image edit: instruction following, consistency with the source, visual
    quality, success at the threshold, and the local shift metrics. Returns an EditResult
    with ``to_row()`` and ``to_dict()``.

    Example:
        >>> from PIL import Image
        >>> src = Image.new("RGB", (96, 96), "white")
        >>> r = edit("Make it yellow.", src, [Image.new("RGB", (96, 96), "yellow")],
        ...          backend="local")
        >>> r.to_row()["metrics.color_shift"] is None   # a colour change was asked for
        True
    """
    data = edit_request(instruction, source_image, images, {"editor": editor, "id": id})
    refs = [*(data.get("images") or []), data.get("source_image") or ""]
    return _run(_judge(_with_remote(refs, settings)).arun_request(data, mode="edit"))
