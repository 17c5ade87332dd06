"""A trust policy: per kind of decision, when the judge's answer may be trusted.

Written by ``judge trust calibrate`` (``eval.trust``) as JSON; read here, by the engine, so the
judge itself can apply it. A policy holds its ``target`` agreement and ``delta``, the judge
``stages`` it was calibrated for (one, or a cascade from cheap to strong, each with its
:class:`~judge.trust.fingerprint.Fingerprint`) and, per kind (``verdict``,
``winner.<criterion>``, ``rating.<side>.<dimension>``, ``rating.edit.<criterion>``), one
threshold per stage: a stage decides an item when its confidence is at least its threshold
(``null``: the stage never decides this kind). For ratings the policy also holds a conformal
``interval`` (its quantile for level 1 − alpha).

A hand-edited policy is checked when read: a threshold outside [0, 1], a missing
fingerprint, a threshold list that does not match the stages, a target or delta outside
(0, 1) is refused with the field named.

Example:
    >>> fp = {"judge_models": ["m"], "confidence": "samples:5"}
    >>> p = TrustPolicy.model_validate({"target": 0.9, "delta": 0.1,
    ...     "stages": [{"name": "m", "fingerprint": fp}],
    ...     "kinds": {"verdict": {"certified": True, "thresholds": [0.8], "n": 200,
    ...                           "kept": 150, "coverage": 0.75, "agreement": 0.96}}})
    >>> p.kinds["verdict"].thresholds
    [0.8]
    >>> parse_policy({**p.model_dump(), "kinds": {"verdict": {  # doctest: +ELLIPSIS
    ...     "certified": True, "thresholds": [1.5], "n": 1, "kept": 1, "coverage": 1}}})
    Traceback (most recent call last):
    ...
    judge.trust.errors.TrustError: policy: kinds.verdict.thresholds.0: a threshold is ...
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Final, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from judge.trust.errors import TrustError
from judge.trust.fingerprint import Fingerprint

POLICY_VERSION: Final = 1


def _unit(value: float | None) -> float | None:
    if value is not None and not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise ValueError(f"a threshold is a confidence in [0, 1] (got {value})")
    return value


Threshold = Annotated[float | None, AfterValidator(_unit)]
Share = Annotated[float, Field(ge=0.0, le=1.0)]


class Interval(BaseModel):
    """Split-conformal intervals for one rating kind: ``score ± quantile`` on the scale,
    snapped inward to whole points when ``step`` is 1 (the ordinal adjustment)."""

    model_config = ConfigDict(extra="forbid")

    alpha: float = Field(gt=0.0, lt=1.0)
    quantile: float = Field(ge=0.0)
    n: int = Field(ge=1)
    scale: tuple[float, float] = (1.0, 5.0)
    step: float | None = 1.0
    coverage: Share | None = None


class KindPolicy(BaseModel):
    """What calibration found for one kind of decision."""

    model_config = ConfigDict(extra="forbid")

    certified: bool
    thresholds: list[Threshold] | None = None
    n: int = Field(ge=0)
    kept: int = Field(ge=0)
    coverage: Share
    agreement: Share | None = None
    upper_bound: Share | None = None
    stage_share: list[Share] = Field(default_factory=list)
    interval: Interval | None = None
    reason: str | None = None
    largest_target: Share | None = None
    n_needed: int | None = None
    ties_dropped: int = 0

    @model_validator(mode="after")
    def _certified_has_thresholds(self) -> KindPolicy:
        if self.certified and not self.thresholds:
            raise ValueError("a certified kind needs its thresholds (one per stage)")
        if self.kept > self.n:
            raise ValueError(f"kept ({self.kept}) cannot exceed n ({self.n})")
        return self


class Stage(BaseModel):
    """One judge of the policy (cheap to strong), named by its models."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    fingerprint: Fingerprint


class TrustPolicy(BaseModel):
    """A calibrated trust policy (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = POLICY_VERSION
    target: float = Field(gt=0.0, lt=1.0)
    delta: float = Field(gt=0.0, lt=1.0)
    alpha: float | None = Field(default=None, gt=0.0, lt=1.0)
    agree_within: float = Field(default=1.0, ge=0.0)
    method: str = "fixed-sequence"
    stages: list[Stage] = Field(min_length=1)
    kinds: dict[str, KindPolicy] = Field(default_factory=dict)
    n_items: int = Field(default=0, ge=0)
    calibrated_on: list[str] | None = None
    """the result ids of the calibration items (reports measure agreement on the others)"""

    @model_validator(mode="after")
    def _one_threshold_per_stage(self) -> TrustPolicy:
        for kind, entry in self.kinds.items():
            if entry.thresholds is not None and len(entry.thresholds) != len(self.stages):
                raise ValueError(
                    f"kinds.{kind}.thresholds has {len(entry.thresholds)} value(s) for "
                    f"{len(self.stages)} stage(s): one threshold per stage"
                )
            if entry.stage_share and len(entry.stage_share) != len(self.stages):
                raise ValueError(f"kinds.{kind}.stage_share needs one share per stage")
        return self

    @property
    def stage_names(self) -> list[str]:
        return [s.name for s in self.stages]

    def to_json(self) -> str:
        """The policy as written to disk (indented JSON, a final newline)."""
        return json.dumps(self.model_dump(mode="json", exclude_none=True), indent=2) + "\n"


def read_policy(path: str | Path) -> TrustPolicy:
    """Read and check a policy file; every problem is a :class:`TrustError` naming the file
    and the field."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        msg = f"{path}: no such policy file (write one with `judge trust calibrate`)"
        raise TrustError(msg) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TrustError(f"{path}: not a JSON policy ({exc})") from None
    return parse_policy(data, str(path))


def parse_policy(data: object, source: str = "policy") -> TrustPolicy:
    """A policy from its JSON value; problems name ``source`` and the field."""
    if not isinstance(data, dict):
        raise TrustError(f"{source}: a policy is a JSON object")
    try:
        return TrustPolicy.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(policy)"
        msg = first["msg"].removeprefix("Value error, ")
        if first["type"] == "missing":
            msg = "missing (calibrate with `judge trust calibrate`; a policy cannot go without it)"
        more = f" (and {exc.error_count() - 1} more problem(s))" if exc.error_count() > 1 else ""
        raise TrustError(f"{source}: {field}: {msg}{more}") from None


def as_policy(value: TrustPolicy | str | Path | dict) -> TrustPolicy:
    """A policy from what a caller may pass: a :class:`TrustPolicy`, a policy file's path or
    its JSON value (``trust=`` in Python)."""
    if isinstance(value, TrustPolicy):
        return value
    if isinstance(value, dict):
        return parse_policy(value)
    if isinstance(value, str | Path):
        return read_policy(value)
    raise TrustError(f"trust: expected a policy file, its JSON or a TrustPolicy, got "
                     f"{type(value).__name__}")  # fmt: skip
