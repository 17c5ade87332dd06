"""How a ``judge tasks`` action reports a problem: one line on stderr, an exit code.

Example:
    >>> fail("check", "no such file") == 2
    True
"""

from __future__ import annotations

import sys


def fail(action: str, message: str, code: int = 2) -> int:
    """Print ``judge tasks ACTION: message`` on stderr; return ``code`` (2: a usage error)."""
    print(f"judge tasks {action}: {message}", file=sys.stderr)
    return code
