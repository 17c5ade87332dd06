"""Defaults of the report's options (a light module: the CLI imports it when ``judge`` starts).

Example:
    >>> DEFAULT_BOOT, DEFAULT_PERM
    (1000, 10000)
"""

DEFAULT_BOOT = 1000
"""Bootstrap resamples of the tasks for the cells' 95% intervals and the leaderboards."""

DEFAULT_PERM = 10_000
"""Sign flips per paired permutation test (fewer when all patterns can be enumerated)."""
