"""Environment switches of the local predictor (for ablations and for users who validate
their own memories with nested cross-validation, e.g. ``judge meta-eval --cv lopo``).

* ``JUDGE_LOCAL_SELECTION``: ``stack`` (default: non-negative weights over the members) or
  ``best`` (the single best candidate).
* ``JUDGE_LOCAL_MEMBERS``: comma-separated members to use; default :data:`DEFAULT_MEMBERS`;
  any of :data:`ALL_MEMBERS` may be named (``brisque``, ``niqe``: each classic score alone by
  its rank; ``camera``: camera statistics).
* ``JUDGE_LOCAL_WEIGHTS``: ``equal`` (default) or ``agreement`` (exemplars whose raters
  disagreed pull the fits less, :mod:`skills.local.agreement`).

The default members add ``sibling`` to the earlier four; that set scored best on the mean
over the AVT scales under nested leave-one-prompt-out among the variants measured (the
README's table says which were measured against which); the others are opt-in.

Example:
    >>> config_key()  # with no switch set
    'b3722ce0-stack'
"""

from __future__ import annotations

import hashlib

from skills.settings import SkillSettings

STRATEGY_NAMES = ("stack", "best")
DEFAULT_MEMBERS = ("memory", "prompt", "quality", "prototype", "sibling")
ALL_MEMBERS = (*DEFAULT_MEMBERS, "brisque", "niqe", "camera")
WEIGHTINGS = ("equal", "agreement")


def _choice(var: str, value: str | None, allowed: tuple[str, ...]) -> str:
    name = value or allowed[0]
    if name not in allowed:
        raise ValueError(f"{var}={name!r} is unknown; use one of {list(allowed)}")
    return name


def strategy() -> str:
    """``JUDGE_LOCAL_SELECTION`` (default ``stack``)."""
    return _choice("JUDGE_LOCAL_SELECTION", SkillSettings().local_selection, STRATEGY_NAMES)


def weighting() -> str:
    """``JUDGE_LOCAL_WEIGHTS`` (default ``equal``)."""
    return _choice("JUDGE_LOCAL_WEIGHTS", SkillSettings().local_weights, WEIGHTINGS)


def member_filter() -> tuple[str, ...]:
    """``JUDGE_LOCAL_MEMBERS``: the members allowed (default :data:`DEFAULT_MEMBERS`)."""
    raw = SkillSettings().local_members or ""
    names = tuple(n.strip() for n in raw.split(",") if n.strip()) or DEFAULT_MEMBERS
    unknown = sorted(set(names) - set(ALL_MEMBERS))
    if unknown:
        raise ValueError(
            f"JUDGE_LOCAL_MEMBERS names unknown members {unknown}; use some of {list(ALL_MEMBERS)}"
        )
    return names


def config_key() -> str:
    """The cache-key part of the settings: a short hash of the members and the weighting,
    then the strategy (so choices made under other settings, or other defaults, are never
    reused)."""
    members, weights = member_filter(), weighting()
    tag = hashlib.sha256(f"{','.join(sorted(members))}|{weights}".encode()).hexdigest()[:8]
    return f"{tag}-{strategy()}"
