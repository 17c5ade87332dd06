"""litellm's process-wide switches that the judge sets, in one place.

Every judge model call goes through ``litellm.acompletion``; its fixed CPU per call (request
set-up, logging objects, redaction, pricing) is paid hundreds of times per study, all on one
event loop. :data:`TUNED` lists the public, documented ``litellm`` module settings the judge
applies when :mod:`judge.llm.gateway` is imported; :func:`apply` sets them and
:func:`applied` swaps a set in and out (the per-call benchmark compares litellm's defaults
with the judge's settings this way).

Example:
    >>> import litellm
    >>> apply()
    >>> litellm.suppress_debug_info
    True
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any

import litellm

#: the judge's settings: name -> value (each a documented ``litellm.<name>`` attribute)
TUNED: dict[str, Any] = {
    # no "Give Feedback / Get Help" banners on provider errors
    "suppress_debug_info": True,
    # prompts and images stay out of anything litellm would log; litellm then also skips
    # copying the messages into its logging payload and scanning their data URLs (with two
    # ~1 MP images, ~1 ms of CPU per call less than its default)
    "turn_off_message_logging": True,
}

#: litellm's own defaults for the same names (what a plain ``import litellm`` gives)
DEFAULTS: dict[str, Any] = {
    "suppress_debug_info": False,
    "turn_off_message_logging": False,
}


def apply(values: Mapping[str, Any] = TUNED) -> None:
    """Set ``litellm.<name> = value`` for each entry (default: :data:`TUNED`)."""
    for name, value in values.items():
        if not hasattr(litellm, name):
            raise AttributeError(
                f"litellm has no setting {name!r}; check the pinned litellm version's docs "
                "and fix judge.llm.litellm_settings"
            )
        setattr(litellm, name, value)


@contextlib.contextmanager
def applied(values: Mapping[str, Any]) -> Iterator[None]:
    """Apply ``values`` for the duration of the block, then restore the previous ones."""
    before = {name: getattr(litellm, name) for name in values}
    apply(values)
    try:
        yield
    finally:
        apply(before)
