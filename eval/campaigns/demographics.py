"""Optional self-reported demographics of a campaign's annotators, and how the crowd compares
with a reference distribution the admin supplies.

An annotator may say their age band, gender and country (ISO 3166 alpha-2) — or nothing:
every field is optional and the page offers to skip. The report counts the answers per field
(``not said`` included), and where the campaign carries a ``reference`` for that field, puts
each category's crowd share next to the reference share and the total variation distance
(half the summed absolute differences: 0 = the same distribution, 1 = disjoint) over the
annotators who answered.

Example:
    >>> section([{"age_band": "25-34", "country": "DE"}, {"age_band": "65+"}],
    ...         {"age_band": {"25-34": 0.5, "65+": 0.5}})["age_band"]["distance"]
    0.0
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

AgeBand = Literal["18-24", "25-34", "35-44", "45-54", "55-64", "65+"]
Gender = Literal["woman", "man", "another"]
AGE_BANDS: tuple[str, ...] = get_args(AgeBand)
GENDERS: tuple[str, ...] = get_args(Gender)
FIELDS = ("age_band", "gender", "country")
Share = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]


class Profile(BaseModel):
    """``POST /v1/label/{token}/profile``: what the annotator chose to say (null = not said)."""

    model_config = ConfigDict(extra="forbid")
    age_band: AgeBand | None = None
    gender: Gender | None = None
    country: str | None = Field(default=None, pattern=r"^[A-Z]{2}$")


class Reference(BaseModel):
    """A campaign's reference distribution: shares per category of each field (each field's
    shares sum to 1 within 0.01)."""

    model_config = ConfigDict(extra="forbid")
    age_band: dict[AgeBand, Share] | None = None
    gender: dict[Gender, Share] | None = None
    country: dict[Annotated[str, Field(pattern=r"^[A-Z]{2}$")], Share] | None = None

    @field_validator("age_band", "gender", "country")
    @classmethod
    def _sums_to_one(cls, shares: dict[str, float] | None) -> dict[str, float] | None:
        if shares is not None and abs(sum(shares.values()) - 1.0) > 0.01:
            raise ValueError(f"the shares sum to {sum(shares.values()):.3f}, not 1")
        return shares


def section(
    profiles: Sequence[Mapping[str, Any]], reference: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Per field: ``{"answered", "not_said", "counts", "shares"}`` and, with a reference for
    the field, ``"reference"`` (its shares) and ``"distance"`` (total variation)."""
    out: dict[str, Any] = {}
    for name in FIELDS:
        said = [str(p[name]) for p in profiles if p.get(name)]
        counts = Counter(said)
        shares = {k: round(v / len(said), 4) for k, v in sorted(counts.items())} if said else {}
        entry: dict[str, Any] = {
            "answered": len(said),
            "not_said": len(profiles) - len(said),
            "counts": dict(sorted(counts.items())),
            "shares": shares,
        }
        ref = (reference or {}).get(name)
        if ref:
            keys = set(ref) | set(shares)
            entry["reference"] = dict(sorted(ref.items()))
            entry["distance"] = (
                round(0.5 * sum(abs(shares.get(k, 0.0) - ref.get(k, 0.0)) for k in keys), 4)
                if said
                else None
            )
        out[name] = entry
    return out


def markdown_lines(demo: Mapping[str, Any]) -> list[str]:
    """The report.md section."""
    lines = ["", "## Who labelled (self-reported, optional)", ""]
    for name in FIELDS:
        d = demo[name]
        title = name.replace("_", " ")
        lines.append(f"**{title}**: {d['answered']} answered, {d['not_said']} did not say"
                     + (f"; distance to the reference {d['distance']}" if d.get("distance")
                        is not None else "") + ".")  # fmt: skip
        if d["shares"] or d.get("reference"):
            ref = d.get("reference") or {}
            lines += ["", f"| {title} | crowd | reference |", "|---|---|---|"]
            for k in sorted(set(d["shares"]) | set(ref)):
                lines.append(f"| {k} | {d['shares'].get(k, 0.0)} | {ref.get(k, '')} |")
        lines.append("")
    return lines
