"""Participant codes: short, typeable, case-insensitive, unambiguous.

Example:
    >>> code = new_code()
    >>> len(code), code.count("-")
    (14, 2)
    >>> normalize_code(" ab12-cd34 ") == "AB12-CD34"
    True
    >>> normalize_code("<script>") is None
    True
"""

from __future__ import annotations

import re
import secrets

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud or copied by hand
CODE = re.compile(r"^[A-Z0-9][A-Z0-9_-]{3,63}$")


def new_code() -> str:
    """A fresh random code like ``K7QM-3XPD-W9RT`` (60 bits)."""
    chars = "".join(secrets.choice(ALPHABET) for _ in range(12))
    return "-".join(chars[i : i + 4] for i in range(0, 12, 4))


MIN_CHOSEN_CHARS = 10
MIN_DISTINCT_CHARS = 6


def weak_code(code: str) -> str | None:
    """Why an admin-chosen code is too easy to guess, or None: at least
    :data:`MIN_CHOSEN_CHARS` letters or digits (separators aside), :data:`MIN_DISTINCT_CHARS`
    of them different (``P001`` or ``AAAAAAAAAA`` would be found by trying a few hundred).

    Example:
        >>> weak_code("P001") is not None, weak_code("ALICE-7QM3-XPD9")
        (True, None)
    """
    chars = [c for c in code if c.isalnum()]
    if len(chars) < MIN_CHOSEN_CHARS or len(set(chars)) < MIN_DISTINCT_CHARS:
        return (
            f"a chosen code needs at least {MIN_CHOSEN_CHARS} letters or digits, "
            f"{MIN_DISTINCT_CHARS} of them different (or ask for a number of random codes)"
        )
    return None


def normalize_code(raw: object) -> str | None:
    """The canonical (upper-case, trimmed) form of a code, or None when it cannot be one."""
    if not isinstance(raw, str):
        return None
    code = raw.strip().upper()
    return code if CODE.fullmatch(code) else None
