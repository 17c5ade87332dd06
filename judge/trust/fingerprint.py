"""What makes two results comparable for a trust policy: the judge that produced them.

A policy's guarantee holds for the judge it was calibrated on. Results are comparable when
they come from

- the same judge models (``provenance.judge_models``, in any order),
- the same confidence method (``provenance.confidence``, else the items' ``confidence_method``),
- the same options that change results (``provenance.options``: backend, temperature,
  retrieval, calibration, ...),

which together make the fingerprint's ``digest``; and when every card and memory a result
used (``provenance.skills``, ``provenance.memories``) has the version the policy saw during
calibration. A result of a category whose cards never appeared in calibration is therefore
refused too: nothing was measured for it.

Example:
    >>> r = {"provenance": {"judge_models": ["m"], "options": {"temperature": 0.0},
    ...      "skills": {"appeal": "1"}, "confidence": "samples:5"}}
    >>> fp = fingerprint(r)
    >>> fp.confidence, fp.digest == fingerprint(r).digest, fp.label
    ('samples:5', True, 'm')
    >>> compatible(fp, fp) is None
    True
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from judge.trust.errors import TrustError
from judge.trust.items import trust_items

Scalar = str | int | float | bool | None


def core_digest(judge_models: list[str], confidence: str | None, options: dict[str, Any]) -> str:
    """``sha256:`` of the canonical JSON of the models (sorted), method and options."""
    core = {"judge_models": sorted(judge_models), "confidence": confidence, "options": options}
    text = json.dumps(core, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:32]


class Fingerprint(BaseModel):
    """The judge a policy (or one of its cascade stages) was calibrated for."""

    model_config = ConfigDict(extra="forbid")

    judge_models: list[str]
    confidence: str | None = None
    options: dict[str, Scalar] = Field(default_factory=dict)
    cards: dict[str, str] = Field(default_factory=dict)
    memories: dict[str, str] = Field(default_factory=dict)
    digest: str = ""

    @model_validator(mode="after")
    def _check_digest(self) -> Fingerprint:
        expected = core_digest(self.judge_models, self.confidence, self.options)
        if not self.digest:
            self.digest = expected
        elif self.digest != expected:
            raise ValueError(
                f"digest {self.digest} does not match its judge_models, confidence and "
                f"options ({expected}): a hand edit changed them; calibrate again instead"
            )
        return self

    @property
    def label(self) -> str:
        """A short name: the judge models joined by ``+`` (the backend when there are none)."""
        return "+".join(sorted(self.judge_models)) or str(self.options.get("backend") or "judge")

    def describe(self) -> str:
        """One line naming the judge, for messages."""
        opts = ", ".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        return f"models {self.label}, confidence {self.confidence or 'none'}, options ({opts})"

    def widened(self, other: Fingerprint) -> Fingerprint:
        """The same judge with the cards and memories of both (calibration pools results of
        several categories); a card or memory seen at two versions is refused."""
        if other.digest != self.digest:
            raise TrustError(
                f"results of two judges in one file: {self.describe()} and {other.describe()}"
            )
        for field in ("cards", "memories"):
            mine, theirs = getattr(self, field), getattr(other, field)
            for name in set(mine) & set(theirs):
                if mine[name] != theirs[name]:
                    raise TrustError(
                        f"{field[:-1]} {name!r} appears at versions {mine[name]} and "
                        f"{theirs[name]} in one results file: calibrate one version at a time"
                    )
        return self.model_copy(
            update={
                "cards": {**self.cards, **other.cards},
                "memories": {**self.memories, **other.memories},
            }
        )


def _method(result: dict[str, Any]) -> str | None:
    provenance = result.get("provenance") or {}
    if isinstance(provenance.get("confidence"), str) and provenance["confidence"]:
        return provenance["confidence"]
    methods = sorted(
        {m for i in trust_items(result) if isinstance(m := i.node.get("confidence_method"), str)}
    )
    return ",".join(methods) or None


def fingerprint(result: dict[str, Any]) -> Fingerprint:
    """The fingerprint of one result (a dict as printed by the CLI or the service)."""
    provenance = result.get("provenance") or {}
    if not isinstance(provenance, dict):
        raise TrustError("the result's 'provenance' is not an object")
    options = {k: v for k, v in (provenance.get("options") or {}).items() if isinstance(v, Scalar)}
    return Fingerprint(
        judge_models=[str(m) for m in provenance.get("judge_models") or []],
        confidence=_method(result),
        options=options,
        cards={str(k): str(v) for k, v in (provenance.get("skills") or {}).items()},
        memories={str(k): str(v) for k, v in (provenance.get("memories") or {}).items()},
    )


def compatible(result_fp: Fingerprint, policy_fp: Fingerprint) -> str | None:
    """None when a result of ``result_fp`` may be judged by a policy calibrated for
    ``policy_fp``; else why not, naming both."""
    if result_fp.digest != policy_fp.digest:
        return (
            f"the policy was calibrated for {policy_fp.describe()}; these results come from "
            f"{result_fp.describe()}"
        )
    for field in ("cards", "memories"):
        seen, used = getattr(policy_fp, field), getattr(result_fp, field)
        for name, version in sorted(used.items()):
            if seen.get(name) != version:
                was = f"version {seen[name]}" if name in seen else "no results that used it"
                return (
                    f"{field[:-1]} {name!r} is at version {version} in these results, but the "
                    f"policy was calibrated on {was} (judge {policy_fp.label}): calibrate again"
                )
    return None
