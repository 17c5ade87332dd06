"""litellm's process-wide switches that the judge sets, in one place.

Every judge model call goes through ``litellm.acompletion``; its fixed CPU per call (request
set-up, logging objects, redaction, pricing) is paid hundreds of times per study, all on one
event loop. :data:`TUNED` lists the ``litellm`` module settings (and the environment settings
of :data:`ENV_CONSTANTS`) the judge applies when :mod:`judge.llm.gateway` is imported;
:func:`apply` sets them and :func:`applied` swaps a set in and out (the per-call benchmark
compares litellm's defaults with the judge's settings this way).

Example:
    >>> import litellm
    >>> apply()
    >>> litellm.suppress_debug_info
    True
"""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Iterator, Mapping
from typing import Any

# Read by litellm once, at import: set before the first ``import litellm`` of the process.
os.environ.setdefault("MAX_BASE64_LENGTH_FOR_LOGGING", "0")

import litellm  # after the environment default above

#: the judge's settings: name -> value (a ``litellm.<name>`` attribute or an ENV_CONSTANTS name)
TUNED: dict[str, Any] = {
    # no "Give Feedback / Get Help" banners on provider errors
    "suppress_debug_info": True,
    # prompts and images stay out of anything litellm would log
    "turn_off_message_logging": True,
    # litellm's logging payload otherwise copies the messages and regex-scans every data URL
    # to shorten it (~0.5 ms per 1 MP image per call); with message logging off it is
    # redacted anyway (environment variable MAX_BASE64_LENGTH_FOR_LOGGING, 0 = off)
    "MAX_BASE64_LENGTH_FOR_LOGGING": 0,
}

#: litellm's own defaults for the same names (what a plain ``import litellm`` gives)
DEFAULTS: dict[str, Any] = {
    "suppress_debug_info": False,
    "turn_off_message_logging": False,
    "MAX_BASE64_LENGTH_FOR_LOGGING": 64,
}

#: settings litellm reads from the environment at import into module constants:
#: name -> the modules holding the constant (updated too when litellm is already imported)
ENV_CONSTANTS: dict[str, tuple[str, ...]] = {
    "MAX_BASE64_LENGTH_FOR_LOGGING": (
        "litellm.constants",
        "litellm.litellm_core_utils.logging_utils",
    ),
}


def apply(values: Mapping[str, Any] = TUNED) -> None:
    """Set ``litellm.<name> = value`` for each entry (default: :data:`TUNED`)."""
    for name, value in values.items():
        if name in ENV_CONSTANTS:
            os.environ[name] = str(value)
            for module in ENV_CONSTANTS[name]:
                setattr(importlib.import_module(module), name, value)
            continue
        if not hasattr(litellm, name):
            raise AttributeError(
                f"litellm has no setting {name!r}; check the pinned litellm version's docs "
                "and fix judge.llm.litellm_settings"
            )
        setattr(litellm, name, value)


def current(name: str) -> Any:
    """The value in effect for one setting name."""
    if name in ENV_CONSTANTS:
        return getattr(importlib.import_module(ENV_CONSTANTS[name][-1]), name)
    return getattr(litellm, name)


@contextlib.contextmanager
def applied(values: Mapping[str, Any]) -> Iterator[None]:
    """Apply ``values`` for the duration of the block, then restore the previous ones."""
    before = {name: current(name) for name in values}
    apply(values)
    try:
        yield
    finally:
        apply(before)
