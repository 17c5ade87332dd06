"""Who judged: the judge model(s), or the local backend and its estimator, in one record every
report and the service's start log share, so a figure is never read without its judge.

``judged_by(settings)`` describes a judge in this process; ``at_service(url)`` one that judged
through a service. ``judged_by_text`` says it in one sentence, and ``markdown_lines`` adds, for
``mock/judge``, that its numbers are made up (a report puts them beside published baselines).

Example:
    >>> from judge.config import JudgeSettings
    >>> info = judged_by(JudgeSettings(model="mock/judge"))
    >>> info["backend"], info["models"], info["made_up"]
    ('llm', ['mock/judge'], True)
    >>> judged_by_text(judged_by(JudgeSettings(model="openai/gpt-4o")))
    'the judge model openai/gpt-4o'
    >>> print(markdown_lines(info)[3])  # doctest: +ELLIPSIS
    > **Made-up numbers:** mock/judge is the mock model: ...
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from judge.llm.mock import is_mock

if TYPE_CHECKING:
    from judge.config import JudgeSettings

MADE_UP = (
    "mock/judge is the mock model: its scores are picked from a hash of the request, not "
    "judged, so every judge figure here is made up and means nothing (it shows the shape of "
    "the output only); never compare them with the human labels' or the published figures"
)


def local_estimator() -> str:
    """The local backend's per-dimension predictor as its settings make it
    (``JUDGE_LOCAL_SELECTION``, ``JUDGE_LOCAL_MEMBERS``, ``JUDGE_LOCAL_WEIGHTS``).

    Example:
        >>> local_estimator()  # with none of them set
        'stack over memory, prompt, quality, prototype, sibling (equal weights)'
    """
    from skills.local.settings import member_filter, strategy, weighting

    try:
        return f"{strategy()} over {', '.join(member_filter())} ({weighting()} weights)"
    except ValueError as exc:  # a bad switch: the run itself says so; the report names it
        return f"unreadable settings ({exc})"


def judged_by(settings: JudgeSettings) -> dict[str, Any]:
    """``{"backend": "llm"|"local", "models", "estimator", "made_up"}`` for ``settings``."""
    if settings.resolved_backend() == "llm":
        models = settings.models()
        return {"backend": "llm", "models": models, "estimator": None,
                "made_up": any(is_mock(m) for m in models)}  # fmt: skip
    return {"backend": "local", "models": [], "estimator": local_estimator(), "made_up": False}


def at_service(url: str) -> dict[str, Any]:
    """A judge reached through the service at ``url`` (its settings are the service's).

    Example:
        >>> judged_by_text(at_service("http://127.0.0.1:8080"))
        "the service at http://127.0.0.1:8080 (its own judge: the service's start log names it)"
    """
    return {"backend": "service", "url": url, "models": [], "estimator": None, "made_up": False}


def judged_by_text(info: dict[str, Any]) -> str:
    """One sentence naming the judge of ``info`` (see :func:`judged_by`)."""
    models = info.get("models") or []
    if info.get("backend") == "service":
        return f"the service at {info['url']} (its own judge: the service's start log names it)"
    if info.get("backend") == "local":
        return ("the local backend (no judge model; per-dimension predictor: "
                f"{info.get('estimator')})")  # fmt: skip
    if not models:
        return "no judge model (the llm backend without a model)"
    if len(models) == 1:
        return f"the judge model {models[0]}"
    return f"a panel of {len(models)} judge models: {', '.join(models)}"


def markdown_lines(info: dict[str, Any] | None) -> list[str]:
    """The report's lines (a paragraph of their own): who judged, and a warning when the
    numbers are made up; nothing for a report that does not know (an older run)."""
    if not info:
        return []
    out = ["", f"Judged by {judged_by_text(info)}."]
    if info.get("made_up"):
        out += ["", f"> **Made-up numbers:** {MADE_UP}."]
    return out
