"""The confidence option: which method estimates each item's confidence, parsed and checked.

A method is a name, with a count for the methods that make extra calls: ``samples:K``,
``swap``, ``panel``, ``logprobs``, ``annotators:K`` (docs/confidence.md).

Example:
    >>> parse_method("samples:5")
    ConfidenceSpec(name='samples', k=5)
    >>> str(parse_method("swap"))
    'swap'
    >>> parse_method("sample:5")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: unknown confidence method 'sample'; did you mean 'samples'? (methods: ...)
    >>> parse_method("samples:50")
    Traceback (most recent call last):
    ValueError: samples:50: K must be from 2 to 20
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator, Field

from registry import did_you_mean

#: method name → whether it takes a count ``:K``
METHODS: dict[str, bool] = {
    "samples": True,
    "swap": False,
    "panel": False,
    "logprobs": False,
    "annotators": True,
}
K_MIN, K_MAX = 2, 20
"""the counts a method's ``:K`` may take (a service may cap it lower)"""
LISTING = ", ".join(f"{n}:K" if counted else n for n, counted in METHODS.items())


@dataclass(frozen=True)
class ConfidenceSpec:
    """A parsed method: its name and, for ``samples`` and ``annotators``, the count K."""

    name: str
    k: int | None = None

    def __str__(self) -> str:
        return self.name if self.k is None else f"{self.name}:{self.k}"

    @property
    def extra_calls(self) -> int:
        """Model calls this method adds per work item (and per order of a comparison)."""
        return self.k or 0


def parse_method(text: str, k_max: int = K_MAX) -> ConfidenceSpec:
    """Parse ``name`` or ``name:K``; raise ``ValueError`` saying what is wrong and what is
    allowed (the nearest method for a typo, the range for a count)."""
    if not isinstance(text, str):
        raise ValueError(f"a confidence method is a string ({LISTING}), not {type(text).__name__}")
    name, sep, count = text.strip().partition(":")
    name = name.strip().lower()
    if name not in METHODS:
        hint = did_you_mean(name, METHODS)
        hint = f"; {hint}" if hint else ""
        raise ValueError(f"unknown confidence method {name[:40]!r}{hint} (methods: {LISTING})")
    if not METHODS[name]:
        if sep:
            raise ValueError(f"{name} takes no count (write {name!r}, not {text.strip()[:40]!r})")
        return ConfidenceSpec(name)
    if not sep:
        raise ValueError(f"{name} needs a count: {name}:K with K from {K_MIN} to {k_max}")
    try:
        k = int(count.strip())
    except ValueError:
        raise ValueError(
            f"{name}:{count.strip()[:20]}: K must be a whole number from {K_MIN} to {k_max}"
        ) from None
    if not K_MIN <= k <= k_max:
        raise ValueError(f"{name}:{k}: K must be from {K_MIN} to {k_max}")
    return ConfidenceSpec(name, k)


def _option(text: str) -> str:
    return str(parse_method(text))


ConfidenceOption = Annotated[str, Field(max_length=40), AfterValidator(_option)]
"""A request option naming a method, stored normalized (``"samples:5"``)."""
MemoryOption = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")]
"""A request option naming an exemplar memory (a name, never a path)."""


def normalized(text: str | None) -> str | None:
    """The method as it is recorded (``"samples:5"``), or None; raises like :func:`parse_method`.

    Example:
        >>> normalized(" Samples:05 "), normalized(None)
        ('samples:5', None)
    """
    return None if text is None else str(parse_method(text))
