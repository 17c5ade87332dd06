"""Errors the engine raises for bad input; each names the offending field and what to do.

Example:
    >>> str(InputError("images[0]", "not an image"))
    'images[0]: not an image'
"""

from __future__ import annotations

from collections.abc import Sequence


class JudgeError(Exception):
    """Base class of the engine's own errors."""


class InputError(JudgeError, ValueError):
    """A submission (or file) the judge cannot accept; ``field`` locates the problem, ``more``
    holds further ``(field, message)`` problems found by the same check (all are named).

    Example:
        >>> str(InputError("task.category", "this field is required",
        ...                [("task.brief", "this field is required")]))
        'task.category: this field is required; task.brief: this field is required'
    """

    def __init__(self, field: str, message: str, more: Sequence[tuple[str, str]] = ()):
        self.field = field
        self.message = message
        self.more = list(more)
        super().__init__("; ".join(f"{f}: {m}" for f, m in [(field, message), *self.more]))

    def under(self, prefix: str) -> InputError:
        """The same problem named inside ``prefix`` (a wrapper key, ``items[3]``, ...); a
        problem of the whole object (``(submission)``) becomes ``prefix`` itself.

        Example:
            >>> InputError("prompt", "expected a string").under("submission").field
            'submission.prompt'
        """
        more = [(_under(prefix, f), m) for f, m in self.more]
        return InputError(_under(prefix, self.field), self.message, more)


def _under(prefix: str, field: str) -> str:
    if field.startswith("("):
        return prefix
    return f"{prefix}{'' if field.startswith('[') else '.'}{field}"


class ConfigError(JudgeError):
    """The judge is not configured to do what was asked (e.g. no model)."""


LIMIT_VARIABLES = {"bytes": "JUDGE_IMAGE_MAX_BYTES", "pixels": "JUDGE_IMAGE_MAX_PIXELS"}
"""The variable that raises each per-image limit (the CLI and the service alike)."""


def too_big(size: str, limit: int, unit: str) -> str:
    """A size refusal: the image's size, the limit and the variable that raises it.

    Example:
        >>> too_big("2048 bytes", 1024, "bytes")
        'image is 2048 bytes, over the limit of 1024 bytes (JUDGE_IMAGE_MAX_BYTES raises it)'
    """
    return (f"image is {size}, over the limit of {limit} {unit} "
            f"({LIMIT_VARIABLES[unit]} raises it)")  # fmt: skip
