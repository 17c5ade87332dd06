"""Who judged a study run (plain and edit studies alike): recorded in ``study.json`` when the run
starts (``judge_info``, :mod:`judge.judged_by`), read back by the reports, and told from the
``[judge]`` section for a run folder written before it was recorded.

Example:
    >>> info = report_judge({"judge": {"model": "mock/judge", "panel": []},
    ...                      "judged_by": "this process"})
    >>> info["models"], info["made_up"]
    (['mock/judge'], True)
    >>> report_judge({"judged_by": "http://127.0.0.1:8080"})["backend"]
    'service'
"""

from __future__ import annotations

from typing import Any

from judge.config import JudgeSettings
from judge.judged_by import at_service, judged_by

LOCAL_JUDGE = "this process"
"""``judged_by`` of a run judged in the process that ran it (else the service's URL)."""


def record_judge(settings: JudgeSettings, where: str) -> dict[str, Any]:
    """``judge_info`` of a run judged ``where`` (:data:`LOCAL_JUDGE` or a URL) with
    ``settings`` (the study's judge settings)."""
    return judged_by(settings) if where == LOCAL_JUDGE else at_service(where)


def report_judge(meta: dict[str, Any]) -> dict[str, Any] | None:
    """Who judged the run whose ``study.json`` is ``meta``; None when it does not say."""
    info = meta.get("judge_info")
    if isinstance(info, dict):
        return info
    where = meta.get("judged_by", LOCAL_JUDGE)
    if where != LOCAL_JUDGE:
        return at_service(str(where))
    section = meta.get("judge")
    if not isinstance(section, dict):
        return None
    model, panel = section.get("model"), section.get("panel") or []
    backend = section.get("backend") or "auto"
    try:
        settings = JudgeSettings.model_validate(
            {"model": model, "panel": panel,
             "backend": backend if backend != "auto" else ("llm" if model or panel else "local")}
        )  # fmt: skip
    except ValueError:
        return None
    return judged_by(settings)
