"""The confidence method a parsed option names: every method module imported here, once
(each registers itself in :data:`judge.confidence.base.METHODS` with ``@register``), so that
no method module and the base import each other.

Example:
    >>> from judge.confidence.spec import parse_method
    >>> method_for(parse_method("samples:3")).name
    'samples'
"""

from __future__ import annotations

from judge.confidence import annotators, logprobs, panel, samples, swap  # noqa: F401
from judge.confidence.base import METHODS, Method
from judge.confidence.spec import ConfidenceSpec


def method_for(spec: ConfidenceSpec) -> Method:
    """The method a parsed option names."""
    return METHODS[spec.name](spec)
