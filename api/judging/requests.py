"""The service's one validation path: every route that judges (``POST /v1/score``,
``POST /v1/compare``), every batch item (when the batch is posted and again in the worker,
which reads it back from Redis) goes through :func:`check_body`, once, and the engine runs the
result without validating it again (:meth:`judge.engine.Judge.arun_checked`).

A body is a mode's request (``{"mode": "compare", ...}`` picks the mode; the route gives the
default) or its wrapped form ``{"<wrapper_key>": request, "options": {...}}``; the mode
unwraps it (:meth:`judge.modes.base.Mode.unwrap`). Every fault is an
:class:`~judge.errors.InputError` naming the field as the client wrote it: ``submission.prompt``,
``options.retrieval_k``, ``options.skills`` (an unknown card the options asked for),
``criteria[1]``; the app turns it into ``400 invalid_input`` on every route, and a batch
names the item in front (``items[3].options.skills``). ``options.trust`` names an installed
trust policy (:mod:`api.judging.trust`); it never reaches the engine's settings.

Example:
    >>> from judge.engine import Judge
    >>> from api.core.settings import ServiceSettings
    >>> judge = Judge(backend="local")
    >>> body = {"submission": {"task": {"id": "t", "category": "OE", "brief": "b"},
    ...         "prompt": "p"}, "options": {"skills": ["no_such_card"]}}
    >>> try:
    ...     check_body(body, judge, ServiceSettings())
    ... except InputError as exc:
    ...     print(exc.field)
    options.skills
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic import BaseModel

from api.core.settings import ServiceSettings
from api.judging.policy import check_overrides
from api.judging.trust import load_policies, resolve, take_trust
from judge.errors import InputError
from judge.modes import Mode, get_mode, mode_of
from judge.modes.checked import CheckedRequest, check_request


class OptionsFault(InputError):
    """A fault of options given beside the requests (a batch's own ``options``): it concerns
    every item, so it is named without an item (``options.skills``)."""


class OuterOptions:
    """Options given beside the requests (a batch's), turned into each mode's engine
    overrides once per mode; a request's own options beat them.

    Example::

        outer = OuterOptions({"retrieval": "none"})
        checked = [check_body(item, judge, policy, outer=outer) for item in items]
    """

    def __init__(self, raw: Any):
        try:
            self.trust, raw = take_trust(raw)
        except InputError as exc:
            raise OptionsFault(exc.field, exc.message) from None
        self.raw = {} if raw is None else raw
        self._by_mode: dict[str, dict[str, Any]] = {}

    def for_mode(
        self, mode: Mode, request: BaseModel, judge: Any, policy: ServiceSettings
    ) -> dict[str, Any]:
        """``mode``'s overrides; raise :class:`OptionsFault` when they are bad for it."""
        if mode.name in self._by_mode:
            return self._by_mode[mode.name]
        try:
            overrides = mode.parse_options(self.raw)
            _checked(mode, request, overrides, True, judge, policy)
        except InputError as exc:
            if exc.field.startswith("options"):
                raise OptionsFault(exc.field, exc.message) from None
            # else a fault of this request, not of the options: its own check reports it
        self._by_mode[mode.name] = overrides
        return overrides


def check_body(
    body: Any,
    judge: Any,
    policy: ServiceSettings,
    default_mode: str = "score",
    outer: OuterOptions | None = None,
) -> CheckedRequest:
    """Parse ``body`` (bare or wrapped, of any mode), merge its options (over ``outer``'s)
    into ``judge``'s settings, apply the service's ``policy`` and run the mode's checks.
    Raises :class:`~judge.errors.InputError` naming the field (see the module docstring)."""
    if not isinstance(body, dict):
        root = f"({get_mode(default_mode).wrapper_key})"
        raise InputError(root, f"expected a JSON object, got {type(body).__name__}")
    name, options = take_trust(body.get("options"))
    if name is not None:
        body = {**body, "options": options}
    mode = mode_of(body, default_mode)
    parsed = mode.unwrap(body)
    overrides = parsed.overrides
    batch_wide = False
    if outer is not None:
        overrides = {**outer.for_mode(mode, parsed.request, judge, policy), **overrides}
        batch_wide = name is None and outer.trust is not None
        name = name or outer.trust
    checked = _checked(mode, parsed.request, overrides, parsed.wrapped, judge, policy)
    if name is None:
        return checked
    try:
        trust = resolve(name, checked.settings, load_policies(policy.trust_policies))
    except InputError as exc:
        raise (OptionsFault(exc.field, exc.message) if batch_wide else exc) from None
    return replace(checked, trust=trust)


def _checked(
    mode: Mode,
    request: BaseModel,
    overrides: dict[str, Any],
    wrapped: bool,
    judge: Any,
    policy: ServiceSettings,
) -> CheckedRequest:
    check_overrides(overrides, policy, judge.settings)
    try:
        checked = check_request(mode, request, overrides, judge.settings, judge.registry)
        return replace(checked, wrapper=mode.wrapper_key if wrapped else None)
    except InputError as exc:
        setting = exc.field.split(".")[0]
        if setting in ("skills", "memories", "confidence"):  # settings the options changed
            named = InputError(f"options.{exc.field}", exc.message) if setting in overrides else exc
            raise named from None
        raise (exc.under(mode.wrapper_key) if wrapped else exc) from None


def named_as_sent(exc: InputError, checked: CheckedRequest) -> InputError:
    """A fault found while judging ``checked`` (an image's, named ``images[0]`` by the engine)
    named as the client wrote the request: ``submission.images[0]`` in the wrapped form."""
    return exc.under(checked.wrapper) if checked.wrapper else exc


def body_schema(*models: str) -> dict[str, Any]:
    """OpenAPI ``requestBody`` saying the body is one of ``models`` (component names), for
    routes that read the body themselves (bare or wrapped forms).

    Example:
        >>> body_schema("Submission")["requestBody"]["content"]["application/json"]["schema"]
        {'oneOf': [{'$ref': '#/components/schemas/Submission'}]}
    """
    refs = [{"$ref": f"#/components/schemas/{m}"} for m in models]
    return {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"oneOf": refs}}},
        }
    }
