"""A registry of local strategies for image checkpoints, tried in order.

A strategy takes a checkpoint and the image and returns a :class:`VerdictValue` when the
checkpoint is its kind (decided, or unscored with its own reason), or None to pass it on.
The first strategy that claims a checkpoint answers it; if none does it stays unscored,
needing a vision-language model.

Example::

    @register_strategy("my-check")
    def my_check(check: CheckSpec, image: ImagePayload) -> VerdictValue | None:
        return None  # not mine
"""

from __future__ import annotations

from collections.abc import Callable

from registry import Registry
from skills.types import CheckSpec, ImagePayload, VerdictValue

Strategy = Callable[[CheckSpec, ImagePayload], VerdictValue | None]
STRATEGIES = Registry[Strategy]("image check strategy")


def register_strategy(name: str) -> Callable[[Strategy], Strategy]:
    """Register ``fn`` under ``name`` (registration order is the order they are tried)."""
    return STRATEGIES.register(name, replace=True)


def strategies() -> dict[str, Strategy]:
    """The registered strategies by name, in the order they are tried."""
    return dict(STRATEGIES.items())
