"""What a client may ask of the server per request (beyond the option schema): the one rule of
the local backend.

The local backend runs CPU-heavy models (OCR, classifiers, encoders) inside the API process,
so it runs only by the operator's choice:

- a service started **without a judge model** (no ``JUDGE_MODEL``/``JUDGE_PANEL``, or
  ``JUDGE_BACKEND=local``) judges every request with it, and ``judge serve`` says so at start;
  a request may name ``local`` or ``auto`` (the same there), and one asking for ``llm`` gets
  ``409 no_judge_model`` (:class:`NoJudgeModel`): nothing the client can change;
- a service **with a model** judges with the model; a request may ask for the local backend
  only where the operator sets ``JUDGE_SERVE_ALLOW_LOCAL_BACKEND=true`` (else ``400`` naming
  ``options.backend``), so a client cannot move a model-sized service's load onto its CPU.

Example:
    >>> from judge.config import JudgeSettings
    >>> check_overrides({"backend": "local"}, ServiceSettings(), JudgeSettings())  # model-less
    >>> try:
    ...     check_overrides({"backend": "llm"}, ServiceSettings(), JudgeSettings())
    ... except NoJudgeModel as exc:
    ...     print(exc.field)
    options.backend
"""

from __future__ import annotations

from typing import Any

from api.core.settings import ServiceSettings
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
    """Apply the rule (module docstring) to a request's ``backend`` on a service whose own
    judge settings are ``engine``: :class:`InputError` or :class:`NoJudgeModel`, each naming
    ``<prefix>.backend``."""
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
