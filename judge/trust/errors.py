"""The errors of trust policies.

Example:
    >>> isinstance(TrustMismatch("x"), TrustError), isinstance(TrustError("x"), ValueError)
    (True, True)
"""

from __future__ import annotations

from judge.errors import JudgeError


class TrustError(JudgeError, ValueError):
    """A policy, result or label file that cannot be used as asked; the message says why."""


class TrustMismatch(TrustError):
    """A policy applied to results of another judge (models, confidence method, options or
    card versions) than it was calibrated for; the message names both."""
