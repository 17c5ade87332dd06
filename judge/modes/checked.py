"""A checked request: parsed, its settings merged and its mode's checks passed, once.

The engine runs a :class:`CheckedRequest` without validating it again
(:meth:`judge.engine.Judge.arun_checked`); the service builds one per request on its one
validation path (:func:`api.judging.requests.check_body`), and ``Judge.score``/``Judge.prepare``
build one from Python input through :meth:`judge.engine.Judge.check`.

Example:
    >>> from judge.config import JudgeSettings
    >>> from judge.modes import get_mode
    >>> from skills.registry import default_registry
    >>> mode = get_mode("score")
    >>> req = mode.parse({"task": {"id": "t", "category": "OE", "brief": "b"}, "prompt": "p"})
    >>> registry = default_registry()
    >>> checked = check_request(mode, req, {"retrieval": "none"}, JudgeSettings(), registry)
    >>> checked.settings.retrieval
    'none'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from judge.modes.base import Mode

if TYPE_CHECKING:
    from judge.config import JudgeSettings
    from judge.trust.policy import TrustPolicy
    from skills.registry import SkillRegistry


@dataclass(frozen=True)
class CheckedRequest:
    """A request its mode accepted, with the settings it runs under (the judge's settings
    merged with ``overrides``)."""

    mode: Mode
    request: BaseModel
    settings: JudgeSettings
    overrides: dict[str, Any]
    trust: TrustPolicy | None = None
    """a trust policy to judge under (its judges in order, answers marked; docs/trust.md)"""
    wrapper: str | None = None
    """the key the request came under (``submission``), or None when it came bare: a fault
    found while judging (an unreadable image) is named under it, as the client wrote it"""


def check_request(
    mode: Mode,
    request: BaseModel,
    overrides: dict[str, Any],
    base: JudgeSettings,
    registry: SkillRegistry,
) -> CheckedRequest:
    """Merge ``overrides`` into ``base`` and run ``mode``'s checks (unknown cards, criteria);
    raise :class:`~judge.errors.InputError` naming the field as the mode knows it."""
    settings = base.merged(**overrides) if overrides else base
    mode.check(request, registry, settings)
    if settings.confidence is not None:
        check_confidence(mode.name, settings)
    return CheckedRequest(mode, request, settings, dict(overrides))


def check_confidence(mode: str, settings: JudgeSettings) -> None:
    """Refuse a confidence method that cannot run for ``mode`` under ``settings``
    (``InputError`` on the field ``confidence``, saying what to do instead).

    Example:
        >>> from judge.config import JudgeSettings
        >>> check_confidence("score", JudgeSettings(confidence="swap"))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        judge.errors.InputError: confidence: swap compares the two orders of a comparison; ...
    """
    from judge.confidence.registry import method_for
    from judge.confidence.spec import parse_method
    from judge.errors import InputError

    assert settings.confidence is not None
    try:
        method_for(parse_method(settings.confidence)).check(mode, settings)
    except ValueError as exc:
        raise InputError("confidence", str(exc)) from None
