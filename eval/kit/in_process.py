"""Adding an in-process model (a T2I backend, an editor) to its registry by model string.

A model string that runs in this process looks like ``builtin/<name>`` or
``<package>/<name>``; anything else is refused, so a typo cannot shadow a litellm model.

Example:
    >>> from registry import Registry
    >>> reg = Registry[object]("demo", group=None)
    >>> add_in_process(reg, "builtin/echo", print, "demo")
    >>> add_in_process(reg, "echo", print, "demo")
    Traceback (most recent call last):
    ...
    ValueError: demo names look like 'builtin/<name>', got 'echo'
"""

from __future__ import annotations

from typing import TypeVar

from registry import Registry

T = TypeVar("T")


def add_in_process(registry: Registry[T], model: str, obj: T, noun: str) -> None:
    """Add ``obj`` as ``model`` (replacing one of that name); ``noun`` names the kind in the
    error a model string without ``/`` gets."""
    if "/" not in model.strip("/"):
        raise ValueError(f"{noun} names look like 'builtin/<name>', got {model!r}")
    registry.add(model, obj, replace=True)
