"""What a client may ask of the server per request (beyond the option schema).

``backend: "local"`` runs CPU-heavy models (OCR, classifiers, encoders) inside the API
process; a client may ask for it only when the operator allows it
(``JUDGE_SERVE_ALLOW_LOCAL_BACKEND=true``). The server's own default backend (``JUDGE_BACKEND``)
is the operator's choice and is not affected.

Example:
    >>> check_overrides({"backend": "llm"}, ServiceSettings())
"""

from __future__ import annotations

from typing import Any

from api.core.settings import ServiceSettings
from judge.errors import InputError


def check_overrides(
    overrides: dict[str, Any], settings: ServiceSettings, prefix: str = "options"
) -> None:
    """Raise :class:`InputError` naming ``<prefix>.backend`` for a refused local backend."""
    if overrides.get("backend") == "local" and not settings.allow_local_backend:
        raise InputError(
            f"{prefix}.backend",
            "this server does not run the local backend for requests; use 'llm' or 'auto' "
            "(operators: set JUDGE_SERVE_ALLOW_LOCAL_BACKEND=true to allow it)",
        )


def check_options(options: Any, settings: ServiceSettings, prefix: str = "options") -> None:
    """:func:`check_overrides` of an options model (anything with ``overrides()``)."""
    check_overrides(options.overrides(), settings, prefix)
