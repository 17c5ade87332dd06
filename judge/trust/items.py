"""The items of a result a trust policy speaks about, each with its kind and criterion.

A result (as the JSON the CLI and the service print) holds three kinds of decisions that can
carry a ``confidence``:

============================================  ====================  =========================
where in the result                           kind                  criterion (human files)
============================================  ====================  =========================
``objective.<side>.items[i]`` (``verdict``)   ``verdict``           ``<side>.<checkpoint id>``
``subjective.<side>.<dim>`` (``score``)       ``rating.<side>.<dim>``  ``<side>.<dim>``
comparison ``criteria.<name>`` (``winner``)   ``winner.<name>``     ``<name>``
edit ``criteria.<name>`` (``score``)          ``rating.edit.<name>``  ``<name>``
============================================  ====================  =========================

``side`` is ``prompt`` or ``image``. Only the reported (selected) image's figures count, not
the per-image entries of a best-of-n result. A batch's results line (``{"index", "result"}``)
is read through its ``result``.

Example:
    >>> r = {"submission_id": "s1", "objective": {"image": {"items": [
    ...     {"id": "c1", "verdict": True, "confidence": 0.8}]}}}
    >>> [(i.kind, i.criterion, i.value, i.confidence) for i in trust_items(r)]
    [('verdict', 'image.c1', True, 0.8)]
    >>> result_id(r)
    's1'
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from judge.trust.errors import TrustError

SIDES = ("prompt", "image")
KIND_TYPES = ("verdict", "rating", "winner")


@dataclass(frozen=True)
class TrustItem:
    """One decision of a result: its kind, how human files name it, the judge's answer and
    confidence, and the dict it lives in (which :func:`judge.trust.apply.apply` annotates)."""

    kind: str
    criterion: str
    value: bool | str | float | None
    confidence: float | None
    node: dict[str, Any]

    @property
    def kind_type(self) -> str:
        """``verdict``, ``rating`` or ``winner``."""
        return self.kind.split(".", 1)[0]


def unwrap(line: Any) -> dict[str, Any]:
    """The result of a results line: the line itself, or a batch line's ``result``."""
    if isinstance(line, dict) and isinstance(line.get("result"), dict) and "index" in line:
        return line["result"]
    if not isinstance(line, dict):
        raise TrustError("expected a JSON object (a result, or a batch line with 'result')")
    return line


def result_id(result: dict[str, Any]) -> str:
    """A result's id: ``submission_id`` (score, edit) or ``comparison_id`` (comparisons)."""
    for key in ("submission_id", "comparison_id"):
        if isinstance(result.get(key), str) and result[key]:
            return result[key]
    raise TrustError("the result has no 'submission_id' or 'comparison_id'")


def _confidence(node: dict[str, Any]) -> float | None:
    value = node.get("confidence")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    value = float(value)
    return value if math.isfinite(value) and 0.0 <= value <= 1.0 else None


def _is_comparison(result: dict[str, Any]) -> bool:
    return "comparison_id" in result or result.get("mode") in ("compare", "edit_compare")


def _score_items(result: dict[str, Any]) -> Iterator[TrustItem]:
    objective = result.get("objective") or {}
    subjective = result.get("subjective") or {}
    for side in SIDES:
        for node in (objective.get(side) or {}).get("items") or []:
            if isinstance(node, dict) and isinstance(node.get("id"), str):
                verdict = node.get("verdict")
                value = verdict if isinstance(verdict, bool) else None
                yield TrustItem("verdict", f"{side}.{node['id']}", value, _confidence(node), node)
        for dim, node in (subjective.get(side) or {}).items():
            if isinstance(node, dict):
                yield TrustItem(
                    f"rating.{side}.{dim}", f"{side}.{dim}", _score(node), _confidence(node), node
                )


def _score(node: dict[str, Any]) -> float | None:
    score = node.get("score")
    if isinstance(score, bool) or not isinstance(score, int | float):
        return None
    return float(score) if math.isfinite(score) else None


def trust_items(result: dict[str, Any]) -> list[TrustItem]:
    """Every decision of ``result`` a policy can trust, in the result's own order."""
    criteria = result.get("criteria") or {}
    if _is_comparison(result):
        return [
            TrustItem(
                f"winner.{name}",
                name,
                node.get("winner") if node.get("winner") in ("a", "b", "tie") else None,
                _confidence(node),
                node,
            )
            for name, node in criteria.items()
            if isinstance(node, dict)
        ]
    if result.get("mode") == "edit":
        return [
            TrustItem(f"rating.edit.{name}", name, _score(node), _confidence(node), node)
            for name, node in criteria.items()
            if isinstance(node, dict)
        ]
    return list(_score_items(result))
