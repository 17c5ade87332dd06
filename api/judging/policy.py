"""What a client may ask of the server per request (beyond the option schema): the one rule of
the local backend, and the server's cap on confidence calls.

The local backend runs CPU-heavy models (OCR, classifiers, encoders) inside the API process,
so it runs only by the operator's choice:

- a service started **without a judge model** (no ``JUDGE_MODEL``/``JUDGE_PANEL``, or
  ``JUDGE_BACKEND=local``) judges every request with it, and ``judge serve`` says so at start;
  a request may name ``local`` or ``auto`` (the same there), and one asking for ``llm`` gets
  ``409 no_judge_model`` (:class:`NoJudgeModel`): nothing the client can change;
- a service **with a model** judges with the model; a request may ask for the local backend
  only where the operator sets ``JUDGE_SERVE_ALLOW_LOCAL_BACKEND=true`` (else ``400`` naming
  ``options.backend``), so a client cannot move a model-sized service's load onto its CPU.

A confidence method that adds model calls (``samples:K``, ``annotators:K``) may ask at most
``JUDGE_SERVE_MAX_CONFIDENCE_K`` of them.

Example:
    >>> from judge.config import JudgeSettings
    >>> check_overrides({"backend": "local"}, ServiceSettings(), JudgeSettings())  # model-less
    >>> try:
    ...     check_overrides({"backend": "llm"}, ServiceSettings(), JudgeSettings())
    ... except NoJudgeModel as exc:
    ...     print(exc.field)
    options.backend
    >>> check_overrides({"confidence": "samples:9"}, ServiceSettings(), JudgeSettings())
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    judge.errors.InputError: options.confidence: samples:9: this server allows K up to 5 (...)
"""

from __future__ import annotations

from typing import Any

from api.core.settings import ServiceSettings
from judge.confidence.spec import K_MIN, parse_method
from judge.config import JudgeSettings
from judge.errors import ConfigError, InputError


class NoJudgeModel(ConfigError):
    """A request asks for the judge model of a service started without one (HTTP 409)."""

    code = "no_judge_model"

    def __init__(self, field: str):
        super().__init__(
            "this service has no judge model: it judges every request with the local backend "
            "(ask for 'local' or 'auto', or leave backend out); operators: set JUDGE_MODEL "
            "(or JUDGE_PANEL) and restart to serve a judge model"
        )
        self.field = field


def check_overrides(
    overrides: dict[str, Any],
    settings: ServiceSettings,
    engine: JudgeSettings,
    prefix: str = "options",
) -> None:
    """Apply the rules (module docstring) to a request's options on a service whose own judge
    settings are ``engine``: :class:`InputError` or :class:`NoJudgeModel`, naming
    ``<prefix>.backend`` or ``<prefix>.confidence``."""
    method = overrides.get("confidence")
    if method is not None:
        spec = parse_method(method)
        cap = settings.max_confidence_k
        if spec.k is not None and spec.k > cap:
            allowed = f"K up to {cap}" if cap >= K_MIN else "no method that adds model calls"
            raise InputError(
                f"{prefix}.confidence",
                f"{spec}: this server allows {allowed} (each one more model call per item; "
                "operators: JUDGE_SERVE_MAX_CONFIDENCE_K)",
            )
    asked = overrides.get("backend")
    local_service = engine.resolved_backend() == "local"
    if asked == "local" and not local_service and not settings.allow_local_backend:
        raise InputError(
            f"{prefix}.backend",
            "this server judges with its model and does not run the local backend for "
            "requests; use 'llm' or 'auto' (operators: set JUDGE_SERVE_ALLOW_LOCAL_BACKEND=true "
            "to allow it)",
        )
    if asked == "llm" and not engine.models():
        raise NoJudgeModel(f"{prefix}.backend")
