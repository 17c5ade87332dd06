"""The confidence method a parsed option names: :data:`judge.confidence.base.METHODS` lists
every method as a lazy ``"module:Class"`` entry, so a method's module is imported only when a
request asks for it, and no method module and the base import each other.

Example:
    >>> from judge.confidence.spec import parse_method
    >>> method_for(parse_method("samples:3")).name
    'samples'
"""

from __future__ import annotations

from judge.confidence.base import METHODS, Method
from judge.confidence.spec import ConfidenceSpec


def method_for(spec: ConfidenceSpec) -> Method:
    """The method a parsed option names."""
    return METHODS.get(spec.name)(spec)
