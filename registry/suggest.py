"""The one "did you mean" lookup: the registered names closest to a mistyped one.

Every unknown-name error of the distribution (modes, kinds, cards, encoders, datasets, verbs,
settings, options) builds its hint here, so a typo is answered the same way everywhere.

Example:
    >>> suggest("scor", ["score", "compare", "edit"])
    ['score']
    >>> did_you_mean("scor", ["score", "compare", "edit"])
    "did you mean 'score'?"
    >>> did_you_mean("xyz", ["score"])
    ''
    >>> did_you_mean("minlm", ["minilm", "nomic"], quote=False)
    'did you mean minilm?'
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def suggest(name: object, names: Iterable[str], n: int = 1, cutoff: float = 0.6) -> list[str]:
    """Up to ``n`` of ``names`` closest to ``name`` (best first); ``[]`` when none is close."""
    return difflib.get_close_matches(str(name), list(names), n=n, cutoff=cutoff)


def did_you_mean(
    name: object,
    names: Iterable[str],
    n: int = 1,
    cutoff: float = 0.6,
    quote: bool = True,
) -> str:
    """``"did you mean 'x'?"`` (or ``'x' or 'y'`` with ``n=2``); ``""`` when nothing is close."""
    close = suggest(name, names, n=n, cutoff=cutoff)
    if not close:
        return ""
    return "did you mean " + " or ".join(repr(c) if quote else c for c in close) + "?"
