"""Judging under a trust policy: run the policy's judges in order, each only where the one
before it was not sure enough, and mark every answer (docs/trust.md, "Trust at run time").

Each stage of a policy names the judge it was calibrated for (its fingerprint). A stage runs
with the caller's settings and the stage's **judge**: its models, its confidence method and
the options that go with it (``temperature``, ``confidence_*``). Every other option that
changes results (backend, batching, retrieval, calibration, image sizes, ...) must already be
what the stage was calibrated with: :func:`stage_overrides` checks, before any model call, that
the settings would reproduce the stage's fingerprint, and refuses (:class:`TrustMismatch`,
naming both judges) when not.

:func:`cascade` judges one request: stage 1, then stage 2 when an answer of stage 1 was
not trusted and stage 2 may decide its kind, and so on; the result is stage 1's, marked by
:func:`judge.trust.apply.apply_stages` (a later stage's answer where it decided), with
``usage.stages`` giving each stage's decisions, calls and cost when the policy has several.

The engine runs it for a request checked with a policy (``Judge(trust=...)``, ``trust=`` on a
call, ``options.trust`` on the service).

Example::

    result = await Judge(model="mock/judge", trust="policy.json").ascore(submission)
    [i.trusted for i in result.objective["image"].items]
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from judge.config import JudgeSettings
from judge.trust.apply import apply_stages
from judge.trust.errors import TrustMismatch
from judge.trust.fingerprint import Fingerprint, Scalar
from judge.trust.items import trust_items
from judge.trust.policy import Stage, TrustPolicy

JUDGE_OPTIONS = ("temperature", "confidence_temperature", "confidence_memory", "confidence_shots")
"""Options a stage sets (with its models and confidence method): they make the judge."""
LOCAL_MODEL = "local"


def settings_fingerprint(settings: JudgeSettings) -> Fingerprint:
    """The fingerprint results judged with ``settings`` will carry."""
    local = settings.resolved_backend() != "llm"
    options = {k: v for k, v in settings.public_options().items() if isinstance(v, Scalar)}
    return Fingerprint(
        judge_models=[LOCAL_MODEL] if local else settings.models(),
        confidence=settings.confidence,
        options=options,
    )


def _judge_overrides(stage: Stage) -> dict[str, Any]:
    fp = stage.fingerprint
    out: dict[str, Any] = {k: fp.options[k] for k in JUDGE_OPTIONS if k in fp.options}
    out["confidence"] = fp.confidence
    if fp.judge_models != [LOCAL_MODEL]:
        if len(fp.judge_models) == 1:
            out["model"], out["panel"] = fp.judge_models[0], []
        else:
            out["panel"] = list(fp.judge_models)
    return out


def stage_overrides(settings: JudgeSettings, policy: TrustPolicy) -> list[dict[str, Any]]:
    """Per stage, the setting overrides that make ``settings`` its judge; a
    :class:`TrustMismatch` naming both judges when another option differs."""
    out = []
    for k, stage in enumerate(policy.stages):
        overrides = _judge_overrides(stage)
        got = settings_fingerprint(settings.merged(**overrides).model_copy(
            update={"panel": overrides["panel"]} if "panel" in overrides else {}))  # fmt: skip
        if got.digest != stage.fingerprint.digest:
            differ = sorted(
                key
                for key in set(got.options) | set(stage.fingerprint.options)
                if got.options.get(key) != stage.fingerprint.options.get(key)
            )
            named = f" (options that differ: {', '.join(differ)})" if differ else ""
            raise TrustMismatch(
                f"trust policy stage {k + 1} ({stage.name}) was calibrated for "
                f"{stage.fingerprint.describe()}; this judge would run {got.describe()}{named}: "
                "use the settings it was calibrated with, or calibrate a policy for these"
            )
        out.append(overrides)
    return out


def _escalated(marked: dict[str, Any]) -> int:
    return sum(1 for i in trust_items(marked) if i.node.get("escalate"))


async def cascade(
    run_stage: Callable[[dict[str, Any]], Awaitable[Any]],
    settings: JudgeSettings,
    policy: TrustPolicy,
) -> Any:
    """Run ``run_stage(overrides)`` once per stage while a later stage may still decide an
    answer (see the module); ``settings``: the caller's, checked against every stage first.
    Returns the first stage's result model, marked."""
    stages = stage_overrides(settings, policy)
    raw: list[Any] = []
    asked: list[int] = []
    marked: dict[str, Any] = {}
    for k, stage in enumerate(stages):
        result = await run_stage(stage)
        raw.append(result)
        if k == 0:
            asked.append(len(trust_items(result.to_dict())))
        marked = apply_stages([r.to_dict() for r in raw], policy)
        waiting = _escalated(marked)
        if getattr(result, "status", None) == "blocked" or k + 1 == len(stages) or not waiting:
            break
        asked.append(waiting)
    if len(policy.stages) > 1:
        marked.setdefault("usage", {})["stages"] = [
            {"name": policy.stages[k].name, "decisions": asked[k],
             "llm_calls": r.usage.llm_calls, "cost_usd": round(r.usage.cost_usd, 6)}
            for k, r in enumerate(raw)
        ]  # fmt: skip
    return type(raw[0]).model_validate(marked)
