"""How guessable an API key is: the service refuses to serve the network with weak keys.

A key must have at least :data:`MIN_KEY_CHARS` characters, :data:`MIN_DISTINCT_CHARS` of
them different (``k1``, ``admin`` or ``aaaaaaaaaaaaaaaa`` fall to a few thousand guesses even
through the per-address throttle). ``python -c "import secrets; print(secrets.token_urlsafe(24))"``
makes a good one. On a loopback bind a weak key is only warned about (the service is reachable
from this machine alone); any other bind refuses to start.

Example:
    >>> weak_key("k1") is not None, weak_key("aaaaaaaaaaaaaaaaaaaa") is not None
    (True, True)
    >>> weak_key("Zq3-vT9_pL2xW8mR4nK7")
"""

from __future__ import annotations

MIN_KEY_CHARS = 16
MIN_DISTINCT_CHARS = 8


def weak_key(key: str) -> str | None:
    """Why ``key`` is too easy to guess, or None."""
    if len(key) < MIN_KEY_CHARS or len(set(key)) < MIN_DISTINCT_CHARS:
        return (
            f"needs at least {MIN_KEY_CHARS} characters, {MIN_DISTINCT_CHARS} of them "
            f"different (it has {len(key)}, {len(set(key))} different)"
        )
    return None


def weak_keys(named: dict[str, list[str]]) -> list[str]:
    """One line per weak key, naming its variable and position (never the key itself)."""
    out = []
    for variable, keys in named.items():
        for n, key in enumerate(keys, start=1):
            why = weak_key(key)
            if why:
                out.append(f"{variable} key {n} of {len(keys)} {why}")
    return out
