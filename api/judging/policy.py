"""What a client may ask of the server per request (beyond the option schema).

``backend: "local"`` runs CPU-heavy models (OCR, classifiers, encoders) inside the API
process; a client may ask for it only when the operator allows it
(``JUDGE_SERVE_ALLOW_LOCAL_BACKEND=true``). The server's own default backend (``JUDGE_BACKEND``)
is the operator's choice and is not affected. A confidence method that adds model calls
(``samples:K``, ``annotators:K``) may ask at most ``JUDGE_SERVE_MAX_CONFIDENCE_K`` of them.

Example:
    >>> check_overrides({"backend": "llm"}, ServiceSettings())
    >>> check_overrides({"confidence": "samples:9"}, ServiceSettings())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    judge.errors.InputError: options.confidence: samples:9: this server allows K up to 5 (...)
"""

from __future__ import annotations

from typing import Any

from api.core.settings import ServiceSettings
from judge.confidence.spec import K_MIN, parse_method
from judge.errors import InputError


def check_overrides(
    overrides: dict[str, Any], settings: ServiceSettings, prefix: str = "options"
) -> None:
    """Raise :class:`InputError` naming ``<prefix>.backend`` for a refused local backend, and
    ``<prefix>.confidence`` for a method asking more extra calls than the server allows."""
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
    if overrides.get("backend") == "local" and not settings.allow_local_backend:
        raise InputError(
            f"{prefix}.backend",
            "this server does not run the local backend for requests; use 'llm' or 'auto' "
            "(operators: set JUDGE_SERVE_ALLOW_LOCAL_BACKEND=true to allow it)",
        )


def check_options(options: Any, settings: ServiceSettings, prefix: str = "options") -> None:
    """:func:`check_overrides` of an options model (anything with ``overrides()``)."""
    check_overrides(options.overrides(), settings, prefix)
