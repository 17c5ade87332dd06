"""litellm's process-wide switches that the judge sets, in one place.

Every judge model call goes through ``litellm.acompletion``; its fixed CPU per call (request
set-up, logging objects, redaction, pricing) is paid hundreds of times per study, all on one
event loop. :data:`TUNED` lists the switches the judge applies when litellm is first
loaded (:func:`load`): public ``litellm`` module settings (lower-case names) and environment
variables that litellm reads on every call (upper-case names); :func:`apply` sets them and
:func:`applied` swaps a set in and out (the per-call benchmark compares litellm's defaults
with the judge's settings this way).

``EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER``: litellm sends ``openai/...`` calls through its
own HTTP handler instead of the OpenAI SDK client. The request and the reply go through the
same OpenAI provider configuration either way (parameter mapping, structured output, images,
pricing, error classes); only the HTTP client differs, and the SDK's per-call request
building (about half of a call's CPU) is skipped. A value already in the environment wins:
``EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER=false`` keeps the OpenAI SDK client.

litellm itself is imported on first need (:func:`load`): a run on the local backend, which
calls no model, never pays its import (seconds of CPU). :mod:`judge.llm.warmup` loads it on
its background thread before the first call, so the import never runs on the event loop.

Example:
    >>> litellm = load()
    >>> litellm.suppress_debug_info
    True
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from functools import lru_cache
from types import ModuleType
from typing import Any

#: litellm's switch for the OpenAI route's HTTP client (read from the environment per call)
OPENAI_HTTP_HANDLER = "EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER"

#: the judge's settings: name -> value (a ``litellm.<name>`` attribute, or an upper-case
#: environment variable litellm reads; ``None`` there means unset)
TUNED: dict[str, Any] = {
    # no "Give Feedback / Get Help" banners on provider errors
    "suppress_debug_info": True,
    # prompts and images stay out of anything litellm would log; litellm then also skips
    # copying the messages into its logging payload and scanning their data URLs (with two
    # ~1 MP images, ~1 ms of CPU per call less than its default)
    "turn_off_message_logging": True,
    # openai/... calls through litellm's HTTP handler, not the OpenAI SDK (see above); a value
    # the user put in the environment is kept
    OPENAI_HTTP_HANDLER: os.environ.get(OPENAI_HTTP_HANDLER, "true"),
}

#: litellm's own defaults for the same names (what a plain ``import litellm`` gives)
DEFAULTS: dict[str, Any] = {
    "suppress_debug_info": False,
    "turn_off_message_logging": False,
    OPENAI_HTTP_HANDLER: None,
}


def _is_env(name: str) -> bool:
    return name.isupper()


@lru_cache(maxsize=1)
def load() -> ModuleType:
    """litellm, imported once per process with the judge's switches (:data:`TUNED`) applied."""
    import litellm  # the package ``judge.llm`` has set its offline defaults

    apply(module=litellm)
    return litellm


def _current(name: str) -> Any:
    return os.environ.get(name) if _is_env(name) else getattr(load(), name)


def apply(values: Mapping[str, Any] = TUNED, module: ModuleType | None = None) -> None:
    """Set ``litellm.<name> = value`` (an upper-case name: the environment variable) for each
    entry (default: :data:`TUNED`)."""
    litellm = module or load()
    for name, value in values.items():
        if _is_env(name):
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = str(value).lower() if isinstance(value, bool) else str(value)
            continue
        if not hasattr(litellm, name):
            raise AttributeError(
                f"litellm has no setting {name!r}; check the pinned litellm version's docs "
                "and fix judge.llm.litellm_settings"
            )
        setattr(litellm, name, value)


@contextlib.contextmanager
def applied(values: Mapping[str, Any]) -> Iterator[None]:
    """Apply ``values`` for the duration of the block, then restore the previous ones."""
    before = {name: _current(name) for name in values}
    apply(values)
    try:
        yield
    finally:
        apply(before)
