"""Errors the engine raises for bad input; each names the offending field and what to do.

Example:
    >>> str(InputError("images[0]", "not an image"))
    'images[0]: not an image'
"""

from __future__ import annotations


class JudgeError(Exception):
    """Base class of the engine's own errors."""


class InputError(JudgeError, ValueError):
    """A submission (or file) the judge cannot accept; ``field`` locates the problem."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message

    def under(self, prefix: str) -> InputError:
        """The same problem named inside ``prefix`` (a wrapper key, ``items[3]``, ...); a
        problem of the whole object (``(submission)``) becomes ``prefix`` itself.

        Example:
            >>> InputError("prompt", "expected a string").under("submission").field
            'submission.prompt'
        """
        if self.field.startswith("("):
            return InputError(prefix, self.message)
        sep = "" if self.field.startswith("[") else "."
        return InputError(f"{prefix}{sep}{self.field}", self.message)


class ConfigError(JudgeError):
    """The judge is not configured to do what was asked (e.g. no model)."""
